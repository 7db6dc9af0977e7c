"""Which engine runs: the mypyc-compiled modules or their Python source.

The compiled build (``setup.py``) records each compiled module's source hash in ``_build.json``. Before any of
those modules is imported, :func:`install` decides:

- ``PALAIS_PURE=1`` in the environment: the Python source runs (for debugging, and the tests of both paths);
- a compiled module whose ``.py`` changed since it was compiled: the Python source runs for *every* compiled module
  (a compiled module may not be mixed with a newer source of another: they share native classes), with one warning
  naming the changed files, so an edit never runs against a stale compiled copy silently;
- otherwise the compiled modules run.

This module is never compiled itself.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent  # holds palais_sim/ and strategies/
RECORD = Path(__file__).resolve().parent / "_build.json"
EXTENSION_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)

# The modules the compiled build compiles (setup.py reads this list): the core play loop and streams, the generic
# random strategy (every game's rollouts use it), and each game's engine,
# seat view and built-in heuristic strategies as its package declares them (``COMPILED`` and
# ``COMPILED_STRATEGIES`` in ``palais_sim/games/<game>/__init__.py``, read here as data: nothing is imported yet).
CORE_COMPILED: tuple[str, ...] = (
    "palais_sim/core/streams.py",
    "palais_sim/core/loop.py",
    "palais_sim/core/portable_math.py",
    "strategies/common/random_play.py",
)


def _declared(package: Path, name: str) -> tuple[str, ...]:
    """The literal tuple ``name`` of a package's ``__init__.py`` (empty when it declares none)."""
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name:
            return tuple(ast.literal_eval(value))
    return ()


def game_packages() -> list[Path]:
    """Every game package under ``palais_sim/games/`` (a directory with an ``__init__.py``)."""
    games = PROJECT / "palais_sim" / "games"
    return sorted(p for p in games.iterdir() if (p / "__init__.py").is_file())


def compiled_sources() -> tuple[str, ...]:
    paths = list(CORE_COMPILED)
    for package in game_packages():
        paths += [f"palais_sim/games/{package.name}/{name}" for name in _declared(package, "COMPILED")]
        paths += [f"strategies/{package.name}/{name}" for name in _declared(package, "COMPILED_STRATEGIES")]
    return tuple(paths)


COMPILED_SOURCES: tuple[str, ...] = compiled_sources()
GROUP = "palais_sim._compiled"  # the shared library of the compiled modules: palais_sim/_compiled__mypyc.*.so

_state: dict[str, object] = {"compiled": False, "reason": "not decided yet"}


def _module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _has_extension(path: str) -> bool:
    stem = PROJECT / path.removesuffix(".py")
    return any(stem.with_name(stem.name + suffix).exists() for suffix in EXTENSION_SUFFIXES)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the listed modules from their ``.py`` files even where a compiled extension lies beside them."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001 - the importlib protocol
        source = self.paths.get(name)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(name, source)


def install() -> None:
    """Decide between the compiled and the pure engine (once per process, before the engine is imported)."""
    if _state["reason"] != "not decided yet":
        return
    record: dict = {}
    if RECORD.exists():
        try:
            record = json.loads(RECORD.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
    sources: dict[str, str] = record.get("sources") or {}
    built = [path for path in COMPILED_SOURCES if _has_extension(path)]
    reason = ""
    if not built:
        reason = "not compiled (pure Python install)"
    elif not record.get("compiled") or set(sources) != set(COMPILED_SOURCES):
        reason = "compiled modules without a matching build record (rebuild with `make build`)"
    elif os.environ.get("PALAIS_PURE"):
        reason = "PALAIS_PURE is set"
    else:
        changed = [
            path
            for path, digest in sources.items()
            if not (PROJECT / path).exists() or hashlib.sha256((PROJECT / path).read_bytes()).hexdigest() != digest
        ]
        if changed:
            reason = f"source changed since it was compiled: {', '.join(changed)}"
            warnings.warn(
                f"palais-sim: {', '.join(changed)} changed since the engine was compiled; running the pure Python "
                "engine (rebuild with `make build` or `pip install -e .`)",
                RuntimeWarning,
                stacklevel=2,
            )
    # Every listed module, not only those compiled now: a build may be writing them while this process runs.
    stray = list(COMPILED_SOURCES) if reason else []
    if stray:
        finder = _SourceFinder({_module_name(path): PROJECT / path for path in stray})
        sys.meta_path.insert(0, finder)
    _state.update(compiled=not reason, reason=reason or "compiled with mypyc")


def build_info() -> dict[str, object]:
    """``{"compiled": bool, "reason": str}``: whether the engine runs compiled, and why not if not."""
    install()
    return dict(_state)
