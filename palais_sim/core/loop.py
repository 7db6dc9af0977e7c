"""The one play loop of every game: ask the seat to move for its choice through its view, check and apply it.

A game gives the loop its :class:`Turns`: the pending decision (``None`` when the game paused between turns for a
caller's hook; the loop then asks again), the seat's view, and apply (which raises :class:`IllegalChoice`). A
decision has ``seat`` and ``label``; a state has ``over`` and ``seed``, and ``copy()`` when an observer watches.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from palais_sim.core.errors import IllegalChoice, StrategyError

Observer = Callable[[Any, Any, object], None]  # (state before, decision, choice)


@mypyc_attr(allow_interpreted_subclasses=True)
class Turns(ABC):
    """What the loop asks of a game's rules: an abstract class each game implements. A compiled game's subclass is
    called natively (a method table, no Python call per decision: the shared loop costs no speed); a Python game
    subclasses it just the same. (The compiled class does not refuse to be instantiated itself, as the Python one
    does; mypy does, for both.)"""

    @abstractmethod
    def pending(self, state: Any) -> Any:
        """The decision pending in ``state``, or None after a pause between turns."""

    @abstractmethod
    def view(self, state: Any, seat: int) -> Any:
        """What ``seat`` may know of ``state``: what its strategy is given."""

    @abstractmethod
    def apply(self, state: Any, choice: object) -> None:
        """Apply the pending decision's ``choice``, or raise IllegalChoice and leave ``state`` as it was."""

    @abstractmethod
    def reward(self, state: Any, seat: int) -> float:
        """What ``state`` (played out, or stopped early) is worth to ``seat``, in [0, 1]: what a search maximises."""

    def settled(self, state: Any, edge: float) -> float:
        """Whether a search's rollout may stop at ``state`` (the start of a round) because its winner is as good as
        known: the game's value of positions gives one seat a win chance above ``1 - edge``. Then the rounds the game
        is expected to last beyond this one (at least 0), else -1.0. A game without such a value never settles."""
        return -1.0

    def settled_reward(self, state: Any, seat: int) -> float:
        """What a settled ``state`` (``settled``) is worth to ``seat``: as if the seat with the win in hand had won."""
        return self.reward(state, seat)


def play_out(state: Any, players: Sequence[Any], turns: Turns, until_round: int, settle_edge: float = 0.0) -> float:
    """A search's rollout: play ``state`` on in place with ``players[seat]`` for every seat until the game is over or
    its round reaches ``until_round`` or, with ``settle_edge`` above 0, a round starts where the game is settled
    (``turns.settled``: one seat's win chance above ``1 - settle_edge``). Returns the rounds a settled game is
    expected to last beyond where it stopped (at least 0; value it with ``turns.settled_reward``), else -1.0.
    Unchecked (the players are the search's own, trusted to answer legally: an illegal answer raises IllegalChoice)
    and unobserved: the fast loop."""
    checked = -1
    while not state.over and state.round < until_round:
        if settle_edge > 0.0 and state.round != checked:
            checked = state.round
            left = turns.settled(state, settle_edge)
            if left >= 0.0:
                return left
        decision = turns.pending(state)
        if decision is None:
            continue
        seat: int = decision.seat
        turns.apply(state, players[seat].choose(turns.view(state, seat), decision))
    return -1.0


def strategy_names(strategies: Sequence[object]) -> list[str]:
    """Each strategy's name as the records give it (its ``name``, else its class name)."""
    return [getattr(s, "name", type(s).__name__) for s in strategies]


def run_to_end(state: Any, strategies: Sequence[Any], turns: Turns, observer: Observer | None = None) -> int:
    """Play ``state`` to the end in place; returns the number of decisions made. ``observer(state_before, decision,
    choice)`` sees every accepted decision (replay logs, turn accounts). A strategy that raises or answers illegally
    ends the game with :class:`StrategyError`."""
    names = strategy_names(strategies)
    made = 0
    while not state.over:
        decision = turns.pending(state)
        if decision is None:
            continue
        seat: int = decision.seat
        try:
            choice = strategies[seat].choose(turns.view(state, seat), decision)
        except Exception as exc:  # noqa: BLE001 - any failure of a strategy fails only its game
            raise StrategyError(names[seat], seat, decision.label, state.seed, f"raised {exc!r}") from exc
        before = state.copy() if observer is not None else None
        try:
            turns.apply(state, choice)
        except IllegalChoice as exc:
            raise StrategyError(names[seat], seat, decision.label, state.seed, f"illegal choice: {exc}") from None
        if observer is not None:
            observer(before, decision, choice)
        made += 1
    return made
