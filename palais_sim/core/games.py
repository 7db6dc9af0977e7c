"""The registry of games: the games palais-sim plays, by name (``palais games`` lists them). Each is imported only
when asked for, by :func:`get_game`, the one look-up of a game's name.

It sits in the core, below every layer that looks a game up (the strategy registry, the tournament, the analytics,
the studies, the command line), so none of them imports upward; it names the games only as strings, in its
registration table :data:`GAMES`, the one place of the shared layers allowed to name them.

A game is an object with the interface of :class:`palais_sim.core.game.Game` (``GAME`` in its module). Three
places name the games, each with one line per game, ``name -> "module:attribute"``:

* the built-in ones, :data:`GAMES` below;
* an installed package's entry points in the group ``palais_sim.games`` (the standard Python plugin mechanism,
  ``importlib.metadata.entry_points``). In the package's ``pyproject.toml``::

      [project.entry-points."palais_sim.games"]
      mygame = "mygame.game:GAME"

* the environment variable ``PALAIS_GAMES``, ``name=module:attribute`` with several separated by commas::

      PALAIS_GAMES="mygame=mygame.game:GAME" palais simulate --game mygame --out runs/mine

  (a game without installing a package; the module must be importable, e.g. from the working directory or
  ``PYTHONPATH``).

Worker processes inherit the environment and the installed packages, so they see the same games as the command that
started them. A registered game's name must be the ``name`` of its game object and may not be a built-in one's; a
malformed entry or one that does not import is a one-line :class:`UnknownGame` naming where it came from. Anything
that lists the games uses :func:`game_names`, never :data:`GAMES` alone.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from importlib.metadata import entry_points
from pathlib import Path

from palais_sim.core.game import CompleteGame, complete, position_format

DEFAULT_GAME = "palais-royal"  # the game of a command without --game, and of a stored run that names none
# The registration table: name -> "module:attribute" of the game object (see palais_sim.core.game.Game)
GAMES: dict[str, str] = {
    "palais-royal": "palais_sim.games.palais_royal.game:GAME",
    "palastgefluester": "palais_sim.games.palastgefluester.game:GAME",
}
ENTRY_POINT_GROUP = "palais_sim.games"
ENV_VAR = "PALAIS_GAMES"
ENTRY_POINTS = f"entry point group {ENTRY_POINT_GROUP}"

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*\Z")


class UnknownGame(ValueError):
    """A game name that no registry knows, or a registry entry that cannot be used (the message says which)."""


def _entry(name: str, target: str, where: str) -> tuple[str, str]:
    """One registered game, checked: its name and ``module:attribute``."""
    name, target = name.strip(), target.strip()
    if not _NAME.match(name) or not _TARGET.match(target):
        raise UnknownGame(
            f"{where}: {name}={target} is not name=module:attribute (a lower-case name, e.g. mygame=mygame.game:GAME)"
        )
    if name in GAMES:
        raise UnknownGame(f"{where}: {name!r} is a built-in game; register yours under another name")
    return name, target


@functools.cache
def _plugins() -> tuple[tuple[str, str], ...]:
    """The games installed packages register as entry points (read once per process)."""
    return tuple(_entry(ep.name, ep.value, ENTRY_POINTS) for ep in entry_points(group=ENTRY_POINT_GROUP))


def _from_environment() -> tuple[tuple[str, str], ...]:
    """The games ``PALAIS_GAMES`` names (read at every call: a test or a user may set it at any time)."""
    out = []
    for item in filter(None, (part.strip() for part in os.environ.get(ENV_VAR, "").split(","))):
        name, equals, target = item.partition("=")
        if not equals:
            raise UnknownGame(f"{ENV_VAR}: {item!r} is not name=module:attribute (e.g. mygame=mygame.game:GAME)")
        out.append(_entry(name, target, ENV_VAR))
    return tuple(out)


def registered() -> dict[str, str]:
    """Every game by name as ``module:attribute``: the built-in ones, then the entry points', then ``PALAIS_GAMES``'s
    (a later one of the same name replaces an earlier one)."""
    games = dict(GAMES)
    games.update(_plugins())
    games.update(_from_environment())
    return games


def _source(name: str) -> str:
    """Where a registered game's entry comes from, for an error message."""
    if name in GAMES:
        return "built in"
    return ENV_VAR if name in dict(_from_environment()) else ENTRY_POINTS


def game_names() -> list[str]:
    """The names of every game (built-in, entry points, ``PALAIS_GAMES``), in that order."""
    return list(registered())


def _normalised(name: str) -> str:
    """A name as the registry spells it: lower case, hyphens, no umlaut (``Palastgeflüster``: ``palastgefluester``)."""
    return name.lower().replace("_", "-").replace("ü", "ue")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def get_game(name: str | None = None) -> CompleteGame:
    """The game called ``name`` (None: the default game, :data:`DEFAULT_GAME`): a built-in one, or one an entry
    point or ``PALAIS_GAMES`` registers (imported on first use; :class:`UnknownGame` with one line if that fails)."""
    name = DEFAULT_GAME if name is None else name
    builtin = name if name in GAMES else _normalised(name)
    if builtin in GAMES:  # never reads the other registries: a broken plugin cannot break the built-in games
        return _builtin(builtin, GAMES[builtin])
    games = registered()
    key = name if name in games else _normalised(name)
    if key not in games:
        raise UnknownGame(f"unknown game {name!r}; games: {', '.join(games)}")
    return _load(key, games[key])


@functools.cache
def _builtin(name: str, target: str) -> CompleteGame:
    """A built-in game's object, checked and completed once per process: strategies look their game up as they are
    made, a few times a game, and the check walks every facet's members (about 8 us)."""
    module, _, attribute = target.partition(":")
    return complete(getattr(importlib.import_module(module), attribute))


def _load(name: str, target: str) -> CompleteGame:
    """A registered game's object, checked to carry the name it is registered under."""
    where = _source(name)
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - a game's module may fail in any way: one line says which and where
        raise UnknownGame(f"{where}: game {name!r}: cannot import {module_name} ({_one_line(exc)})") from None
    game = getattr(module, attribute, None)
    if game is None:
        raise UnknownGame(f"{where}: game {name!r}: module {module_name} has no {attribute}")
    if getattr(game, "name", None) != name:
        raise UnknownGame(f"{where}: game {name!r}: {target} is called {getattr(game, 'name', None)!r}, not {name!r}")
    try:
        return complete(game)  # the fallbacks of the facets it leaves out
    except ValueError as exc:
        raise UnknownGame(f"{where}: game {name!r}: {exc}") from None


def loadable_games() -> list[CompleteGame]:
    """Every registered game that loads, in :func:`game_names`' order (the built-in ones alone when a registry entry
    is malformed): what lists the games' facets uses, so a broken plugin cannot break it (``--game`` names it with
    its one-line error)."""
    try:
        names = game_names()
    except UnknownGame:
        names = list(GAMES)
    games = []
    for name in names:
        try:
            games.append(get_game(name))
        except UnknownGame:
            continue
    return games


def games_with_study(study: str) -> list[str]:
    """The built-in games that declare a study of their components (``Game.studies``): the default ``--game`` of
    that study's command. Registered games are not loaded for it (a broken plugin cannot break a study's help)."""
    return [name for name in GAMES if study in get_game(name).studies]


def game_of_position(path: Path) -> CompleteGame | None:
    """The registered game whose position files have the format of the file at ``path``, or None (no such game, or
    no position file: the caller's game then says why)."""
    found = position_format(path)
    if found is None:
        return None
    for name in game_names():
        try:
            game = get_game(name)
        except UnknownGame:
            continue
        if game.positions is not None and game.positions.format == found:
            return game
    return None
