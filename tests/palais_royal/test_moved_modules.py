"""A strategy file written against the module names of before the two-games layout still loads and plays, and its
classes are the very ones of the new names."""

from __future__ import annotations

import importlib
import sys

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy

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
