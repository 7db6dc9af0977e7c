"""The pool workers' growth (about 14 bytes a game): the compiled engine kept a reference to every seed or stream key
of 2**62 and above that it formatted as text (mypyc's text of a native int too large for its short form), so every
such int stayed in memory for good. The streams now format them as objects; a seed's reference count is the same
before and after a game is set up, its streams drawn and the game played. (On the Python source this holds
trivially; ``make test`` runs it on the compiled build, where it failed before.) The long-run check of the workers'
memory is ``benchmarks/worker_rss.py``, not a test."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable

import pytest

from palais_sim.core import streams
from palais_sim.games.palais_royal import setup as pr_setup
from palais_sim.games.palais_royal import state as pr_state
from palais_sim.games.palastgefluester import state as pg_state
from palais_sim.tournament.runner import validate
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.worker import init_worker, play_one

SETTINGS = Settings(games=10**6, players=2, strategies=("greedy", "random"), seed=1, max_rounds=30)


def big(value: int) -> int:
    """A new int object of this value (not one a constant or a cache shares)."""
    return int(str(value))


def references_kept(call: Callable[[int], object], values: list[int]) -> list[int]:
    kept = []
    for value in values:
        n = big(value)
        before = sys.getrefcount(n)
        result = call(n)
        del result
        gc.collect()
        kept.append(sys.getrefcount(n) - before)
    return kept


BIG = [2**62, 2**62 + 12345, 2**63 - 1, 2**64 - 3]


@pytest.mark.parametrize(
    "call",
    [
        lambda n: streams.seat_stream_keys(n, 4),
        lambda n: streams.seat_stream_keys(n, 3, "pg:"),
        lambda n: streams.decision_rng(n, 7),
        lambda n: streams.decision_rng(n, 7, 2),
        lambda n: pr_state.sub_rng(n, "park"),
        lambda n: pg_state.shuffle_rng(n, "deck", 1),
    ],
    ids=["seat_keys", "seat_keys_pg", "decision", "decision_step", "pr_sub_rng", "pg_shuffle_rng"],
)
def test_a_large_seed_or_key_is_not_kept_by_its_streams(call: Callable[[int], object]) -> None:
    assert references_kept(call, BIG) == [0] * len(BIG)


def test_a_game_keeps_no_reference_to_its_seed() -> None:
    context, schedule, _ = validate(SETTINGS)
    comps, options = context.components, context.options  # type: ignore[attr-defined]
    seeds = [s for s in (schedule.game(2 * g).seed for g in range(40)) if s >= 2**62][:4]
    assert len(seeds) == 4  # most 63-bit seeds are long ints for mypyc
    assert references_kept(lambda n: pr_setup.new_game(comps, options, n), seeds) == [0] * 4
    init_worker(SETTINGS, context, None, False)
    spec = schedule.game(0)
    assert references_kept(lambda n: play_one(spec._replace(seed=n)), seeds[:2]) == [0, 0]
