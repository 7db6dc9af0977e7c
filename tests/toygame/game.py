"""The toy race behind the game interface (:class:`palais_sim.core.game.Game`): everything the runner, the reports,
the studies and the commands need, from this package alone. Registered by ``PALAIS_GAMES=toy=tests.toygame.game:GAME``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import polars as pl

from palais_sim import __version__
from palais_sim.core import loop
from palais_sim.core.game import ONE, SEAT1, ZERO, Column, common_game_row, game_sources, table_columns
from palais_sim.core.rule_options import RuleOption, rules_of
from tests.toygame.options import OPTIONS, target_of
from tests.toygame.rules import (
    COPIES,
    TARGET,
    VALUES,
    Decision,
    IllegalChoice,
    ToyState,
    apply,
    decision,
    new_game,
    value,
)
from tests.toygame.view import PlayerView

NAME = "toy"
REPLAY_FORMAT = "toy-replay/1"


class ToyError(ValueError):
    """Settings the toy race cannot play (one line)."""


class ReplayError(ValueError):
    """A replay log that cannot be read or does not replay."""


class SeatResult(NamedTuple):
    seat: int
    strategy: str
    total: int  # the position reached
    rank: int
    win: float
    reserve: int
    plays: int
    peeks: int


@dataclass
class ToyResult:
    """A finished (or stopped) game: the fields every game's result has, and the toy's own."""

    seed: int
    players: int
    strategies: list[str]
    winners: list[int]
    rounds: int
    finished: bool
    decisions: int
    seats: list[SeatResult] = field(default_factory=list)
    moves: list[tuple[int, int, int]] = field(default_factory=list)
    deck_left: int = 0

    def to_json(self) -> dict:
        return {
            "game": NAME,
            "seed": self.seed,
            "seats": [{**s._asdict(), "seat": s.seat + 1} for s in self.seats],
            "winners": [w + 1 for w in self.winners],
            "rounds": self.rounds,
            "finished": self.finished,
            "decisions": self.decisions,
        }


def result_of(state: ToyState, names: list[str]) -> ToyResult:
    totals = state.positions
    seats = [
        SeatResult(
            s,
            names[s],
            totals[s],
            1 + sum(t > totals[s] for t in totals),
            1 / len(state.winners) if s in state.winners else 0.0,
            state.reserve(s),
            state.plays[s],
            state.peeks[s],
        )
        for s in range(state.n)
    ]
    return ToyResult(
        seed=state.seed, players=state.n, strategies=names, winners=list(state.winners), rounds=state.round,
        finished=state.finished, decisions=state.decisions, seats=seats, moves=list(state.moves),
        deck_left=len(state.deck),
    )  # fmt: skip


class ToyTurns(loop.Turns):
    def pending(self, state: ToyState) -> Decision:
        return decision(state)

    def view(self, state: ToyState, seat: int) -> PlayerView:
        return PlayerView(state, seat)

    def apply(self, state: ToyState, choice: object) -> None:
        apply(state, choice)

    def reward(self, state: ToyState, seat: int) -> float:
        """1 for a win (shared wins split), else the seat's position as a share of the target, halved."""
        if state.over and seat in state.winners:
            return 1.0 / len(state.winners)
        return 0.5 * min(1.0, state.positions[seat] / state.target)


TOY_TURNS = ToyTurns()


def play_out(state: ToyState, strategies: Sequence[Any], observer: loop.Observer | None = None) -> ToyResult:
    """Play ``state`` to its end with the core loop; ``observer(state_before, decision, choice)`` sees every
    accepted choice."""
    loop.run_to_end(state, strategies, TOY_TURNS, observer)
    return result_of(state, loop.strategy_names(strategies))


class Context(NamedTuple):
    players: int
    max_rounds: int
    target: int = TARGET


GAMES_OWN = (
    Column("target", pl.Int16(), "rule: the position that ends the game at the end of its round"),
    Column("max_rounds", pl.Int16(), "rule option: a game still going after this round is stopped, unfinished"),
    Column("deck_left", pl.Int8(), "cards left in the deck at the end"),
)
SEATS_OWN = (
    Column("reserve", pl.Int16(), "values of the cards left in hand: breaks a tie of positions"),
    Column("plays", pl.Int16(), "cards played"),
    Column("peeks", pl.Int16(), "hands looked at with a spy card"),
)
COLUMNS: dict[str, tuple[Column, ...]] = {
    **table_columns(GAMES_OWN, SEATS_OWN),
    "moves": (
        Column("game", pl.Int64(), "the game (games.game)", ZERO),
        Column("order", pl.Int16(), "order of the card in the game", ZERO),
        Column("round", pl.Int16(), "the round it was played in", ONE),
        Column("seat", pl.Int8(), "the seat that played it", SEAT1),
        Column("value", pl.Int8(), "the card's value"),
    ),
}

STRATEGIES: dict[str, str] = {
    "random": "strategies.common.random_play:RandomStrategy",
    "search": "strategies.common.search:SearchStrategy",
    "greedy": "tests.toygame.strategies:GreedyStrategy",
}
DECK = f"{VALUES} values x {COPIES}"


class ToyRace:
    """The toy race (tests only): 2 to 4 players, hidden hands, a spy card."""

    name = NAME
    title = "Toy race"
    vocabulary = ("spy", "peek")  # the nouns of its components and options
    min_players = 2
    max_players = 4
    default_players = 3
    default_max_rounds = 30
    components_hint = "nothing: the toy race has one deck"
    strategies: Mapping[str, str] = STRATEGIES
    sources = game_sources(Path(__file__).parent)
    default_strategy = "greedy"
    demo: Mapping[str, Any] = {
        "games": 120, "players": 3, "strategies": ("greedy", "random"), "format": "gauntlet", "max_rounds": 30,
    }  # fmt: skip
    bench_players = 3
    comparison_players = 2
    ladder = ("random", "greedy:low_first=true", "greedy")
    tune_pool = "greedy,random"
    skill_levels = ("random", "greedy")
    rule_options: tuple[RuleOption, ...] = OPTIONS  # target (options.py)
    report_sections = "tests.toygame.analysis.sections:SECTIONS"
    seat_values = None  # every seat starts alike
    study_pages = None  # its studies need no overview of their own on the published index

    def tie_column(self, settings: Mapping[str, Any]) -> str:
        return "reserve"

    def context(self, settings: Mapping[str, Any]) -> Context:
        if settings.get("components") is not None:
            raise ToyError(f"components: not an option of the {self.title} (it has one deck)")
        players = int(settings.get("players", self.default_players))
        if not self.min_players <= players <= self.max_players:
            raise ToyError(f"players must be {self.min_players} to {self.max_players}, got {players}")
        max_rounds = int(settings.get("max_rounds") or self.default_max_rounds)
        if max_rounds < 1:
            raise ToyError(f"max_rounds must be at least 1, got {max_rounds}")
        return Context(players, max_rounds, target_of(rules_of(settings, OPTIONS)))

    setup_columns = ()
    studies: Mapping[str, str] = {"target": "tests.toygame.studies.commands:target"}  # its own (studies/)
    taken = None  # nothing is taken from a common supply
    turns = TOY_TURNS
    positions = None  # no position files: the commands that read one refuse it

    def load_components(self, source: str | None) -> None:
        return None  # the toy race has no component files

    def components_hash(self, context: Context) -> str:
        return hashlib.sha256(f"{DECK}, hand 3, target {TARGET}".encode()).hexdigest()[:12]  # the deck, not the rule

    def components_name(self, context: Context) -> str:
        return f"toy deck ({DECK})"

    def taken_ids(self, components: object) -> list[str]:
        return []

    def play(self, context: Context, seed: int, strategies: Sequence[object]) -> ToyResult:
        if len(strategies) != context.players:
            raise ValueError(f"{context.players} players need as many strategies, got {len(strategies)}")
        return play_out(new_game(context.players, context.max_rounds, seed, context.target), strategies)

    def columns(self) -> dict[str, tuple[Column, ...]]:
        return COLUMNS

    def rows(self, context: Context, result: ToyResult, game: int, group: int, rotation: int) -> dict[str, list]:
        head, tail = common_game_row(result, game, group, rotation, __version__)
        seats = [
            {"game": game, "group": group, **s._asdict(), "seat": s.seat + 1}
            for s in result.seats
        ]  # fmt: skip
        moves = [
            {"game": game, "order": i, "round": r, "seat": seat + 1, "value": value(card)}
            for i, (r, seat, card) in enumerate(result.moves)
        ]
        own = {**self.failed_row(context, result.seed), "deck_left": result.deck_left}
        return {"games": [{**head, **own, **tail}], "seats": seats, "moves": moves}

    def failed_row(self, context: Context, seed: int) -> dict:
        return {"target": context.target, "max_rounds": context.max_rounds, "deck_left": None}

    def play_session(
        self, context: Context, seed: int, seats: Callable[[int], Sequence[object]], out: TextIO | None,
        log: Path | None,
    ) -> ToyResult:  # fmt: skip
        """One game, a line per card to ``out``; with ``log``, a replay log (JSON) that :meth:`replay_text` checks."""
        strategies = seats(context.players)
        choices: list[object] = []

        def observe(before: ToyState, dec: Decision, choice: object) -> None:
            choices.append(choice)
            round_ = before.round
            if out is not None:
                what = f"plays a {value(choice)}" if dec.kind == "play" else f"looks at seat {choice + 1}'s hand"  # type: ignore[arg-type,operator]
                out.write(f"round {round_}: seat {dec.seat + 1} {what}\n")

        result = play_out(new_game(context.players, context.max_rounds, seed, context.target), strategies, observe)
        if log is not None:
            payload = {
                "format": REPLAY_FORMAT, "seed": seed, "players": context.players, "max_rounds": context.max_rounds,
                "target": context.target,
                "strategies": result.strategies, "choices": choices, "result": _outcome(result),
            }  # fmt: skip
            log.write_text(json.dumps(payload) + "\n", encoding="utf-8")
        if out is not None:
            totals = ", ".join(f"seat {s.seat + 1} {s.total}" for s in result.seats)
            winners = ", ".join(str(w + 1) for w in result.winners)
            out.write(f"{self.title}, seed {seed}: {totals}; winner: seat {winners}\n")
        return result

    def replay_text(self, log: Path) -> str:
        """Play a replay log's choices again: ReplayError at the first illegal one, or ("result:") a different end."""
        try:
            data = json.loads(log.read_text(encoding="utf-8"))
            if data.get("format") != REPLAY_FORMAT:
                raise ReplayError(f"{log}: not a {REPLAY_FORMAT} log")
            rules = {"target": data["target"]} if "target" in data else {}
            context = self.context({"players": data["players"], "max_rounds": data["max_rounds"], "rules": rules})
            seed, choices, recorded = int(data["seed"]), list(data["choices"]), data["result"]
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            raise ReplayError(f"{log}: not a {REPLAY_FORMAT} log ({exc!r})") from None
        state = new_game(context.players, context.max_rounds, seed, context.target)
        for k, choice in enumerate(choices):
            if state.over:
                raise ReplayError(f"{log}: the game ended before choice {k + 1} of {len(choices)}")
            try:
                apply(state, choice)
            except IllegalChoice as exc:
                raise ReplayError(f"{log}: choice {k + 1} is illegal ({exc})") from None
        if not state.over:
            raise ReplayError(f"{log}: the log ends but the game waits for {decision(state).kind}")
        replayed = _outcome(result_of(state, list(data["strategies"])))
        if replayed != recorded:
            raise ReplayError(f"{log}: result: the log says {recorded}, the replay gives {replayed}")
        return f"{log}: {len(choices)} choices replayed, result identical (round {state.round})"


def _outcome(result: ToyResult) -> dict:
    return {"totals": [s.total for s in result.seats], "winners": [w + 1 for w in result.winners],
            "rounds": result.rounds, "finished": result.finished}  # fmt: skip


GAME = ToyRace()
