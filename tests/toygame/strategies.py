"""The toy race's own built-in strategy, ``greedy`` (``random`` and ``search`` are the common ones, of every game)."""

from __future__ import annotations

from tests.toygame.rules import PEEK, Decision, value
from tests.toygame.view import PlayerView


class GreedyStrategy:
    """Plays its highest card (its lowest with ``low_first``) and spies on the seat furthest ahead."""

    name = "greedy"

    def __init__(self, low_first: bool = False) -> None:
        self.low_first = low_first

    def choose(self, view: PlayerView, decision: Decision) -> object:
        options = view.legal_options(decision)
        if decision.kind == PEEK:
            return max(options, key=lambda seat: (view.positions[seat], -seat))
        return min(options, key=value) if self.low_first else max(options, key=value)
