"""Golden random playthroughs of Palastgeflüster: committed text that the engine must reproduce exactly.

Every decision is a uniformly random legal choice drawn from a stream owned by this module (no strategy is
involved), so a diff means the rules, the setup or the legal options changed. Regenerate after a reviewed rule
change and commit the diff::

    python -m palais_sim.games.palastgefluester.playthroughs
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import NamedTuple

from palais_sim.games.palastgefluester.rules import apply, decision, legal_options, new_game
from palais_sim.games.palastgefluester.state import PgOptions, PgState

FORMAT = "palastgefluester-playthrough/1"
DIRECTORY = Path(__file__).resolve().parents[3] / "tests" / "playthroughs" / "palastgefluester"


class Playthrough(NamedTuple):
    players: int
    seed: int
    tiebreak: str = "display"


PLAYTHROUGHS: dict[str, Playthrough] = {
    "3p-a": Playthrough(3, 101),
    "3p-b-noted": Playthrough(3, 102, "noted"),
    "4p-a": Playthrough(4, 201),
    "4p-b": Playthrough(4, 202),
    "5p-a": Playthrough(5, 301),
    "5p-b-noted": Playthrough(5, 302, "noted"),
}


def _cards(state: PgState, cards) -> str:
    return " ".join(str(c) for c in cards) or "-"


def _state_line(state: PgState) -> str:
    hands = " | ".join(_cards(state, sorted(h)) for h in state.hands)
    displays = " | ".join(_cards(state, d) for d in state.displays)
    return (
        f"== round {state.round} cards {state.round_cards} | points {'/'.join(map(str, state.points))} | "
        f"king {state.blocked} pile {len(state.king_pile)} | draw {len(state.draw)} discards {len(state.discards)}"
        f"\n   hands {hands}\n   displays {displays}"
    )


def playthrough_text(name: str) -> str:
    game = PLAYTHROUGHS[name]
    options = PgOptions(players=game.players, tiebreak=game.tiebreak)
    state = new_game(options, game.seed)
    rng = random.Random(f"pg-playthrough:{name}")
    lines = [
        f"# {FORMAT} {name}: every decision a uniformly random legal choice",
        f"# players {game.players}, tiebreak {game.tiebreak}, seed {game.seed}, components {state.components.hash}",
        "# cards: colour*7+person (colour = seat 0-based, 5 and 6 = brown), persons 0 Hofmarschall 1 Schatzmeister"
        " 2 Zauberer 3 Zofe 4 Mundschenk 5 Wächter 6 Hofnarr; seats 0-based",
        "# 'dN sK kind [count] options=M -> choice'; regenerate with"
        " `python -m palais_sim.games.palastgefluester.playthroughs`",
    ]
    last_round = 0
    while not state.over:
        if state.round != last_round:
            lines.append(_state_line(state))
            last_round = state.round
        dec = decision(state)
        options = legal_options(state, dec)
        choice = options[rng.randrange(len(options))]
        extra = f" count={dec.count} partner={dec.partner}" if dec.count else ""
        extra += f" seats={','.join(map(str, dec.seats))}" if dec.seats else ""
        lines.append(f"d{state.decisions} s{dec.seat} {dec.kind}{extra} options={len(options)} -> {choice}")
        ends = len(state.round_ends)
        apply(state, choice)
        if len(state.round_ends) > ends:
            r = state.round_ends[-1]
            lines.append(f"   round end: {r.kind} by s{r.seat}, scorers {list(r.scorers)}, {r.cards} cards")
    lines.append(
        f"== end: points {state.points} noted {state.noted} winners {state.winners} finished {state.finished} "
        f"rounds {state.round}"
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    DIRECTORY.mkdir(parents=True, exist_ok=True)
    for name in PLAYTHROUGHS:
        (DIRECTORY / f"{name}.txt").write_text(playthrough_text(name), encoding="utf-8")
        print(f"wrote {DIRECTORY / (name + '.txt')}")


if __name__ == "__main__":
    main()
