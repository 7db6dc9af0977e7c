"""The manual's game pages (a MkDocs hook, ``hooks:`` in mkdocs.yml): each built-in game keeps its pages in its own
package, ``palais_sim/games/<package>/docs/*.md`` (``index.md`` its page, then e.g. ``rules.md``), and they join the
manual here as ``games/<name>/<page>``, in the files and at the end of the navigation's games section. So
mkdocs.yml names no game, and a new built-in game's pages appear with its registration line.

The built-in games are read from the registry of games (``GAMES``) without importing any game: only the package of
each game's ``module:attribute`` is located. ``tests/test_docs.py`` checks the pages through :func:`game_pages`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from palais_sim.core.games import GAMES

GAMES_SECTION = "Games"  # the navigation section the game pages are added to (mkdocs.yml)
FOLDER = "docs"  # a game package's folder of manual pages
FIRST = "index.md"  # a game's own page, first in the navigation


def game_folder(target: str) -> Path:
    """The folder of manual pages of the game whose object is at ``target`` ("module:attribute")."""
    module = target.partition(":")[0]
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"the game module {module} is not found")
    return Path(spec.origin).parent / FOLDER


def game_pages() -> dict[str, Path]:
    """Every built-in game's manual pages: the page's place in the manual (``games/<name>/<page>.md``, relative to
    docs/) -> its source file, each game's ``index.md`` first."""
    pages: dict[str, Path] = {}
    for name, target in GAMES.items():
        folder = game_folder(target)
        if not (folder / FIRST).is_file():
            raise ValueError(f"the game {name!r} has no manual page {folder / FIRST}")
        for source in sorted(folder.glob("*.md"), key=lambda path: (path.name != FIRST, path.name)):
            pages[f"games/{name}/{source.name}"] = source
    return pages


def on_config(config: Any) -> Any:
    """The game pages at the end of the navigation's games section, in the registry's order."""
    sections = [item for item in config.nav or [] if isinstance(item, dict) and GAMES_SECTION in item]
    if len(sections) != 1:
        raise ValueError(f"mkdocs.yml's nav needs one section {GAMES_SECTION!r} for the game pages")
    sections[0][GAMES_SECTION] = [*sections[0][GAMES_SECTION], *game_pages()]
    return config


def on_files(files: Any, config: Any) -> Any:
    """The game pages among the manual's files, read from their packages."""
    from mkdocs.structure.files import File

    for uri, source in game_pages().items():
        files.append(File.generated(config, uri, abs_src_path=str(source)))
    return files


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    """``mkdocs serve`` rebuilds when a game's page changes."""
    for folder in {source.parent for source in game_pages().values()}:
        server.watch(str(folder))
    return server
