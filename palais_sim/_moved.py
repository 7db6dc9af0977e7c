"""Module names of release 0.1.0 that moved since, still importable, so a user's strategy file written as
``from palais_sim.engine.view import PlayerView`` or ``from strategies.greedy import GreedyStrategy``, or a notebook
importing ``palais_sim.study.nobles`` or ``palais_sim.analytics.setup_balance``, keeps working.

0.1.0 is the one release so far (CHANGELOG.md: 2026-11-22, never tagged; the tree before the peer-game layout). Only
the names it had are kept here: a name that only ever existed between two commits of the development since has no
users to keep working.

Each old name loads the module at its new place and is the same module object (``sys.modules`` holds both names), so
classes and ``isinstance`` checks agree. New code imports the new names; ``palais_sim.strategy`` is the stable import
for strategy authors.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

_GAME = "palais_sim.games.palais_royal"
_PG = "palais_sim.games.palastgefluester"
_STRATEGIES = "strategies.palais_royal"
MOVED: dict[str, str] = {
    "palais_sim.engine": _GAME,
    **{f"palais_sim.engine.{name}": f"{_GAME}.{name}" for name in (
        "account", "cards", "codegen", "notation", "options", "rules", "scoring", "setup", "state", "view")},
    "palais_sim.engine.game": f"{_GAME}.play",
    "palais_sim.board": f"{_GAME}.board",
    "palais_sim.components": f"{_GAME}.components",
    "palais_sim.movement": f"{_GAME}.movement",
    "palais_sim.games.base": "palais_sim.core.game",
    **{f"strategies.{name}": f"{_STRATEGIES}.{name}" for name in (
        "greedy", "heuristic", "styles", "lookahead", "restricted", "ismcts")},
    "strategies.random_play": "strategies.common.random_play",
    "strategies.palastgefluester.random_play": "strategies.common.random_play",
    # each game's studies and analytics, out of the shared study/ and analytics/ packages
    **{f"palais_sim.study.{name}": f"{_GAME}.studies.{name}" for name in ("nobles", "layouts", "variants")},
    "palais_sim.study.persons": f"{_PG}.studies.persons",
    **{f"palais_sim.analytics.{name}": f"{_GAME}.analysis.{name}" for name in ("nobles", "setup_balance", "synthetic")},
    "palais_sim.analytics.palastgefluester": f"{_PG}.analysis.tables",
}  # fmt: skip


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):  # noqa: ANN001 - the importlib protocol
        module = importlib.import_module(self.target)
        self.original_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:  # noqa: ANN001 - already executed under its new name
        # importlib has just set the alias spec on the shared module object (it always does): give the module its
        # own spec back, or find_spec of its real name would return one without a file.
        module.__spec__ = self.original_spec


class MovedModules(importlib.abc.MetaPathFinder):
    """Finds an old module name and hands out the module of its new name."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001 - the importlib protocol
        new = MOVED.get(name)
        if new is None:
            return None
        return importlib.util.spec_from_loader(name, _Alias(new), is_package=name == "palais_sim.engine")


def install() -> None:
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModules())  # before the path finder: an old folder left behind is not a package
