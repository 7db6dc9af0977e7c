"""A fingerprint of the code that decides a game's outcome (engine, board, strategies).

``palais_sim.__version__`` changes only at releases; the fingerprint changes with any edit of the rules or the
built-in strategies, so ``--resume`` never mixes games played by two versions of the code into one run.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import palais_sim
import strategies

_PKG = Path(palais_sim.__file__).parent
_SOURCES = (
    *sorted((_PKG / "engine").glob("*.py")),
    _PKG / "board.py",
    _PKG / "components.py",
    _PKG / "movement.py",
    _PKG / "strategy.py",
    *sorted(Path(strategies.__file__).parent.glob("*.py")),
)


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in _SOURCES:
        if path.exists():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
