"""A fingerprint of the code that decides a game's outcome (its engine, its built-in strategies, the core play loop).

``palais_sim.__version__`` changes only at releases; the fingerprint changes with any edit of the rules or the
built-in strategies of the run's game, so ``--resume`` never mixes games played by two versions of the code into one
run, and a study never reuses an arm played by other code. Each game has its own (``GAME.sources``): an edit of one
game's rules does not turn the other game's runs (and study arms, hours of play) into strangers.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from palais_sim.core.game import Game


def sources(game: Game) -> tuple[Path, ...]:
    """The source files whose contents make ``game``'s fingerprint."""
    return tuple(game.sources)


def code_fingerprint(game: Game) -> str:
    return _digest(sources(game))


@cache
def _digest(files: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for path in files:
        if path.exists():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
