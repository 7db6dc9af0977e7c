"""The seat contract for strategy authors: ``Strategy``, ``PlayerView`` and ``Decision``, the stable import.

They are the game-agnostic protocols of :mod:`palais_sim.core.contract`: what every game's view and decision offer
(the seat, the game's name, the decision's random stream, the legal choices, a random choice, a sampled state for a
search) and what the engine asks of a strategy (a ``name`` and ``choose(view, decision)``). A strategy of one game
reads that game's own view and decision, which keep these members and add their own: Palais Royal's are
``PlayerView`` in ``palais_sim/games/palais_royal/view.py`` (its rule queries: ``majority``, ...)
and ``Decision`` in ``.../rules.py`` (``window``, ``playable``, ``points``, ...). A strategy annotated
with the names here runs unchanged in any game whose choices it makes.
"""

from palais_sim.core.contract import Decision, PlayerView, Strategy, describe_decision

__all__ = ["Decision", "PlayerView", "Strategy", "describe_decision"]
