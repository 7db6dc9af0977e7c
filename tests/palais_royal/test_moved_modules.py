"""A strategy file written against the module names of release 0.1.0 (before the two-games layout) still loads and
plays, and its classes are the very ones of the new names; only names that release had are kept as aliases."""

from __future__ import annotations

import importlib
import sys

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy

# Every module of release 0.1.0 (CHANGELOG.md: 2026-11-22, the tree of that day's last commit, 6d120c0).
RELEASE_0_1_0_TEXT = """
    palais_sim palais_sim._build palais_sim.analytics palais_sim.analytics.batches palais_sim.analytics.charts
    palais_sim.analytics.design palais_sim.analytics.nobles palais_sim.analytics.paired
    palais_sim.analytics.palastgefluester palais_sim.analytics.report palais_sim.analytics.runs
    palais_sim.analytics.setup_balance palais_sim.analytics.sprt palais_sim.analytics.stats
    palais_sim.analytics.synthetic palais_sim.analytics.winrates palais_sim.board palais_sim.cli
    palais_sim.cli.__main__ palais_sim.cli.analyse palais_sim.cli.errors palais_sim.cli.game palais_sim.cli.match
    palais_sim.cli.options palais_sim.cli.report palais_sim.cli.simulate palais_sim.cli.strategies
    palais_sim.cli.study palais_sim.cli.tune palais_sim.components palais_sim.engine palais_sim.engine.account
    palais_sim.engine.cards palais_sim.engine.codegen palais_sim.engine.game palais_sim.engine.notation
    palais_sim.engine.options palais_sim.engine.rules palais_sim.engine.scoring palais_sim.engine.setup
    palais_sim.engine.state palais_sim.engine.view palais_sim.games palais_sim.games.base
    palais_sim.games.palais_royal palais_sim.games.palastgefluester palais_sim.games.palastgefluester.adapter
    palais_sim.games.palastgefluester.components palais_sim.games.palastgefluester.game
    palais_sim.games.palastgefluester.notation palais_sim.games.palastgefluester.playthroughs
    palais_sim.games.palastgefluester.rules palais_sim.games.palastgefluester.state
    palais_sim.games.palastgefluester.view palais_sim.movement palais_sim.registry palais_sim.strategy
    palais_sim.study palais_sim.study.arms palais_sim.study.charts palais_sim.study.common palais_sim.study.layouts
    palais_sim.study.match palais_sim.study.nobles palais_sim.study.persons palais_sim.study.publish
    palais_sim.study.render palais_sim.study.seats palais_sim.study.variants palais_sim.tournament
    palais_sim.tournament.bench palais_sim.tournament.executor palais_sim.tournament.fingerprint
    palais_sim.tournament.manifest palais_sim.tournament.pool palais_sim.tournament.ray_backend
    palais_sim.tournament.records palais_sim.tournament.runner palais_sim.tournament.schedule
    palais_sim.tournament.worker strategies strategies.greedy strategies.heuristic strategies.ismcts
    strategies.lookahead strategies.palastgefluester strategies.palastgefluester.heuristic
    strategies.palastgefluester.random_play strategies.palastgefluester.restricted
    strategies.palastgefluester.search strategies.random_play strategies.restricted strategies.styles
"""
RELEASE_0_1_0 = frozenset(RELEASE_0_1_0_TEXT.split())

OLD_STYLE = '''
from palais_sim.engine.rules import Decision
from palais_sim.engine.view import PlayerView
from strategies.greedy import GreedyStrategy


class OldStyle(GreedyStrategy):
    """Greedy, written against the old module names."""

    name = "old_style"

    def choose(self, view: PlayerView, decision: Decision) -> object:
        return super().choose(view, decision)
'''


def test_a_strategy_file_with_the_old_module_names_plays(tmp_path, monkeypatch) -> None:
    (tmp_path / "old_style_strategy.py").write_text(OLD_STYLE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    old = load_strategy("old_style_strategy:OldStyle")
    new = load_strategy("greedy")
    options, comps = RuleOptions(players=2), load_components(None)
    a = play_game(comps, options, 5, [old, load_strategy("random")])
    b = play_game(comps, options, 5, [new, load_strategy("random")])
    assert a.winners == b.winners and [s.score.total for s in a.seats] == [s.score.total for s in b.seats]
    sys.modules.pop("old_style_strategy", None)


def test_old_names_are_the_new_modules() -> None:
    from palais_sim._moved import MOVED

    for old, new in MOVED.items():
        assert importlib.import_module(old) is importlib.import_module(new), old


def test_an_old_name_leaves_the_module_its_own_spec() -> None:
    """Importing an old name hands out the new module; its spec must still point at its own file (a compiled
    strategy's description is read from the source beside it)."""
    new = importlib.import_module("strategies.palais_royal.greedy")
    importlib.import_module("strategies.greedy")
    assert new.__spec__.name == "strategies.palais_royal.greedy" and new.__spec__.origin


def test_a_notebook_importing_the_moved_studies_and_analytics_gets_the_game_modules() -> None:
    """``from palais_sim.analytics import nobles`` and ``from palais_sim.study import layouts`` (a script or notebook
    of before the studies moved into their game's package) load the modules at their new places."""
    from palais_sim.analytics import nobles, setup_balance, synthetic
    from palais_sim.games.palais_royal import analysis, studies
    from palais_sim.study import layouts, variants

    assert nobles.__name__ == f"{analysis.__name__}.nobles" and hasattr(setup_balance, "finish_positions")
    assert synthetic.synthetic_run is importlib.import_module(f"{analysis.__name__}.synthetic").synthetic_run
    assert layouts.__name__ == f"{studies.__name__}.layouts" and hasattr(variants, "write_variant")


def test_every_alias_is_a_module_name_release_0_1_0_had() -> None:
    """An alias keeps a user's import of a released name working; a name no release had has no such user."""
    from palais_sim._moved import MOVED

    never_released = sorted(set(MOVED) - RELEASE_0_1_0)
    assert never_released == [], f"aliases for names no release had: {never_released}"
