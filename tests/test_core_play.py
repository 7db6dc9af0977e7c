"""The one play loop (``palais_sim.core.loop``), on a counting game small enough to follow by hand."""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palais_sim.core.errors import IllegalChoice, StrategyError
from palais_sim.core.loop import Turns, run_to_end, strategy_names
from palais_sim.core.streams import shuffle


@dataclass
class Count:
    """Two seats take turns adding 1 or 2; the game is over at ``goal``. Every third step is a pause (no decision)."""

    goal: int = 7
    total: int = 0
    seat: int = 0
    steps: int = 0
    seed: int = 99
    log: list[int] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.total >= self.goal

    def copy(self) -> Count:
        return Count(self.goal, self.total, self.seat, self.steps, self.seed, list(self.log))


@dataclass(frozen=True)
class Ask:
    seat: int
    kind: str = "add"

    @property
    def label(self) -> str:
        return f"{self.kind}({self.seat + 1})"


class CountTurns(Turns):
    def pending(self, state: Count) -> Ask | None:
        state.steps += 1
        if state.steps % 3 == 0:
            return None  # a pause between turns: the loop asks again
        return Ask(state.seat)

    def view(self, state: Count, seat: int) -> tuple[int, int]:
        return (seat, state.total)

    def apply(self, state: Count, choice: object) -> None:
        if choice not in (1, 2):
            raise IllegalChoice(f"add 1 or 2, not {choice!r}")
        state.total += choice  # type: ignore[operator]
        state.log.append(choice)  # type: ignore[arg-type]
        state.seat = 1 - state.seat

    def reward(self, state: Count, seat: int) -> float:
        """The seat that reached the goal wins (it moved last, so the other is to move)."""
        return float(state.over and seat != state.seat)


class Adds:
    def __init__(self, amount: object, name: str = "adds") -> None:
        self.amount, self.name = amount, name
        self.views: list[tuple[int, int]] = []

    def choose(self, view: tuple[int, int], decision: Ask) -> object:
        assert view[0] == decision.seat
        self.views.append(view)
        return self.amount


def test_the_loop_asks_the_seat_to_move_applies_and_counts_until_over() -> None:
    state, seen = Count(), []
    players = [Adds(2), Adds(1)]
    made = run_to_end(
        state, players, CountTurns(), lambda before, dec, choice: seen.append((before.total, dec, choice))
    )
    assert state.log == [2, 1, 2, 1, 2] and state.total == 8 and made == 5
    assert [v for v, _, _ in seen] == [0, 2, 3, 5, 6]  # the observer sees the state before each choice
    assert [d.seat for _, d, _ in seen] == [0, 1, 0, 1, 0]
    assert players[1].views == [(1, 2), (1, 5)]
    assert [CountTurns().reward(state, seat) for seat in (0, 1)] == [1.0, 0.0]  # the first seat added the last 2


@pytest.mark.parametrize(("amount", "problem"), [(5, "illegal choice: add 1 or 2, not 5"), (None, None)])
def test_a_failing_strategy_ends_the_game_with_one_strategy_error(amount: object, problem: str | None) -> None:
    class Raises(Adds):
        def choose(self, view: tuple[int, int], decision: Ask) -> object:
            raise KeyError("boom")

    state = Count()
    bad = Adds(amount, "bad") if problem else Raises(1, "bad")
    with pytest.raises(StrategyError) as info:
        run_to_end(state, [Adds(1), bad], CountTurns())
    error = info.value
    expected = problem or "raised KeyError('boom')"
    assert str(error) == f"strategy 'bad' (seat 2) failed at decision add(2) in game seed 99: {expected}"
    assert (error.strategy, error.seat, error.decision, error.seed) == ("bad", 1, "add(2)", 99)
    assert state.log == [1]  # the illegal answer was not applied
    assert str(pickle.loads(pickle.dumps(error))) == str(error)


def test_names_are_the_strategies_names_else_their_class() -> None:
    class Plain:
        pass

    assert strategy_names([Adds(1, "greedy:x=1"), Plain()]) == ["greedy:x=1", "Plain"]


@given(seed=st.integers(min_value=0, max_value=2**64), size=st.integers(min_value=0, max_value=120))
@settings(max_examples=300, deadline=None)
def test_shuffle_gives_the_standard_librarys_permutation(seed: int, size: int) -> None:
    """The engine's own shuffle (setups, reshuffles, a search's deals) draws the same permutation from a stream as
    ``random.shuffle``, so the games it plays are those the stdlib shuffle played (the golden games say so too)."""
    ours, stdlib = list(range(size)), list(range(size))
    shuffle(random.Random(seed), ours)
    random.Random(seed).shuffle(stdlib)
    assert ours == stdlib
