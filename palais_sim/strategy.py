"""The seat contract for strategy authors: ``Strategy``, ``PlayerView`` and ``Decision``.

They live in the engine (``palais_sim.engine.view`` and ``palais_sim.engine.rules``); this module gathers them under
one short name for user strategies (``from palais_sim.strategy import PlayerView``).
"""

from palais_sim.engine.rules import Decision
from palais_sim.engine.view import PlayerView, Strategy, describe_decision

__all__ = ["Decision", "PlayerView", "Strategy", "describe_decision"]
