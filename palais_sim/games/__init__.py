"""The games palais-sim plays, by name (``palais games`` lists them). Each is imported only when asked for."""

from __future__ import annotations

import importlib

from palais_sim.core.game import Game

DEFAULT_GAME = "palais-royal"
# name -> "module:attribute" of the game object (see palais_sim.core.game.Game)
GAMES: dict[str, str] = {
    "palais-royal": "palais_sim.games.palais_royal.game:GAME",
    "palastgefluester": "palais_sim.games.palastgefluester.game:GAME",
}


class UnknownGame(ValueError):
    """A game name that is not one of :data:`GAMES`."""


def get_game(name: str | None = None) -> Game:
    """The game called ``name`` (default Palais Royal)."""
    name = DEFAULT_GAME if name is None else name
    target = GAMES.get(name) or GAMES.get(name.lower().replace("_", "-").replace("ü", "ue"))
    if target is None:
        raise UnknownGame(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
