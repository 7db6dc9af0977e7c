"""Final scoring (RULES.md section 8): nobles, point cards, unplayed cards, the four park rows, the winners."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final

from palais_sim.games.palais_royal.board import CARDINAL, PARK_ROWS
from palais_sim.games.palais_royal.components import POINT_CARDS
from palais_sim.games.palais_royal.state import GameState

UNPLAYED_CARD_CAP: Final = 6
ROW_FIRST: Final = 6
ROW_SECOND: Final = 2
ROW_SHARED_FIRST: Final = 2


@dataclass(frozen=True)
class SeatScore:
    seat: int  # 0-based
    nobles: int
    cards_played: int
    cards_unplayed: int
    park: int
    cardinal: int

    @property
    def total(self) -> int:
        return self.nobles + self.cards_played + self.cards_unplayed + self.park

    def to_json(self) -> dict:
        """The seat's score in the JSON of ``palais play`` and ``palais score`` (seat 1-based)."""
        return {
            "seat": self.seat + 1,
            "nobles": self.nobles,
            "cards_played": self.cards_played,
            "cards_unplayed": self.cards_unplayed,
            "park": self.park,
            "total": self.total,
            "cardinal": self.cardinal,
        }


def row_points(strengths: list[int]) -> list[int]:
    """Points of one edge row from each seat's strength: 6 for the strongest, 2 for the second;
    tied first each get 2 and nobody scores second; tied second get nothing; strength 0 scores nothing."""
    points = [0] * len(strengths)
    top = max(strengths)
    if top == 0:
        return points
    leaders = [s for s, v in enumerate(strengths) if v == top]
    if len(leaders) > 1:
        for s in leaders:
            points[s] = ROW_SHARED_FIRST
        return points
    points[leaders[0]] = ROW_FIRST
    rest = [v for s, v in enumerate(strengths) if s != leaders[0]]
    second = max(rest) if rest else 0
    if second > 0:
        seconds = [s for s, v in enumerate(strengths) if v == second]
        if len(seconds) == 1:
            points[seconds[0]] = ROW_SECOND
    return points


ROW_NAMES: Final[tuple[str, ...]] = tuple(PARK_ROWS)
_ROWS: Final[tuple[tuple[int, ...], ...]] = tuple(PARK_ROWS.values())


def row_strengths(park: tuple[int, ...], x2_fields: AbstractSet[int], players: int) -> list[list[int]]:
    """Each seat's strength in each edge row (``ROW_NAMES`` order): its servants there, x2 fields counting 2."""
    result = []
    for fields in _ROWS:
        strengths = [0] * players
        for f in fields:
            code = park[f]
            if code <= -2:
                strengths[-2 - code] += 2 if f in x2_fields else 1
        result.append(strengths)
    return result


def row_strength(state: GameState, row: str) -> list[int]:
    """Each seat's strength in the edge row named ``row`` (top, right, vase, lion)."""
    return row_strengths(state.park, state.components.x2_fields, state.n)[ROW_NAMES.index(row)]


def park_points(state: GameState) -> list[int]:
    totals = [0] * state.n
    for strengths in row_strengths(state.park, state.components.x2_fields, state.n):
        for seat, p in enumerate(row_points(strengths)):
            totals[seat] += p
    return totals


def final_scores(state: GameState) -> list[SeatScore]:
    nobles = state.components.nobles
    park = park_points(state)
    return [
        SeatScore(
            seat=seat,
            nobles=sum(nobles[i].points for i in state.nobles[seat]),
            cards_played=sum(POINT_CARDS[c] for c in state.played_points[seat]),
            cards_unplayed=min(UNPLAYED_CARD_CAP, len(state.hands[seat])),
            park=park[seat],
            cardinal=state.rooms[CARDINAL][seat],
        )
        for seat in range(state.n)
    ]


def ranks(totals: list[int]) -> list[int]:
    """Competition ranks: 1 for the best total, tied totals share the better rank."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def winners(scores: list[SeatScore]) -> list[int]:
    """Most points wins; ties go to most servants in the Cardinal; still tied, the win is shared."""
    best = max(s.total for s in scores)
    tied = [s for s in scores if s.total == best]
    most_cardinal = max(s.cardinal for s in tied)
    return [s.seat for s in tied if s.cardinal == most_cardinal]
