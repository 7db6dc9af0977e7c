"""Play one whole game: ask each seat's strategy at every decision, check and apply its answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from palais_sim import __version__
from palais_sim.components import ComponentSet
from palais_sim.engine import rules
from palais_sim.engine.rules import Decision, IllegalChoice
from palais_sim.engine.scoring import SeatScore, final_scores, winners
from palais_sim.engine.setup import new_game
from palais_sim.engine.state import PH_TURN_START, GameState, RuleOptions
from palais_sim.strategy import PlayerView, Strategy


class StrategyError(RuntimeError):
    """A strategy raised or answered illegally; the message names the strategy, the decision and the seed."""

    def __init__(self, strategy: str, seat: int, decision: Decision, seed: int, problem: str) -> None:
        what = decision.kind + (f"({decision.window})" if decision.kind == "cards" else "")
        super().__init__(
            f"strategy {strategy!r} (seat {seat + 1}) failed at decision {what} in game seed {seed}: {problem}"
        )
        self.strategy = strategy
        self.seat = seat
        self.decision = what
        self.seed = seed
        self._args = (strategy, seat, decision, seed, problem)

    def __reduce__(self):
        """Picklable, so a failed game's error can travel back from a worker process."""
        return (StrategyError, self._args)


@dataclass
class GameResult:
    seed: int
    players: int
    layout: str
    strategies: list[str]
    scores: list[SeatScore]
    winners: list[int]  # 0-based seats
    rounds: int
    finished: bool
    decisions: int
    recruits: list[tuple[int, int, int, int, int, bool]]  # seat, noble index, field, round, gold paid, edge
    final_state: GameState | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        """The ``--json`` form of ``palais play``: seats 1-based."""
        nobles = self.final_state.components.nobles if self.final_state else ()
        return {
            "seats": [
                {
                    **s.to_json(),
                    "strategy": self.strategies[s.seat],
                    "nobles_taken": [nobles[i].id for i in self.final_state.nobles[s.seat]] if nobles else [],
                }
                for s in self.scores
            ],
            "winners": [w + 1 for w in self.winners],
            "rounds": self.rounds,
            "finished": self.finished,
            "seed": self.seed,
            "layout": self.layout,
            "engine_version": __version__,
        }


Observer = Callable[[GameState, Decision, object], None]
TurnHook = Callable[[GameState], None]


def run_to_end(
    state: GameState,
    strategies: Sequence[Strategy],
    observer: Observer | None = None,
    on_turn_start: TurnHook | None = None,
) -> int:
    """Play ``state`` to the end in place; returns the number of decisions made.

    ``observer(state_before, decision, choice)`` sees every accepted decision (replay logs, turn accounts);
    ``on_turn_start(state)`` sees the state before every turn (position export).
    """
    names = [getattr(s, "name", type(s).__name__) for s in strategies]
    decision_no = 0
    state.pause_at_turn = on_turn_start is not None
    while not state.over:
        if state.phase == PH_TURN_START:
            if on_turn_start is not None:
                on_turn_start(state)
            rules.resume_turn(state)
            continue
        dec = rules.decision(state)
        strategy = strategies[dec.seat]
        try:
            choice = strategy.choose(PlayerView(state, dec.seat), dec)
        except Exception as exc:  # noqa: BLE001 - any failure of a strategy fails only its game
            raise StrategyError(names[dec.seat], dec.seat, dec, state.seed, f"raised {exc!r}") from exc
        if observer is not None:
            before = state.copy()
        try:
            rules.apply(state, choice)
        except IllegalChoice as exc:
            raise StrategyError(names[dec.seat], dec.seat, dec, state.seed, f"illegal choice: {exc}") from None
        if observer is not None:
            observer(before, dec, choice)
        decision_no += 1
    return decision_no


def result_of(state: GameState, strategies: Sequence[Strategy], decisions: int) -> GameResult:
    scores = final_scores(state)
    return GameResult(
        seed=state.seed,
        players=state.n,
        layout=state.layout.code,
        strategies=[getattr(s, "name", type(s).__name__) for s in strategies],
        scores=scores,
        winners=winners(scores),
        rounds=state.round,
        finished=state.finished,
        decisions=decisions,
        recruits=list(state.recruit_log),
        final_state=state,
    )


def play_game(
    components: ComponentSet,
    options: RuleOptions,
    seed: int,
    strategies: Sequence[Strategy],
    observer: Observer | None = None,
    on_turn_start: TurnHook | None = None,
) -> GameResult:
    """Set up a game from ``seed`` and play it to the end."""
    if len(strategies) != options.players:
        raise ValueError(f"{options.players} players need {options.players} strategies, got {len(strategies)}")
    state = new_game(components, options, seed)
    decisions = run_to_end(state, strategies, observer, on_turn_start)
    return result_of(state, strategies, decisions)
