"""The heuristic's valuation: what a noble is worth to a seat now (points, privilege, park rows, servants left)
and the least score worth recruiting."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from palais_sim.games.palais_royal.board import IS_EDGE, PARK_ROWS
from palais_sim.games.palais_royal.rules import END_TRIGGER_NOBLES as END_TRIGGER
from palais_sim.games.palais_royal.view import PlayerView
from strategies.palais_royal.tuning_space import HeuristicParameters

# The edge rows each park field belongs to, in the order of ``view.row_strengths()``.
ROWS_OF_FIELD: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(i for i, row in enumerate(PARK_ROWS.values()) if f in row) for f in range(36)
)

# What a noble privilege is worth in points if taken at the very start (scaled by the game still to come).
PRIVILEGE_VALUE: Final = {
    "mint_plus2": 7.0,
    "servants_plus3": 6.0,
    "servants_plus1": 2.0,
    "reinforce_plus2": 6.0,
    "move_plus2": 5.0,
    "diagonal_move": 2.5,
    "king_plus1": 7.0,
    "madame_plus1": 7.0,
    "cards_plus3": 2.0,
}
# A privilege is worth its full PRIVILEGE_VALUE with this many of the seat's turns to come, proportionally less with
# fewer: it pays per turn, and a game lasts about 13 rounds (at 8 the engine nobles crowded out the point nobles,
# which the game's end by noble count makes the scarce resource).
PRIVILEGE_HORIZON: Final = 12.0
# Below this many servants in the supply and the rooms an edge noble's servant (gone for good) is a loss.
SERVANTS_NEEDED: Final = 8
# At this many or fewer a seat cannot spare one at all: an edge noble is then worth this much less (and is not worth
# recruiting even with an empty supply; unless it brings the end of the game).
SERVANTS_LAST: Final = 5
NO_SERVANT_TO_SPARE: Final = -20.0


@mypyc_attr(allow_interpreted_subclasses=True)
class Valuation(HeuristicParameters):
    """Values nobles for the planner and the recruitment."""

    def turns_left(self, view: PlayerView) -> float:
        """A rough count of this seat's turns still to come."""
        if view.final_round:
            return 0.0
        per_round = 0.9 * view.n
        return max(0.0, (view.nobles_left - END_TRIGGER) / per_round) + 1.0

    def row_strengths(self, view: PlayerView) -> list[list[int]]:
        return view.row_strengths()

    def park_gain(self, view: PlayerView, field: int, strengths: list[list[int]]) -> float:
        """Points the edge servant left on ``field`` adds to this seat's park score (rows as they stand now)."""
        seat = view.seat
        weight = 2 if field in view.components.x2_fields else 1
        gain = 0.0
        for r in ROWS_OF_FIELD[field]:
            row = strengths[r]
            mine = row[seat]
            best_other = 0
            for s, v in enumerate(row):  # a loop: max() over a generator is several times slower here
                if s != seat and v > best_other:
                    best_other = v
            before = _row_share(mine, best_other)
            after = _row_share(mine + weight, best_other)
            gain += after - before
            if self.park_denial and best_other > 0:
                # The strongest other seat's loss counts too (what decides a 2-player game is the margin).
                gain += (_row_share(best_other, mine) - _row_share(best_other, mine + weight)) * self.park_denial
        return gain

    def noble_value(self, view: PlayerView, field: int, strengths: list[list[int]] | None, turns: float) -> float:
        noble = view.components.nobles[view.park[field]]
        value = float(noble.points)
        if noble.privilege is not None and turns > 0:
            base = PRIVILEGE_VALUE.get(noble.privilege, 1.0)
            value += self.privilege_weight * base * min(1.0, turns / PRIVILEGE_HORIZON)
        if IS_EDGE[field]:
            value += self.edge_bonus * (2 if field in view.components.x2_fields else 1) * 0.5
            if strengths is not None:
                value += self.park_weight * self.park_gain(view, field, strengths)
            if turns > 0:
                seat = view.seat
                supply = view.supply[seat]
                if supply <= 1:
                    value -= 0.5  # the edge servant then comes out of a room
                # The edge servant never comes back: with few servants left in play, each is a seat's last means
                # to recruit at all (an Office servant, seals, the engine rooms' lifelines).
                circulation = supply
                for row in view.rooms:
                    circulation += row[seat]
                if circulation < SERVANTS_NEEDED and view.nobles_left - 1 > END_TRIGGER:
                    value -= (SERVANTS_NEEDED - circulation) * 1.5
                    if circulation <= SERVANTS_LAST:
                        value += NO_SERVANT_TO_SPARE  # an Office servant, a lifeline or two, the seals
        return value

    def noble_score(self, value: float, cost: int, seals: int) -> float:
        """Value less what the resources are worth."""
        return value - self.gold_weight * cost - self.seal_weight * seals

    def min_recruit_score(self, view: PlayerView) -> float:
        """Below this score a recruitment is not worth the seals (the game end needs recruitments: keep it low)."""
        return 0.5

    def recruit_floor(self, view: PlayerView, turns: float) -> float:
        """The least score worth recruiting (``min_recruit_score``), the planner's and the recruitment's alike: none
        in the last round; with an empty supply, which only a recruitment refills, anything but an edge noble that
        takes one of the last servants."""
        if turns <= 0:
            return -1e9
        if view.supply[view.seat] == 0:
            return NO_SERVANT_TO_SPARE / 2
        return self.min_recruit_score(view)


def _best_other(counts: tuple[int, ...], seat: int) -> int:
    """The most any other seat holds (a loop: compiled or not, faster than max() over a generator)."""
    best = 0
    for s, c in enumerate(counts):
        if s != seat and c > best:
            best = c
    return best


def _row_share(mine: int, best_other: int) -> float:
    """This seat's points in a row against the strongest other (2-player view of the row)."""
    if mine == 0:
        return 0.0
    if mine > best_other:
        return 6.0
    if mine == best_other:
        return 2.0
    return 2.0 if mine > 0 else 0.0
