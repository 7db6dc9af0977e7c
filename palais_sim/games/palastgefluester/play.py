"""Play one whole game of Palastgeflüster: ask each seat's strategy at every decision, check and apply its answers.

:class:`PgResult` has the generic fields every game's result has (``seed``, ``players``, ``strategies``, ``seats``,
``winners``, ``rounds``, ``finished``, ``decisions``), so a tournament layer can treat the games alike, and this
game's own figures besides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from palais_sim.core import loop
from palais_sim.games.palastgefluester.rules import Decision, apply, decision, new_game
from palais_sim.games.palastgefluester.state import REPEAT, SIX, PgOptions, PgState, RoundEnd, round_end_record
from palais_sim.games.palastgefluester.view import PlayerView, Strategy

GAME_NAME = "palastgefluester"


class PgSeatResult(NamedTuple):
    """One seat at the end of a game (seat 0-based)."""

    seat: int
    strategy: str
    total: int  # points
    rank: int  # 1 = best; tied totals share the better rank
    win: float  # 1, 1/k for a win shared by k seats, or 0
    display: int  # cards in the display at the end
    noted: int  # the variant's noted total
    rounds_won_six: int  # rounds this seat ended with six different persons
    repeats: int  # rounds this seat ended with a repeat
    plays: int
    own_colour_replays: int  # own colour played, so played again
    brown_played: int


def seat_json(s: PgSeatResult) -> dict:
    """One seat's figures with the seat 1-based: the ``--json`` form and the seats table's own columns."""
    return {
        "seat": s.seat + 1,
        "strategy": s.strategy,
        "total": s.total,
        "rank": s.rank,
        "win": s.win,
        "display": s.display,
        "noted": s.noted,
        "rounds_won_six": s.rounds_won_six,
        "repeats": s.repeats,
        "plays": s.plays,
        "own_colour_replays": s.own_colour_replays,
        "brown_played": s.brown_played,
    }


@dataclass
class PgResult:
    """A finished (or stopped) game."""

    seed: int
    players: int
    strategies: list[str]
    seats: list[PgSeatResult]
    winners: list[int]  # 0-based
    rounds: int
    finished: bool
    decisions: int
    round_ends: list[RoundEnd] = field(default_factory=list)
    options: PgOptions | None = None
    components_hash: str = ""
    final_state: PgState | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        """The ``--json`` form of ``palais play --game palastgefluester``: seats 1-based."""
        return {
            "game": GAME_NAME,
            "seats": [seat_json(s) for s in self.seats],
            "winners": [w + 1 for w in self.winners],
            "rounds": self.rounds,
            "finished": self.finished,
            "decisions": self.decisions,
            "seed": self.seed,
            "options": self.options.to_dict() if self.options else None,
            "components_hash": self.components_hash,
            "round_ends": [round_end_record(r) for r in self.round_ends],
        }


Observer = loop.Observer


def ranks(totals: Sequence[int]) -> list[int]:
    """1 = best; equal totals share the better rank."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def run_to_end(state: PgState, strategies: Sequence[Strategy], observer: Observer | None = None) -> int:
    """Play ``state`` to the end in place (the core loop); returns the number of decisions made.
    ``observer(state_before, decision, choice)`` sees every accepted decision."""
    return loop.run_to_end(state, strategies, PG_TURNS, observer)


class PgTurns(loop.Turns):
    """The core loop's view of these rules."""

    def pending(self, state: PgState) -> Decision:
        return decision(state)

    def view(self, state: PgState, seat: int) -> PlayerView:
        return PlayerView(state, seat)

    def apply(self, state: PgState, choice: object) -> None:
        apply(state, choice)

    def reward(self, state: PgState, seat: int) -> float:
        """0.7 for a win (shared wins split; none before the end) and 0.3 for a logistic of the seat's points lead
        over the best other seat, in units of a quarter of the points to win."""
        win = 1.0 / len(state.winners) if state.over and seat in state.winners else 0.0
        lead = state.points[seat] - max(p for s, p in enumerate(state.points) if s != seat)
        return 0.7 * win + 0.3 / (1.0 + math.exp(-4.0 * lead / state.components.points_to_win(state.n)))


PG_TURNS = PgTurns()


def result_of(state: PgState, strategies: Sequence[Strategy], decisions: int) -> PgResult:
    names = loop.strategy_names(strategies)
    n = state.n
    seat_ranks = ranks(state.points)
    six = [0] * n
    repeats = [0] * n
    for r in state.round_ends:
        if r.kind == SIX:
            six[r.seat] += 1
        elif r.kind == REPEAT:
            repeats[r.seat] += 1
    best = list(state.winners)
    seats = [
        PgSeatResult(
            seat=s,
            strategy=names[s],
            total=state.points[s],
            rank=seat_ranks[s],
            win=1.0 / len(best) if s in best else 0.0,
            display=len(state.displays[s]),
            noted=state.noted[s],
            rounds_won_six=six[s],
            repeats=repeats[s],
            plays=state.plays[s],
            own_colour_replays=state.own_replays[s],
            brown_played=state.brown_played[s],
        )
        for s in range(n)
    ]
    return PgResult(
        seed=state.seed,
        players=n,
        strategies=names,
        seats=seats,
        winners=best,
        rounds=state.round,
        finished=state.finished,
        decisions=state.decisions,  # every decision of the game, also those before a continued position
        round_ends=list(state.round_ends),
        options=state.options,
        components_hash=state.components.hash,
        final_state=state,
    )


def play_game(
    options: PgOptions, seed: int, strategies: Sequence[Strategy], observer: Observer | None = None
) -> PgResult:
    """Set up a game from ``seed`` and play it to the end."""
    if len(strategies) != options.players:
        raise ValueError(f"{options.players} players need {options.players} strategies, got {len(strategies)}")
    return continue_game(new_game(options, seed), strategies, observer)


def continue_game(state: PgState, strategies: Sequence[Strategy], observer: Observer | None = None) -> PgResult:
    """Play a game on from ``state`` (for instance an imported position) to its end."""
    if len(strategies) != state.n:
        raise ValueError(f"{state.n} players need {state.n} strategies, got {len(strategies)}")
    return result_of(state, strategies, run_to_end(state, strategies, observer))
