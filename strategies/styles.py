"""The named heuristic styles: the shared turn plan of :mod:`strategies.heuristic` with other weights.

Each style changes the defaults of :class:`~strategies.heuristic.HeuristicStrategy` (so ``palais strategies`` shows
its own defaults and ``economy:mint=4`` still works) and, where a weight is not enough, overrides one valuation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from palais_sim.engine.view import PlayerView
from strategies.heuristic import CARD_VALUE, HeuristicStrategy

_BASE_SIGNATURE = inspect.signature(HeuristicStrategy.__init__)


def style(**defaults: object) -> Callable[[type], type]:
    """Give a HeuristicStrategy subclass its own parameter defaults (visible to ``inspect.signature``)."""
    unknown = set(defaults) - set(_BASE_SIGNATURE.parameters)
    if unknown:
        raise TypeError(f"unknown style parameters {sorted(unknown)}")

    def decorate(cls: type) -> type:
        base = _BASE_SIGNATURE.parameters.values()
        params = [p.replace(default=defaults[p.name]) if p.name in defaults else p for p in base]

        def __init__(self, **kwargs: object) -> None:  # noqa: N807 - replaces the class's __init__
            HeuristicStrategy.__init__(self, **{**defaults, **kwargs})

        __init__.__signature__ = _BASE_SIGNATURE.replace(parameters=params)  # type: ignore[attr-defined]
        __init__.__doc__ = cls.__doc__
        cls.__init__ = __init__  # type: ignore[misc]
        return cls

    return decorate


@style(mint=3, gold_weight=0.05, seal_weight=0.6, privilege_weight=1.2, stairway=4, parade=2, late_engine=2)
class EconomyStrategy(HeuristicStrategy):
    """Economy: a strong Mint and gold privileges first, the expensive high-point nobles later."""

    name = "economy"

    def noble_value(self, view: PlayerView, field: int, strengths, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege == "mint_plus2" and turns > 0:
            value += 2.0 * min(1.0, turns / 6.0)
        if turns <= 3:
            value += 0.15 * noble.gold  # late: the dear nobles carry the points
        return value


@style(stock=4, office=1, parade=2, stairway=4, mint=1, seal_weight=0.5, gold_weight=0.6, late_engine=2)
class SealsStrategy(HeuristicStrategy):
    """Seal-and-office: King and Madame majorities and Office throughput; cheap nobles fast."""

    name = "seals"

    def noble_value(self, view: PlayerView, field: int, strengths, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege in ("king_plus1", "madame_plus1") and turns > 0:
            value += 2.0 * min(1.0, turns / 6.0)
        return value


@style(edge_bonus=1.0, park_weight=1.0, park_denial=1.0, parade=2, stairway=4, mint=1, late_engine=2)
class ParkStrategy(HeuristicStrategy):
    """Park: edge nobles on x2 fields and corners, to win the four park rows."""

    name = "park"


@style(back=1, card_weight=1.5, stairway=4, parade=2, mint=2, seal_weight=0.45, card_aggression=2, late_engine=2)
class CardsStrategy(HeuristicStrategy):
    """Cards: a Back entrance draw every turn, privilege cards played at the right moment, point cards kept up."""

    name = "cards"

    def noble_value(self, view: PlayerView, field: int, strengths, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege == "cards_plus3" and turns > 0:
            value += 3.0 * min(1.0, turns / 6.0)
        return value

    def card_keep_value(self, view: PlayerView, card: str) -> float:
        if view.final_round:
            return super().card_keep_value(view, card)
        return CARD_VALUE.get(card, 1.0) * self.card_weight


__all__ = ["CardsStrategy", "EconomyStrategy", "ParkStrategy", "SealsStrategy", "style"]
