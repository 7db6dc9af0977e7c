"""``greedy``: each turn, aim at the noble with the best points per cost it can reach now, and get there.

The plan of a turn: reinforce fully; move servants (the Gate's first) into the Office, the King's cabinet and
Madame's room as the target noble needs, then spread the rest towards a standing distribution; take every seal
bonus; recruit the best affordable nobles while the Office allows; keep the best drawn cards; play gold4 when it
pays for something and point cards with spare gold at the end of the turn.
"""

from __future__ import annotations

from palais_sim.board import BACK, CARDINAL, GATE, KING, MADAME, MINT, OFFICE, PARADE, STAIRWAY
from palais_sim.engine.rules import Decision
from palais_sim.strategy import PlayerView

# Standing distribution the spare movement heads for, in order of priority: (room, wanted servants).
STANDING = (
    (OFFICE, 1),
    (KING, 2),
    (MADAME, 2),
    (MINT, 2),
    (STAIRWAY, 4),
    (PARADE, 3),
    (BACK, 1),
    (OFFICE, 2),
    (KING, 3),
    (MADAME, 3),
    (MINT, 3),
    (CARDINAL, 1),
)
PRIVILEGE_POINTS = {
    "mint_plus2": 6.0,
    "servants_plus3": 4.0,
    "servants_plus1": 1.5,
    "reinforce_plus2": 4.0,
    "move_plus2": 3.0,
    "diagonal_move": 1.5,
    "king_plus1": 4.0,
    "madame_plus1": 4.0,
    "cards_plus3": 2.0,
}
CARD_KEEP_ORDER = (
    "points4",
    "gold4",
    "points2",
    "two_seals",
    "move9",
    "reinforce2_move6",
    "all_majorities",
    "move5",
    "free_reinforce",
)


class GreedyStrategy:
    """Best points per cost it can afford now; moves its servants to get there."""

    name = "greedy"

    def __init__(self, gold_weight: float = 1.0, seal_weight: float = 1.0, edge_bonus: float = 1.0) -> None:
        self.gold_weight = gold_weight
        self.seal_weight = seal_weight
        self.edge_bonus = edge_bonus

    # ------------------------------------------------------------------ valuation
    def noble_value(self, view: PlayerView, field: int) -> float:
        noble = view.components.nobles[view.park[field]]
        value = float(noble.points)
        if noble.privilege is not None and not view.final_round:
            # A privilege is worth more early: scale by the share of the game still to come.
            value += PRIVILEGE_POINTS.get(noble.privilege, 1.0) * view.nobles_left / 36
        if field in _EDGE:
            value += self.edge_bonus * (2 if field in view.components.x2_fields else 1)
        return value

    def noble_ratio(self, view: PlayerView, field: int) -> float:
        noble = view.components.nobles[view.park[field]]
        cost = 1.0 + self.gold_weight * view.recruit_cost(field) + self.seal_weight * (noble.violet + noble.turquoise)
        return self.noble_value(view, field) / cost

    # ------------------------------------------------------------------ decisions
    def choose(self, view: PlayerView, decision: Decision) -> object:
        kind = decision.kind
        if kind == "reinforce":
            return (min(decision.max_count, view.supply[view.seat]), ())
        if kind == "move":
            return self.plan_move(view, decision)
        if kind == "seals":
            supply = view.supply[view.seat]
            king = min(decision.king_max, supply)
            return (king, min(decision.madame_max, supply - king), ())
        if kind == "recruit":
            return self.pick_recruit(view, decision)
        if kind == "keep":
            return self.pick_keep(decision)
        if kind == "cards":
            return self.pick_cards(view, decision)
        if kind == "setup":
            return (0, 0, 0, 2, 1, 1, 1, 0, 0)  # mint 2, king, madame, office
        raise ValueError(f"greedy cannot answer a {kind!r} decision")

    def pick_recruit(self, view: PlayerView, decision: Decision) -> object:
        best, best_ratio = None, 0.0
        for field in view.noble_fields():
            if view.can_recruit(field, decision.wild_seals):
                ratio = self.noble_ratio(view, field)
                if ratio > best_ratio:
                    best, best_ratio = field, ratio
        return best

    def pick_keep(self, decision: Decision) -> tuple[int, ...]:
        ranked = sorted(range(len(decision.drawn)), key=lambda i: CARD_KEEP_ORDER.index(decision.drawn[i]))
        return tuple(sorted(ranked[: decision.max_count]))

    def pick_cards(self, view: PlayerView, decision: Decision) -> tuple[str, ...]:
        hand = list(view.hand)
        prices = view.components.card_prices
        gold = view.gold[view.seat]
        play: list[str] = []
        if decision.window == "recruit":
            # gold4 and two_seals whenever they may help the recruitment.
            play += [c for c in hand if c == "gold4"]
            gold += 4 * len(play)
            seals = [c for c in hand if c == "two_seals"]
            for card in seals[:1]:
                if prices[card] <= gold:
                    play.append(card)
                    gold -= prices[card]
        elif decision.window == "end":
            for card in sorted((c for c in hand if c in ("points4", "points2")), reverse=True):
                if prices[card] <= gold:
                    play.append(card)
                    gold -= prices[card]
        elif decision.window == "move" and view.movement_points() < 3:
            for card in ("move9", "move5"):
                if card in hand and prices[card] <= gold:
                    play.append(card)
                    break
        return tuple(play)

    # ------------------------------------------------------------------ movement
    def plan_move(self, view: PlayerView, decision: Decision) -> list[tuple[int, int, int]]:
        seat = view.seat
        mine = view.my_rooms()
        dist = view.distances()
        points = decision.points
        moves: list[tuple[int, int, int]] = []
        keep = [0] * 9
        keep[STAIRWAY] = mine[STAIRWAY]  # points are fixed at the start; keep the Stairway for next turn

        target = self.target_noble(view, mine, dist, points)
        if target is not None:
            noble = view.components.nobles[view.park[target]]
            wants = ((OFFICE, 1), (KING, noble.turquoise), (MADAME, noble.violet))
            points = _fill(mine, wants, keep, dist, points, moves)
            keep[OFFICE], keep[KING], keep[MADAME] = mine[OFFICE], mine[KING], mine[MADAME]
        gold_short = view.gold[seat] < 4
        for room, wanted in STANDING:
            if points <= 0:
                break
            if room == MINT and not gold_short and wanted > 2:
                continue
            points = _fill(mine, ((room, wanted),), keep, dist, points, moves, gate_only=True)
            keep[room] = max(keep[room], min(mine[room], wanted))
        return moves

    def target_noble(self, view: PlayerView, mine: list[int], dist, points: int) -> int | None:
        """The best-ratio noble whose seals and Office servant the moves can bring together this turn."""
        seat = view.seat
        gold = view.gold[seat] + view.mint_income()
        ranked = sorted(
            (f for f in view.noble_fields() if view.recruit_cost(f) <= gold),
            key=lambda f: -self.noble_ratio(view, f),
        )
        for field in ranked[:6]:
            noble = view.components.nobles[view.park[field]]
            need = max(0, 1 - mine[OFFICE]) + max(0, noble.turquoise - mine[KING]) + max(0, noble.violet - mine[MADAME])
            if need == 0:
                return field
            spare = mine[GATE]
            if need <= spare and need * 2 <= points + 2:
                return field
        return None


_EDGE = frozenset(f for f in range(36) if f < 6 or f >= 30 or f % 6 in (0, 5))


def _fill(
    mine: list[int],
    wants: tuple[tuple[int, int], ...],
    keep: list[int],
    dist,
    points: int,
    moves: list[tuple[int, int, int]],
    gate_only: bool = False,
) -> int:
    """Move servants into rooms until each holds what it wants, nearest spare servants first, within the points.
    Spare servants are those above ``keep`` (the Gate's first). Returns the points left."""
    for room, wanted in wants:
        while mine[room] < wanted and points > 0:
            best, best_d = -1, 99
            for src in range(9):
                if src == room or mine[src] <= keep[src]:
                    continue
                if gate_only and src != GATE:
                    continue
                d = dist[src][room]
                if src == GATE:
                    d -= 0.5  # prefer the Gate's servants: they do nothing there
                if d < best_d:
                    best, best_d = src, d
            if best < 0:
                break
            cost = dist[best][room]
            if cost > points:
                break
            mine[best] -= 1
            mine[room] += 1
            points -= cost
            moves.append((best, room, 1))
    return points
