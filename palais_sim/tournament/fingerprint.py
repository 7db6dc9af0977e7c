"""A fingerprint of the code that decides a game's outcome (its engine, its board, its built-in strategies).

``palais_sim.__version__`` changes only at releases; the fingerprint changes with any edit of the rules or the
built-in strategies of the run's game, so ``--resume`` never mixes games played by two versions of the code into one
run, and a study never reuses an arm played by other code. Each game has its own: an edit of one game's rules does
not turn the other game's runs (and study arms, hours of play) into strangers.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import palais_sim
import strategies
from palais_sim.registry import DEFAULT_GAME

_PKG = Path(palais_sim.__file__).parent
_STRATEGIES = Path(strategies.__file__).parent
# Palais Royal's list is the one of before the second game, unchanged: its runs of then still resume.
_SOURCES: dict[str, tuple[Path, ...]] = {
    DEFAULT_GAME: (
        *sorted((_PKG / "engine").glob("*.py")),
        _PKG / "board.py",
        _PKG / "components.py",
        _PKG / "movement.py",
        _PKG / "strategy.py",
        *sorted(_STRATEGIES.glob("*.py")),
    ),
    "palastgefluester": (
        *sorted((_PKG / "games" / "palastgefluester").glob("*.py")),
        *sorted((_STRATEGIES / "palastgefluester").glob("*.py")),
    ),
}


def sources(game: str = DEFAULT_GAME) -> tuple[Path, ...]:
    """The source files whose contents make ``game``'s fingerprint."""
    try:
        return _SOURCES[game]
    except KeyError:
        raise ValueError(f"no code fingerprint is defined for the game {game!r}") from None


@cache
def code_fingerprint(game: str = DEFAULT_GAME) -> str:
    digest = hashlib.sha256()
    for path in sources(game):
        if path.exists():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
