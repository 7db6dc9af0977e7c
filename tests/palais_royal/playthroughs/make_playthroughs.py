"""Random playthroughs and legal-choice counts (``make playthroughs``): golden files that guard the RULES.

Modelled on OpenSpiel's playthroughs and python-chess's perft counts. Every decision of these games is a uniformly
random legal choice (``options.sample_option`` of Palais Royal) drawn from a random stream owned by this
script, so no strategy module is involved: only the engine decides what happens. A change of the rules, the setup,
the legal options or the scoring shows up here as a diff of plain text.

- ``<name>.txt``: one playthrough per game of :data:`PLAYTHROUGHS`: a state line at every turn start, one line per
  decision (seat, kind, the decision's bounds, the choice), the final scores.
- ``counts.txt``: the number of legal choices at about 30 positions of random games (our perft). A position is
  ``(players, layout, gold_limit, seed, decision)``: the state before that decision of the game whose earlier
  decisions were all random choices from the stream of :meth:`Position.rng`. No state is stored.

Regenerate after a reviewed rule change and commit the diff::

    make playthroughs        # = python -m tests.palais_royal.playthroughs.make_playthroughs
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import ROOM_CODES, ROOM_KEYS
from palais_sim.games.palais_royal.components import ComponentSet, load_components
from palais_sim.games.palais_royal.options import legal_options, sample_option
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import EMPTY, GameState, RuleOptions
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.tournament.schedule import group_seed

PLAYTHROUGH_DIR = Path(__file__).parent
COUNTS_FILE = PLAYTHROUGH_DIR / "counts.txt"
ROOT_SEED = 1  # seeds are group_seed(ROOT_SEED, index): the seed function of every run
FORMAT = "palais-playthrough/1"
COUNTS_FORMAT = "palais-counts/1"


class Game(NamedTuple):
    """A random game: rule options and the index of its seed (``group_seed(ROOT_SEED, index)``)."""

    players: int
    layout: str  # the rule option: random, first-game or a code
    index: int
    gold_limit: int | None = None
    max_rounds: int = 100

    @property
    def seed(self) -> int:
        return group_seed(ROOT_SEED, self.index)

    def options(self) -> RuleOptions:
        return RuleOptions(
            players=self.players, layout=self.layout, gold_limit=self.gold_limit, max_rounds=self.max_rounds
        )


PLAYTHROUGHS: dict[str, Game] = {
    "2p-first-game": Game(2, "first-game", 0),
    "2p-random-layout": Game(2, "random", 1),
    "2p-random-layout-6-rounds": Game(2, "random", 2, max_rounds=6),
    "3p-first-game": Game(3, "first-game", 3),
    "3p-random-layout-gold-limit-57": Game(3, "random", 4, gold_limit=57),
    "4p-first-game": Game(4, "first-game", 5),
    "4p-random-layout": Game(4, "random", 6),
}

# The games the count positions are taken from (seed indices apart from the playthroughs').
COUNT_GAMES: tuple[Game, ...] = (
    Game(2, "first-game", 100),
    Game(3, "random", 101),
    Game(3, "random", 102, gold_limit=57),
    Game(4, "random", 103),
)


# ---------------------------------------------------------------------------------------------- the game loop


def seat_view(state: GameState, seat: int) -> PlayerView:
    """What ``seat`` may know: the one place a view is built here."""
    return PlayerView(state, seat)


def playthrough_rng(name: str) -> random.Random:
    return random.Random(f"playthrough:{name}")


Step = tuple[int, PlayerView, Decision, object]


def random_walk(state: GameState, rng: random.Random) -> Iterator[Step]:
    """Yield ``(index, view, decision, choice)`` for every decision; the choice is applied after the yield.

    The choice is drawn before the yield, so what a caller computes at a decision never changes the stream.
    """
    index = 0
    while not state.over:
        decision = rules.decision(state)
        view = seat_view(state, decision.seat)
        choice = sample_option(view, decision, rng)
        yield index, view, decision, choice
        rules.apply(state, choice)
        index += 1


# ---------------------------------------------------------------------------------------------- text forms


def kind_of(decision: Decision) -> str:
    return f"cards({decision.window})" if decision.kind == "cards" else decision.kind


def bounds(decision: Decision) -> str:
    """The decision's bounds that differ from their defaults (points, max_count, king_max, playable, drawn, ...)."""
    parts = []
    default = Decision(decision.kind, decision.seat)  # every bound at its default
    for f in dataclasses.fields(decision):
        if f.name in ("kind", "seat", "window"):
            continue
        value = getattr(decision, f.name)
        if value == getattr(default, f.name):
            continue
        if isinstance(value, bool):
            value = int(value)
        elif isinstance(value, tuple):
            value = ",".join(map(str, value))
        parts.append(f"{f.name}={value}")
    return " ".join(parts)


def rooms_text(rooms) -> str:
    return ",".join(ROOM_CODES[r] for r in rooms) if rooms else "-"


def choice_text(view: PlayerView, decision: Decision, choice: object) -> str:
    kind = decision.kind
    if kind == "setup":
        return " ".join(f"{ROOM_CODES[r]}{c}" for r, c in enumerate(choice) if c)  # type: ignore[arg-type]
    if kind == "cards":
        return ",".join(choice) if choice else "none"  # type: ignore[arg-type]
    if kind == "reinforce":
        count, sources = choice  # type: ignore[misc]
        return f"{count}" + (f" from {rooms_text(sources)}" if sources else "")
    if kind == "move":
        steps = [f"{ROOM_CODES[a]}>{ROOM_CODES[b]}" + (f"x{n}" if n != 1 else "") for a, b, n in choice]  # type: ignore[union-attr]
        return " ".join(steps) if steps else "none"
    if kind == "seals":
        king, madame, sources = choice  # type: ignore[misc]
        return f"king {king} madame {madame}" + (f" from {rooms_text(sources)}" if sources else "")
    if kind == "recruit":
        if choice is None:
            return "stop"
        field, wild_violet, wild_turquoise, source = choice  # type: ignore[misc]
        noble = view.components.nobles[view.park[field]]
        text = f"field {field} {noble.id} cost {view.recruit_cost(field)} wild {wild_violet}/{wild_turquoise}"
        return text + (f" edge servant from {ROOM_CODES[source]}" if source >= 0 else "")
    if kind == "keep":
        return ",".join(decision.drawn[i] for i in choice) if choice else "none"  # type: ignore[union-attr]
    return repr(choice)


def decision_line(index: int, view: PlayerView, decision: Decision, choice: object) -> str:
    head = " ".join(part for part in (f"d{index} s{decision.seat + 1}", kind_of(decision), bounds(decision)) if part)
    return f"{head} -> {choice_text(view, decision, choice)}"


def per_seat(values) -> str:
    return "/".join(map(str, values))


def turn_line(view: PlayerView) -> str:
    rooms = " ".join(f"{code}{per_seat(view.rooms[r])}" for r, code in enumerate(ROOM_CODES))
    bank = f" bank {view.bank}" if view.bank is not None else ""
    final = " final" if view.final_round else ""
    return (
        f"== turn {view.turn_no} round {view.round}{final} s{view.current + 1} | gold {per_seat(view.gold)}{bank} "
        f"| supply {per_seat(view.supply)} | {rooms} | hands {per_seat(view.hand_sizes)} "
        f"| taken {per_seat(map(len, view.nobles))} | nobles {view.nobles_left} | deck {view.deck_size} "
        f"| discard {len(view.discard)}"
    )


def park_lines(components: ComponentSet, park) -> list[str]:
    ids = [components.nobles[c].id if c >= 0 else "." if c == EMPTY else f"s{-1 - c}" for c in park]  # sN: servant
    return [f"park  {' '.join(ids[row * 6 : row * 6 + 6])}" for row in range(6)]


def playthrough_text(name: str) -> str:
    """The playthrough of one game of :data:`PLAYTHROUGHS`, played now with the current engine."""
    game = PLAYTHROUGHS[name]
    components = load_components()
    state = new_game(components, game.options(), game.seed)
    start = seat_view(state, 0)
    gold_limit = "none" if game.gold_limit is None else game.gold_limit
    lines = [
        f"# {FORMAT} {name}: every decision a uniformly random legal choice (engine.options.sample_option)",
        f"# players {game.players}, layout {game.layout} -> {start.layout.code}, gold_limit {gold_limit}, "
        f"max_rounds {game.max_rounds}",
        f"# seed {game.seed} = group_seed({ROOT_SEED}, {game.index}); choices from random.Random('playthrough:{name}')",
        f"# components {components.name} {components.hash}; seats 1-based; rooms {' '.join(ROOM_CODES)} = "
        f"{' '.join(ROOM_KEYS)}, each as seat1/seat2/...",
        "# '== turn' lines: the position at the turn's first decision (turns without a decision are not shown);",
        "# 'dN sK kind bounds -> choice': decision N of the game, by seat K; park fields: noble, '.' empty, sK servant",
        "# regenerate with `make playthroughs` after a reviewed rule change",
        *park_lines(components, start.park),
    ]
    turn = None
    for index, view, decision, choice in random_walk(state, playthrough_rng(name)):
        if view.turn_no != turn:
            turn = view.turn_no
            lines.append("== setup" if turn == 0 else turn_line(view))
        lines.append(decision_line(index, view, decision, choice))
    end = seat_view(state, 0)
    lines.append(f"== end after round {end.round}: {'finished' if state.finished else 'stopped at max_rounds'}")
    lines.extend(park_lines(components, end.park))
    scores = final_scores(state)
    for s in scores:
        lines.append(
            f"score s{s.seat + 1} total {s.total} = nobles {s.nobles} + cards_played {s.cards_played} "
            f"+ cards_unplayed {s.cards_unplayed} + park {s.park}; cardinal {s.cardinal}; gold {end.gold[s.seat]}"
        )
    lines.append(f"winners {' '.join(f's{w + 1}' for w in winners(scores))}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- counts


class Position(NamedTuple):
    """A count position: the state before decision number ``decision`` of a random game from ``seed``."""

    players: int
    layout: str
    gold_limit: int | None
    seed: int
    decision: int

    def options(self) -> RuleOptions:
        return RuleOptions(players=self.players, layout=self.layout, gold_limit=self.gold_limit)

    def rng(self) -> random.Random:
        """The stream of the random game the position is reached in (shared by the positions of one game)."""
        return random.Random(f"counts:{self.players}:{self.layout}:{self.gold_limit}:{self.seed}")


COUNTS_HEADER = f"""\
# {COUNTS_FORMAT}: legal choices at positions of uniformly random games (our perft), `make playthroughs` writes it.
# A position is (players, layout, gold_limit, seed, decision): the state before decision number `decision`
# (0-based) of the game set up from `seed` with these rule options (max_rounds 100), every earlier decision being
# sample_option(view, decision, rng) with rng = random.Random("counts:<players>:<layout>:<gold_limit>:<seed>").
# count = len(legal_options(view, decision)), except for move: movement options are not enumerated, so a move
# line's count is the decision's movement points.
# players layout gold_limit seed decision kind count"""


def count_of(view: PlayerView, decision: Decision) -> int:
    return decision.points if decision.kind == "move" else len(legal_options(view, decision))


def position_line(pos: Position, kind: str, count: int) -> str:
    gold = "-" if pos.gold_limit is None else pos.gold_limit
    return f"{pos.players} {pos.layout} {gold} {pos.seed} {pos.decision} {kind} {count}"


def parse_position(line: str) -> Position:
    players, layout, gold, seed, decision = line.split()[:5]
    return Position(int(players), layout, None if gold == "-" else int(gold), int(seed), int(decision))


def count_lines(positions: list[Position]) -> list[str]:
    """The count line of each position, recomputed now (the positions of one game share one random walk)."""
    games: dict[tuple, dict[int, int]] = {}
    for i, pos in enumerate(positions):
        games.setdefault(pos[:4], {})[pos.decision] = i
    lines = [position_line(pos, "over", 0) for pos in positions]  # kept if the game ends before the decision
    for at in games.values():
        pos = positions[next(iter(at.values()))]
        state = new_game(load_components(), pos.options(), pos.seed)
        for index, view, decision, _choice in random_walk(state, pos.rng()):
            if index in at:
                lines[at[index]] = position_line(positions[at[index]], kind_of(decision), count_of(view, decision))
            if index >= max(at):
                break
    return lines


def select_positions(game: Game) -> list[Position]:
    """From one random game: the first decision of each kind (card windows apart) with more than one choice, and
    the decision with the most choices after setup (movement apart)."""
    start = Position(game.players, game.layout, game.gold_limit, game.seed, 0)
    state = new_game(load_components(), start.options(), start.seed)
    first: dict[str, int] = {}
    best, best_count = None, -1
    for index, view, decision, _choice in random_walk(state, start.rng()):
        count = count_of(view, decision)
        kind = kind_of(decision)
        if kind not in first and count > 1:
            first[kind] = index
        if kind not in ("setup", "move") and count > best_count:
            best, best_count = index, count
    chosen = sorted(set(first.values()) | ({best} if best is not None else set()))
    return [start._replace(decision=i) for i in chosen]


def counts_text(positions: list[Position]) -> str:
    return COUNTS_HEADER + "\n" + "\n".join(count_lines(positions)) + "\n"


def committed_positions() -> list[Position]:
    lines = COUNTS_FILE.read_text(encoding="utf-8").splitlines()
    return [parse_position(line) for line in lines if line.strip() and not line.startswith("#")]


def main() -> None:
    """Write every playthrough and the count file. Positions are selected anew from :data:`COUNT_GAMES` (after a
    rule change the random games take other paths, so the old positions would no longer cover every kind)."""
    for name in PLAYTHROUGHS:
        path = PLAYTHROUGH_DIR / f"{name}.txt"
        path.write_text(playthrough_text(name), encoding="utf-8")
        print(f"wrote {path}")
    positions = [pos for game in COUNT_GAMES for pos in select_positions(game)]
    COUNTS_FILE.write_text(counts_text(positions), encoding="utf-8")
    print(f"wrote {COUNTS_FILE} ({len(positions)} positions)")


if __name__ == "__main__":
    main()
