"""The named heuristic styles: the shared turn plan of :mod:`strategies.heuristic` with other weights.

Each style changes the defaults of :class:`~strategies.heuristic.HeuristicStrategy` in its ``DEFAULTS`` (so
``palais strategies`` shows its own defaults and ``economy:mint=4`` still works) and, where a weight is not enough,
overrides one valuation.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from palais_sim.engine.view import PlayerView
from strategies.heuristic import CARD_VALUE, HeuristicStrategy


@mypyc_attr(allow_interpreted_subclasses=True)
class EconomyStrategy(HeuristicStrategy):
    """Economy: a strong Mint and gold privileges first, the expensive high-point nobles later."""

    name = "economy"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "mint": 3,
        "gold_weight": 0.05,
        "seal_weight": 0.6,
        "privilege_weight": 1.2,
        "stairway": 4,
        "parade": 2,
        "late_engine": 2,
    }

    def noble_value(self, view: PlayerView, field: int, strengths, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege == "mint_plus2" and turns > 0:
            value += 2.0 * min(1.0, turns / 6.0)
        if turns <= 3:
            value += 0.15 * noble.gold  # late: the dear nobles carry the points
        return value


@mypyc_attr(allow_interpreted_subclasses=True)
class SealsStrategy(HeuristicStrategy):
    """Seal-and-office: King and Madame majorities and Office throughput; cheap nobles fast."""

    name = "seals"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "stock": 4,
        "office": 1,
        "parade": 2,
        "stairway": 4,
        "mint": 1,
        "seal_weight": 0.5,
        "gold_weight": 0.6,
        "late_engine": 2,
    }

    def noble_value(self, view: PlayerView, field: int, strengths, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege in ("king_plus1", "madame_plus1") and turns > 0:
            value += 2.0 * min(1.0, turns / 6.0)
        return value


@mypyc_attr(allow_interpreted_subclasses=True)
class ParkStrategy(HeuristicStrategy):
    """Park: edge nobles on x2 fields and corners, to win the four park rows."""

    name = "park"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "edge_bonus": 1.0,
        "park_weight": 1.0,
        "park_denial": 1.0,
        "parade": 2,
        "stairway": 4,
        "mint": 1,
        "late_engine": 2,
    }


@mypyc_attr(allow_interpreted_subclasses=True)
class CardsStrategy(HeuristicStrategy):
    """Cards: a Back entrance draw every turn, privilege cards played at the right moment, point cards kept up."""

    name = "cards"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "back": 1,
        "card_weight": 1.5,
        "stairway": 4,
        "parade": 2,
        "mint": 2,
        "seal_weight": 0.45,
        "card_aggression": 2,
        "late_engine": 2,
    }

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


__all__ = ["CardsStrategy", "EconomyStrategy", "ParkStrategy", "SealsStrategy"]
