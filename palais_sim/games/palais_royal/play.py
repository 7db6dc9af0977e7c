"""Play one whole game: ask each seat's strategy at every decision, check and apply its answers."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from palais_sim import __version__
from palais_sim.core import loop
from palais_sim.core.portable_math import exp
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import PARK_SIZE
from palais_sim.games.palais_royal.components import ComponentSet
from palais_sim.games.palais_royal.leaf_value import LeafValue
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.scoring import SeatScore, final_scores, ranks, winners
from palais_sim.games.palais_royal.setup import new_game, start_gold
from palais_sim.games.palais_royal.state import PH_TURN_START, GameState, RuleOptions
from palais_sim.games.palais_royal.view import PlayerView, Strategy


class SeatResult(NamedTuple):
    """Everything the records need of one seat at the end of a game (seat 0-based). Named tuples: a game makes
    dozens of these and frozen dataclasses cost several times more to build."""

    seat: int
    strategy: str
    score: SeatScore
    rank: int  # 1 = best total; tied totals share the better rank (the Cardinal is not applied)
    win: float  # 1, 1/k for a win shared by k seats, or 0
    gold: int  # gold left at the end
    nobles_taken: tuple[str, ...]  # noble ids in the order taken
    start_gold: int
    servants_in_park: int
    hand_size: int


class RecruitRecord(NamedTuple):
    """One noble recruited during the game (seat 0-based)."""

    seat: int
    noble: str  # noble id
    field: int
    round: int
    gold_paid: int
    base_cost: int  # the noble's printed gold cost
    edge: bool  # taken from an edge field (a servant was placed)
    order: int  # 0-based order of recruitment in the game


@dataclass
class PrResult:
    """A finished (or stopped) game: every figure a record or a report needs, without the engine state."""

    seed: int
    players: int
    layout: str
    options: RuleOptions
    components_hash: str
    strategies: list[str]
    seats: list[SeatResult]
    winners: list[int]  # 0-based seats
    rounds: int
    finished: bool
    decisions: int
    recruits: list[RecruitRecord]
    final_state: GameState | None = field(default=None, repr=False)  # for positions and accounts, not for records

    @property
    def scores(self) -> list[SeatScore]:
        return [s.score for s in self.seats]

    def to_json(self) -> dict:
        """The ``--json`` form of ``palais play``: seats 1-based."""
        return {
            "seats": [
                {**s.score.to_json(), "strategy": s.strategy, "nobles_taken": list(s.nobles_taken)} for s in self.seats
            ],
            "winners": [w + 1 for w in self.winners],
            "rounds": self.rounds,
            "finished": self.finished,
            "seed": self.seed,
            "layout": self.layout,
            "engine_version": __version__,
        }


Observer = loop.Observer
TurnHook = Callable[[GameState], None]


def run_to_end(
    state: GameState,
    strategies: Sequence[Strategy],
    observer: Observer | None = None,
    on_turn_start: TurnHook | None = None,
) -> int:
    """Play ``state`` to the end in place (the core loop); returns the number of decisions made.

    ``observer(state_before, decision, choice)`` sees every accepted decision (replay logs, turn accounts);
    ``on_turn_start(state)`` sees the state before every turn (position export).
    """
    state.pause_at_turn = on_turn_start is not None
    return loop.run_to_end(state, strategies, PR_TURNS if on_turn_start is None else PrTurns(on_turn_start), observer)


class PrTurns(loop.Turns):
    """The core loop's view of these rules; ``on_turn_start`` (if any) sees the state before every turn."""

    def __init__(self, on_turn_start: TurnHook | None = None) -> None:
        self.on_turn_start = on_turn_start

    def pending(self, state: GameState) -> Decision | None:
        """The pending decision, or None after resuming a game paused before a turn (a position file's start)."""
        if state.phase == PH_TURN_START:
            if self.on_turn_start is not None:
                self.on_turn_start(state)
            rules.resume_turn(state)
            return None
        return rules.decision(state)

    def view(self, state: GameState, seat: int) -> PlayerView:
        return PlayerView(state, seat)

    def apply(self, state: GameState, choice: object) -> None:
        rules.apply(state, choice)

    def reward(self, state: GameState, seat: int) -> float:
        """0.7 for a win (shared wins split) and 0.3 for a logistic of the score margin against the best other seat
        (so a close game still tells which play was better). A game not over yet (a rollout stopped after its
        horizon) counts the leaf value's estimate of that reward from there."""
        scores = final_scores(state)
        if not state.over:
            return leaf_value().worth(state, seat, scores)
        best = winners(scores)
        return _worth(scores, seat, 1.0 / len(best) if seat in best else 0.0)

    def settled(self, state: GameState, edge: float) -> float:
        """Settled when the seat ahead on points has a win chance above ``1 - edge`` by the leaf value. The rounds
        left are estimated from the pace of recruiting so far: the last round starts once the park is down to
        ``END_TRIGGER_NOBLES`` nobles."""
        if state.final_round:
            return -1.0  # its last turns are cheap to play, and they decide close games
        recruited = PARK_SIZE - state.nobles_left
        if recruited == 0:
            return -1.0
        scores = final_scores(state)
        if leaf_value().win_chance(state, _leader(scores), scores) <= 1.0 - edge:
            return -1.0
        pace = recruited / max(1, state.round)
        # rounded down: recruiting speeds up as the game goes on (the estimate was 0.9 rounds long rounded up)
        return math.floor(max(0, state.nobles_left - rules.END_TRIGGER_NOBLES) / pace) + 0.0

    def settled_reward(self, state: GameState, seat: int) -> float:
        """The reward of a game won by the seat ahead on points (``settled``), with the score margin as it stands."""
        scores = final_scores(state)
        return _worth(scores, seat, 1.0 if seat == _leader(scores) else 0.0)


def _worth(scores: list[SeatScore], seat: int, win: float) -> float:
    """A search's reward: 0.7 for the win (or its chance) and 0.3 for a logistic of the score margin against the best
    other seat."""
    margin = scores[seat].total - max(s.total for s in scores if s.seat != seat)
    return 0.7 * win + 0.3 / (1.0 + exp(-margin / 10.0))


def _leader(scores: list[SeatScore]) -> int:
    """The seat ahead on points (the first of them on a tie)."""
    return max(scores, key=lambda s: s.total).seat


PR_TURNS = PrTurns()
_LEAF_VALUE: list[LeafValue] = []


def leaf_value() -> LeafValue:
    """The fitted leaf value, read once per process (only a search with a horizon asks for it)."""
    if not _LEAF_VALUE:
        _LEAF_VALUE.append(LeafValue.load())
    return _LEAF_VALUE[0]


def result_of(state: GameState, strategies: Sequence[Strategy], decisions: int) -> PrResult:
    """The result of a game played to its end (or stopped at the round limit)."""
    scores = final_scores(state)
    best = winners(scores)
    names = loop.strategy_names(strategies)
    seat_ranks = ranks([s.total for s in scores])
    nobles = state.components.nobles
    seats = [
        SeatResult(
            seat=s.seat,
            strategy=names[s.seat],
            score=s,
            rank=seat_ranks[s.seat],
            win=1.0 / len(best) if s.seat in best else 0.0,
            gold=state.gold[s.seat],
            nobles_taken=tuple(nobles[i].id for i in state.nobles[s.seat]),
            start_gold=start_gold(state.options)[s.seat],
            servants_in_park=state.servants_in_park(s.seat),
            hand_size=len(state.hands[s.seat]),
        )
        for s in scores
    ]
    recruits = [
        RecruitRecord(seat, nobles[noble].id, fld, rnd, paid, nobles[noble].gold, edge, order)
        for order, (seat, noble, fld, rnd, paid, edge) in enumerate(state.recruit_log)
    ]
    return PrResult(
        seed=state.seed,
        players=state.n,
        layout=state.layout.code,
        options=state.options,
        components_hash=state.components.hash,
        strategies=names,
        seats=seats,
        winners=best,
        rounds=state.round,
        finished=state.finished,
        decisions=decisions,
        recruits=recruits,
        final_state=state,
    )


def play_game(
    components: ComponentSet,
    options: RuleOptions,
    seed: int,
    strategies: Sequence[Strategy],
    observer: Observer | None = None,
    on_turn_start: TurnHook | None = None,
) -> PrResult:
    """Set up a game from ``seed`` and play it to the end."""
    if len(strategies) != options.players:
        raise ValueError(f"{options.players} players need {options.players} strategies, got {len(strategies)}")
    return continue_game(new_game(components, options, seed), strategies, observer, on_turn_start)


def continue_game(
    state: GameState,
    strategies: Sequence[Strategy],
    observer: Observer | None = None,
    on_turn_start: TurnHook | None = None,
) -> PrResult:
    """Play a game on from ``state`` (for instance an imported position) to its end."""
    if len(strategies) != state.n:
        raise ValueError(f"{state.n} players need {state.n} strategies, got {len(strategies)}")
    decisions = run_to_end(state, strategies, observer, on_turn_start)
    return result_of(state, strategies, decisions)
