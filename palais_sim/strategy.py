"""The seat contract for strategy authors: ``Strategy``, ``PlayerView`` and ``Decision``.

They are Palais Royal's (``palais_sim.games.palais_royal.view`` and ``.rules``); this module gathers them under one
short name for user strategies (``from palais_sim.strategy import PlayerView``).
"""

from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.view import PlayerView, Strategy, describe_decision

__all__ = ["Decision", "PlayerView", "Strategy", "describe_decision"]
