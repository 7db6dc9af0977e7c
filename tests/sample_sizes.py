"""Sample sizes of the random-game tests: in full on the compiled build, a third on the Python source.

``make test`` runs every test on the compiled engine, then the engine's tests again on its Python source, which plays
several times slower. ``test_compiled.py`` shows that the two builds play identical games (hundreds of seeds, every
built-in and the searches), so the source pass runs every check on a smaller sample of random games.
"""

from __future__ import annotations

import palais_sim

COMPILED: bool = palais_sim.build_info()["compiled"]


def sample(games: int, pure_share: float = 1 / 3) -> int:
    """``games`` on the compiled build; ``pure_share`` of them (at least 1) on the Python source."""
    return games if COMPILED else max(1, round(games * pure_share))
