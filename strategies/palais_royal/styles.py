"""The named heuristic styles: the shared turn plan of :mod:`~strategies.palais_royal.heuristic`, a plan of their own.

Each style changes the defaults of :class:`~strategies.palais_royal.heuristic.HeuristicStrategy` in its ``DEFAULTS`` (so
``palais strategies`` shows its own defaults and ``economy:mint=4`` still works) and plans differently where its
idea of the game asks for it:

- ``economy`` builds income first (a full Mint before the seal rooms, the Mint's privilege) and spends it on the dear
  nobles and the point cards a Back entrance servant draws: gold weighs less the more the seat has and earns;
- ``seals`` holds the King's and Madame's majorities (its seal rooms fill before the Mint) and buys the nobles that
  ask many seals and little gold: a seal is cheap where the majority gives a new one every turn;
- ``park`` plays for the four park rows: an edge noble is valued by the row it decides by the end (a row it leads or
  can still take), nobles that bring servants out of the supply pay for the servants the park keeps;
- ``cards`` keeps a Back entrance servant from the start (before the seal rooms), draws every turn, holds its cards
  (every card in hand is a point at the end, up to 6) and values the point cards and the cards_plus3 noble.

The weights of each are tuned (``palais tune STYLE --against greedy,economy,seals,park,cards``; README).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from palais_sim.games.palais_royal.board import BACK, IS_EDGE, KING, MADAME, MINT, PARK_ROWS
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.view import PlayerView
from strategies.palais_royal.budget_moves import Distances
from strategies.palais_royal.card_play import CARD_VALUE
from strategies.palais_royal.heuristic import HeuristicStrategy
from strategies.palais_royal.tuning_space import TUNING_SPACE
from strategies.palais_royal.valuation import ROWS_OF_FIELD, _best_other

# The edge rows' fields, in the order of ``view.row_strengths()``.
ROW_FIELDS: Final[tuple[tuple[int, ...], ...]] = tuple(PARK_ROWS.values())


@mypyc_attr(allow_interpreted_subclasses=True)
class EconomyStrategy(HeuristicStrategy):
    """Economy: a strong Mint and gold privileges first, the expensive high-point nobles later."""

    name = "economy"
    # Tuned: palais tune economy --against greedy,economy,seals,park,cards --players 2 --budget 60000
    # --trial-games 400 --validate 2000 --seed 211 (README, "The styles, tuned").
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "parade": 2,
        "stairway": 6,
        "mint": 2,
        "stock": 2,
        "office": 1,
        "back": 1,
        "cardinal": 1,
        "gold_weight": 0.15,
        "seal_weight": 0.45,
        "edge_bonus": 0.22,
        "park_weight": 0.03,
        "privilege_weight": 1.56,
        "card_weight": 1.93,
        "card_aggression": 1,
        "park_denial": 0.31,
        "late_engine": 2,
    }

    @classmethod
    def tuning_space(cls) -> dict[str, tuple[float, float]]:
        """The plan's own parameters stay in the plan: a Mint of at least 2, a Back entrance servant (the income
        buys point cards: 4 points for 2 gold)."""
        return {**TUNING_SPACE, "mint": (2, 4), "back": (1, 2)}

    def __init__(self, **params: Any) -> None:
        self._gold_scale: float = 1.0
        super().__init__(**params)

    def standing_list(self) -> tuple[tuple[int, int], ...]:
        """Income first: the Mint fills to its level right after the lifelines and the Office, before the seal
        rooms."""
        order: list[tuple[int, int]] = []
        placed = False
        for room, level in super().standing_list():
            if room == MINT:
                continue
            if room == KING and not placed:
                order.append((MINT, self.mint))
                placed = True
            order.append((room, level))
        return tuple(x for x in order if x[1] > 0)

    def noble_value(self, view: PlayerView, field: int, strengths: list[list[int]] | None, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege == "mint_plus2" and turns > 0:
            value += 2.0 * min(1.0, turns / 6.0)
        if turns <= 3:
            value += 0.15 * noble.gold  # late: the dear nobles carry the points
        return value

    def noble_score(self, value: float, cost: int, seals: int) -> float:
        # Gold is the economy's plentiful resource: the weight is for a seat without income (see gold_scale).
        return value - self.gold_weight * self._gold_scale * cost - self.seal_weight * seals

    def pick_recruit(self, view: PlayerView, decision: Decision) -> object:
        self._gold_scale = gold_scale(view)
        return super().pick_recruit(view, decision)

    def reach_plan(
        self, view: PlayerView, mine: list[int], dist: Distances, points: int, keep: list[int], gold: int
    ) -> tuple[int, int, int, int, int] | None:
        self._gold_scale = gold_scale(view)
        return super().reach_plan(view, mine, dist, points, keep, gold)


def gold_scale(view: PlayerView) -> float:
    """How dear a gold piece is to a seat: 1 with nothing in hand and no income, less with a full purse and income
    (a seat that earns 5 a turn and holds 10 pays 6 for a noble as if it paid about 2)."""
    wealth = float(view.money() + 2 * view.mint_income())
    return 6.0 / (6.0 + wealth)


@mypyc_attr(allow_interpreted_subclasses=True)
class SealsStrategy(HeuristicStrategy):
    """Seal-and-office: King and Madame majorities and Office throughput; the nobles that ask many seals."""

    name = "seals"
    # Tuned: palais tune seals --against greedy,economy,seals,park,cards --players 2 --budget 60000
    # --trial-games 400 --validate 2000 --seed 203 (README, "The styles, tuned").
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "parade": 5,
        "stairway": 4,
        "mint": 2,
        "stock": 5,
        "office": 1,
        "back": 1,
        "cardinal": 2,
        "gold_weight": 0.76,
        "seal_weight": 1.29,
        "edge_bonus": 0.56,
        "park_weight": 0.76,
        "privilege_weight": 1.94,
        "card_weight": 1.91,
        "card_aggression": 2,
        "park_denial": 0.42,
        "late_engine": 2,
    }

    @classmethod
    def tuning_space(cls) -> dict[str, tuple[float, float]]:
        """The plan's own parameters stay in the plan: at least 3 servants a seal room."""
        return {**TUNING_SPACE, "stock": (3, 5)}

    def standing_list(self) -> tuple[tuple[int, int], ...]:
        """The seal rooms to two servants each before the Mint and the Back entrance (the majorities first)."""
        base = super().standing_list()
        order: list[tuple[int, int]] = []
        placed = False
        for room, level in base:
            if room == MINT and not placed:
                order.append((KING, min(2, self.stock)))
                order.append((MADAME, min(2, self.stock)))
                placed = True
            order.append((room, level))
        return tuple(x for x in order if x[1] > 0)

    def noble_value(self, view: PlayerView, field: int, strengths: list[list[int]] | None, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege in ("king_plus1", "madame_plus1") and turns > 0:
            value += 2.0 * min(1.0, turns / 6.0)
        # A seal from a room where the seat holds the majority comes back next turn: half the weight.
        seat = view.seat
        if noble.turquoise and view.rooms[KING][seat] > _best_other(view.rooms[KING], seat):
            value += 0.5 * self.seal_weight * noble.turquoise
        if noble.violet and view.rooms[MADAME][seat] > _best_other(view.rooms[MADAME], seat):
            value += 0.5 * self.seal_weight * noble.violet
        return value


@mypyc_attr(allow_interpreted_subclasses=True)
class ParkStrategy(HeuristicStrategy):
    """Park: edge nobles on x2 fields and corners, to win the four park rows."""

    name = "park"
    # Tuned: palais tune park --against greedy,economy,seals,park,cards --players 2 --budget 60000
    # --trial-games 400 --validate 2000 --seed 215 (README, "The styles, tuned").
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "parade": 2,
        "stairway": 4,
        "mint": 2,
        "stock": 5,
        "office": 1,
        "back": 0,
        "cardinal": 1,
        "gold_weight": 0.73,
        "seal_weight": 0.99,
        "edge_bonus": 1.69,
        "park_weight": 0.83,
        "privilege_weight": 2.0,
        "card_weight": 0.71,
        "card_aggression": 3,
        "park_denial": 0.26,
        "late_engine": 1,
    }

    @classmethod
    def tuning_space(cls) -> dict[str, tuple[float, float]]:
        """The plan's own parameters stay in the plan: the park rows weigh."""
        return {**TUNING_SPACE, "park_weight": (0.5, 2.0), "edge_bonus": (0.5, 3.0)}

    def noble_value(self, view: PlayerView, field: int, strengths: list[list[int]] | None, turns: float) -> float:
        value = super().noble_value(view, field, strengths, turns)
        noble = view.components.nobles[view.park[field]]
        if noble.privilege in ("servants_plus3", "servants_plus1", "reinforce_plus2") and turns > 0:
            # The park keeps a servant per edge noble: servants out of the general supply pay for them.
            value += (1.5 if noble.privilege != "servants_plus1" else 1.0) * min(1.0, turns / 6.0)
        if IS_EDGE[field] and strengths is not None:
            value += self.park_weight * self.row_race(view, field, strengths)
        return value

    def row_race(self, view: PlayerView, field: int, strengths: list[list[int]]) -> float:
        """What the edge servant is worth for the rows still open: a row's free edge fields are the servants still
        to come into it; a lead that the others can no longer catch is worth less more (the row is won), a row
        the seat trails by more than its free fields is lost."""
        park = view.park
        seat = view.seat
        weight = 2 if field in view.components.x2_fields else 1
        x2 = view.components.x2_fields
        gain = 0.0
        for r in ROWS_OF_FIELD[field]:  # the rows holding the field, in row order
            row_fields = ROW_FIELDS[r]
            row = strengths[r]
            open_weight = 0
            for f in row_fields:
                if f != field and park[f] >= 0:
                    open_weight += 2 if f in x2 else 1
            mine = row[seat]
            other = _best_other(tuple(row), seat)
            if mine > other + open_weight:
                gain -= 0.5 * weight  # already safe
            elif mine + weight + open_weight < other:
                gain -= 0.5 * weight  # out of reach
            else:
                gain += 0.25 * weight * min(4, open_weight + 1) / 4.0
        return gain


@mypyc_attr(allow_interpreted_subclasses=True)
class CardsStrategy(HeuristicStrategy):
    """Cards: a Back entrance draw every turn, privilege cards played at the right moment, the hand held to the end."""

    name = "cards"
    # Tuned: palais tune cards --against greedy,economy,seals,park,cards --players 2 --budget 60000
    # --trial-games 400 --validate 2000 --seed 217 (README, "The styles, tuned").
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "parade": 3,
        "stairway": 4,
        "mint": 4,
        "stock": 5,
        "office": 2,
        "back": 2,
        "cardinal": 2,
        "gold_weight": 0.87,
        "seal_weight": 1.31,
        "edge_bonus": 2.76,
        "park_weight": 0.2,
        "privilege_weight": 1.85,
        "card_weight": 2.14,
        "card_aggression": 0,
        "park_denial": 0.32,
        "late_engine": 2,
    }

    @classmethod
    def tuning_space(cls) -> dict[str, tuple[float, float]]:
        """The plan's own parameters stay in the plan: a Back entrance servant, cards worth holding."""
        return {**TUNING_SPACE, "back": (1, 2), "card_weight": (1.0, 2.5)}

    def standing_list(self) -> tuple[tuple[int, int], ...]:
        """The Back entrance's first servant right after the lifelines: a card every turn from the start."""
        base = super().standing_list()
        order: list[tuple[int, int]] = []
        placed = False
        for room, level in base:
            if room == BACK and level <= 1:
                continue
            if room == KING and not placed:
                order.append((BACK, min(1, self.back)))
                placed = True
            order.append((room, level))
        return tuple(x for x in order if x[1] > 0)

    def noble_value(self, view: PlayerView, field: int, strengths: list[list[int]] | None, turns: float) -> float:
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
