"""Random playthroughs and legal-choice counts: committed text that the engine must reproduce exactly.

Every decision in these games is a uniformly random legal choice, so no strategy is involved: a failure means the
rules, the setup, the legal options or the scoring changed. If the change is intended (a reviewed rule change),
regenerate with ``make playthroughs`` and review the diff of ``tests/palais_royal/playthroughs/*.txt`` in the commit.
"""

from __future__ import annotations

import ast
import difflib
import inspect

import pytest

from tests.palais_royal.playthroughs import make_playthroughs
from tests.palais_royal.playthroughs.make_playthroughs import (
    COUNTS_FILE,
    PLAYTHROUGH_DIR,
    PLAYTHROUGHS,
    committed_positions,
    counts_text,
    playthrough_text,
)

HINT = "run `make playthroughs` if a reviewed rule change was intended, and commit the diff"


def diff(committed: str, fresh: str, limit: int = 60) -> str:
    lines = difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True), "committed", "now", n=2)
    return "".join(list(lines)[:limit])


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_playthrough_regenerates_identically(name: str) -> None:
    committed = (PLAYTHROUGH_DIR / f"{name}.txt").read_text(encoding="utf-8")
    fresh = playthrough_text(name)
    if fresh != committed:
        pytest.fail(f"playthrough {name} changed; {HINT}:\n{diff(committed, fresh)}")


def test_legal_choice_counts() -> None:
    committed = COUNTS_FILE.read_text(encoding="utf-8")
    fresh = counts_text(committed_positions())
    if fresh != committed:
        columns = "players layout gold_limit seed decision kind count"
        pytest.fail(f"legal-choice counts changed (columns: {columns}); {HINT}:\n{diff(committed, fresh)}")


def test_counts_cover_every_decision_kind() -> None:
    kinds = {line.split()[5].split("(")[0] for line in COUNTS_FILE.read_text().splitlines() if not line.startswith("#")}
    assert kinds >= {"setup", "cards", "reinforce", "move", "seals", "recruit", "keep"}
    assert 25 <= len(committed_positions()) <= 50


def test_players_and_rule_options_are_covered() -> None:
    games = PLAYTHROUGHS.values()
    assert {g.players for g in games} == {2, 3, 4}
    assert {g.layout for g in games} >= {"first-game", "random"}
    assert any(g.gold_limit == 57 for g in games) and any(g.max_rounds < 10 for g in games)


def test_the_generator_uses_no_strategy() -> None:
    """Only the engine decides what happens in a playthrough: no module of strategies/, no strategy registry."""
    tree = ast.parse(inspect.getsource(make_playthroughs))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert not {m for m in imported if m and (m.split(".")[0] == "strategies" or m == "palais_sim.registry")}
