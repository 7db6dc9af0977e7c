"""Golden replays: committed game logs that the engine must reproduce decision for decision.

A failure here means the rules, the setup or a built-in strategy changed behaviour. If the change is intended,
regenerate with ``make golden`` and review the diff of ``tests/palais_royal/golden/*.jsonl`` in the commit.
"""

from __future__ import annotations

import difflib

import pytest

from palais_sim.games.palais_royal.notation import verify_replay
from tests.palais_royal.golden.make_golden import GOLDEN_DIR, GOLDEN_GAMES, golden_text


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_replay_verifies(name: str) -> None:
    result = verify_replay(GOLDEN_DIR / f"{name}.jsonl")
    assert result["totals"], "a replay has scores"


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_replay_regenerates_identically(name: str) -> None:
    committed = (GOLDEN_DIR / f"{name}.jsonl").read_text(encoding="utf-8")
    fresh = golden_text(name)
    if fresh != committed:
        diff = "".join(
            list(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True), "committed", "now"))[:40]
        )
        pytest.fail(f"golden game {name} changed; run `make golden` if intended:\n{diff}")
