"""The toy race with the core of a game alone (:class:`palais_sim.core.game.Game`) and no facet: what a new game
gives first. The registry completes it with the facets' fallbacks. Registered by
``PALAIS_GAMES=toy-core=tests.toygame.core_only:GAME`` (the conformance test does it)."""

from __future__ import annotations

from typing import Any

from palais_sim.core.game import Game, members
from tests.toygame.game import GAME as TOY


class CoreOnly:
    """The toy race's core members, under a name of its own."""

    name = "toy-core"

    def __init__(self, game: Any) -> None:
        for member in members(Game):
            if member != "name":
                setattr(self, member, getattr(game, member))


GAME = CoreOnly(TOY)
