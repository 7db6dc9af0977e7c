"""Marks the tests of the game rules and the built-in strategies ``engine``: the code the mypyc build compiles.

``make test`` runs every test on the compiled build and then the ``engine`` tests again on the Python source
(``PALAIS_PURE=1 pytest -m engine``): the rest (runner, analytics, studies, CLI) runs the same Python either way. Marked
by file name, so a test file keeps its mark wherever its game's folder puts it. ``test_compiled.py`` is not marked: it
plays both builds itself, in subprocesses that choose their engine, so a second pass would repeat it unchanged.
"""

from __future__ import annotations

import pytest

ENGINE_TEST_FILES = frozenset(
    {
        "test_golden.py",
        "test_playthroughs.py",
        "test_invariants.py",
        "test_rules.py",
        "test_rules_examples.py",
        "test_rule_corrections.py",
        "test_notation.py",
        "test_view.py",
        "test_seat_view.py",
        "test_start_gold.py",
        "test_components.py",
        "test_strategies.py",
        "test_ismcts.py",
        "test_moved_modules.py",
        "test_game_conformance.py",
        "test_core_play.py",
        "test_common_strategies.py",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "engine: a test of the compiled code (rules, strategies); run pure as well")
    config.addinivalue_line(
        "markers", "slow: a verdict check at the game's default levels, minutes long: `make verdicts`, not `make test`"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in ENGINE_TEST_FILES:
            item.add_marker(pytest.mark.engine)
