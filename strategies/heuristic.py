"""The shared heuristic behind ``greedy`` and the named styles: plan one turn around a target noble.

Every style is this class with other weights (see ``strategies/styles.py``). A turn goes:

- cards(start): all_majorities when it adds enough bonuses, free_reinforce with a large supply,
  reinforce2_move6 when the plan needs movement; gold4 whenever gold is short for the plan.
- reinforce: every servant the supply can give.
- cards(move) + move: pick the best noble the seat can bring together *this* turn (gold after the Mint, seals after
  the majority bonuses, an Office servant), move the servants it needs, then spend what points are left towards a
  *standing distribution* (a priority list of (room, level) pairs built from the weights). Servants only leave a
  room above its standing level, so the engine rooms (Parade ground, Stairway, Mint) are never drained.
- seals: take every bonus servant (from the supply, else from the Gate, surplus rooms, then the Parade ground,
  which reinforces nothing while the supply is empty; never so many that a seal room holds more than any noble asks).
- cards(recruit) + recruit: two_seals and gold4 when they make a better noble affordable; recruit the best noble
  while the Office allows.
- keep: the most valuable drawn cards; cards(end): point cards when affordable, everything sensible in the last
  round (an unplayed card is worth 1 point, at most 6).
- endgame (the last round, or the one before it is likely): the standing distribution becomes seals and a second
  and third Office servant for as many recruitments as possible; in the last turn spare servants go to the Back
  entrance, each card kept being a point.

Speed matters (greedy is the benchmark workload): the per-decision work is a few loops over the 36 park fields and
the 9 rooms, no copies of the state and no enumeration of options.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from palais_sim.board import (
    BACK,
    CARDINAL,
    GATE,
    IS_EDGE,
    KING,
    MADAME,
    MINT,
    OFFICE,
    PARADE,
    PARK_ROWS,
    STAIRWAY,
)
from palais_sim.engine import cards
from palais_sim.engine.rules import END_TRIGGER_NOBLES as END_TRIGGER
from palais_sim.engine.rules import Decision, noble_cost
from palais_sim.engine.state import P_DIAGONAL, P_KING, P_MADAME
from palais_sim.engine.view import PlayerView

# The edge rows each park field belongs to, in the order of ``view.row_strengths()``.
Distances = tuple[tuple[int, ...], ...]  # room-to-room movement costs (Layout.distances)
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
# How much a card in hand is worth keeping (points-ish), before the style's card weight.
CARD_VALUE: Final = {
    "points4": 4.0,
    "points2": 2.2,
    "gold4": 2.5,
    "two_seals": 2.4,
    "move9": 2.3,
    "reinforce2_move6": 2.3,
    "all_majorities": 1.8,
    "move5": 1.8,
    "free_reinforce": 1.5,
}
MAJORITY_ROOMS: Final = (PARADE, STAIRWAY, MINT, KING, MADAME)


# The heuristic's parameters and their defaults. A style changes some of them in its ``DEFAULTS``; ``parameters()``
# is what the registry reads (no signature inspection, which a compiled class does not support).
HEURISTIC_DEFAULTS: Final[dict[str, Any]] = {
    "parade": 3,
    "stairway": 5,
    "mint": 2,
    "stock": 3,
    "office": 1,
    "back": 0,
    "cardinal": 1,
    "gold_weight": 0.35,
    "seal_weight": 0.5,
    "edge_bonus": 1.0,
    "park_weight": 0.6,
    "privilege_weight": 1.0,
    "card_weight": 1.0,
    "majority_chase": True,
    # Play a movement card when at least this many servants would otherwise idle at the Gate (0: only when the card
    # makes a noble reachable this turn).
    "card_aggression": 0,
    "park_denial": 0.0,
    # Stairway servants kept near the end (the Parade ground one fewer) until the last round starts.
    "late_engine": 3,
}


@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicStrategy:
    """Plans each turn around the best noble it can bring together, over a standing distribution of servants."""

    name = "heuristic"
    DEFAULTS: ClassVar[dict[str, Any]] = {}  # a style's own defaults, over HEURISTIC_DEFAULTS

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """This strategy's parameters with their defaults."""
        return {**HEURISTIC_DEFAULTS, **cls.DEFAULTS}

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(HEURISTIC_DEFAULTS))
        if unknown:
            raise TypeError(f"unknown parameters {unknown}; parameters: {', '.join(HEURISTIC_DEFAULTS)}")
        p = {**self.parameters(), **params}
        self.parade: int = int(p["parade"])
        self.stairway: int = int(p["stairway"])
        self.mint: int = int(p["mint"])
        self.stock: int = int(p["stock"])
        self.office: int = int(p["office"])
        self.back: int = int(p["back"])
        self.cardinal: int = int(p["cardinal"])
        self.gold_weight: float = float(p["gold_weight"])
        self.seal_weight: float = float(p["seal_weight"])
        self.edge_bonus: float = float(p["edge_bonus"])
        self.park_weight: float = float(p["park_weight"])
        self.privilege_weight: float = float(p["privilege_weight"])
        self.card_weight: float = float(p["card_weight"])
        self.majority_chase: bool = bool(p["majority_chase"])
        self.card_aggression: int = int(p["card_aggression"])
        self.park_denial: float = float(p["park_denial"])
        self.late_engine: int = int(p["late_engine"])
        self._standing = self.standing_list()

    # ================================================================== the standing distribution
    def standing_list(self) -> tuple[tuple[int, int], ...]:
        """Rooms and levels in order of priority; spare servants fill them in this order."""
        p, s, m, k = self.parade, self.stairway, self.mint, self.stock
        order = [
            (OFFICE, min(1, self.office)),
            (PARADE, min(2, p)),
            (STAIRWAY, min(4, s)),
            (KING, min(1, k)),
            (MADAME, min(1, k)),
            (MINT, min(1, m)),
            (BACK, min(1, self.back)),
            (STAIRWAY, s),
            (PARADE, p),
            (KING, min(2, k)),
            (MADAME, min(2, k)),
            (MINT, m),
            (BACK, self.back),
            (OFFICE, self.office),
            (CARDINAL, self.cardinal),
            (KING, k),
            (MADAME, k),
            (KING, k + 2),
            (MADAME, k + 2),
            (STAIRWAY, s + 2),
            (PARADE, p + 1),
            (KING, 99),
            (MADAME, 99),
        ]
        return tuple((room, level) for room, level in order if level > 0)

    def is_late(self, view: PlayerView) -> bool:
        """The last round, or the round before it is likely (the engine rooms stop paying off)."""
        return view.final_round or view.nobles_left <= END_TRIGGER + view.n

    def standing_for(self, view: PlayerView) -> tuple[tuple[int, int], ...]:
        return self.endgame_list(view) if self.is_late(view) else self._standing

    def endgame_list(self, view: PlayerView) -> tuple[tuple[int, int], ...]:
        """Near the end: seals and Office servants for as many recruitments as possible; in the last turn the
        servants left over go to the Back entrance, since every card kept is a point (up to 6 in hand)."""
        cards_room = max(0, 6 - len(view.hand)) if view.final_round else 0
        # Before the last round the engine still has to run (the end may take longer than it looks).
        engine = 0 if view.final_round else 1
        order = (
            (OFFICE, 1),
            (PARADE, max(1, self.late_engine - 1) * engine),
            (STAIRWAY, self.late_engine * engine),
            (KING, 2),
            (MADAME, 2),
            (OFFICE, 2),
            (KING, 3),
            (MADAME, 3),
            (BACK, min(cards_room, 2)),
            (KING, 4),
            (MADAME, 4),
            (BACK, cards_room),
            (CARDINAL, self.cardinal + 1),
            (OFFICE, 3),
            (KING, 99),
        )
        return tuple((room, level) for room, level in order if level > 0)

    def standing_target(self, view: PlayerView, total: int) -> list[int]:
        """The standing distribution of ``total`` servants (see ``standing_list`` and ``endgame_list``)."""
        target = [0] * 9
        left = total
        for room, level in self.standing_for(view):
            if level > target[room]:
                add = min(level - target[room], left)
                target[room] += add
                left -= add
                if left == 0:
                    break
        if left:
            target[KING] += left
        return target

    # ================================================================== valuation
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
            value += self.privilege_weight * base * min(1.0, turns / 8.0)
        if IS_EDGE[field]:
            value += self.edge_bonus * (2 if field in view.components.x2_fields else 1) * 0.5
            if strengths is not None:
                value += self.park_weight * self.park_gain(view, field, strengths)
            if turns > 0 and view.supply[view.seat] <= 1:
                value -= 0.5  # the edge servant then comes out of a room
        return value

    def noble_score(self, value: float, cost: int, seals: int) -> float:
        """Value less what the resources are worth."""
        return value - self.gold_weight * cost - self.seal_weight * seals

    # ================================================================== decisions
    def choose(self, view: PlayerView, decision: Decision) -> object:
        kind = decision.kind
        if kind == "move":
            return self.plan_move(view, decision.points, decision.diagonal)[0]
        if kind == "recruit":
            return self.pick_recruit(view, decision)
        if kind == "reinforce":
            return self.pick_reinforce(view, decision)
        if kind == "seals":
            return self.pick_seals(view, decision)
        if kind == "cards":
            return self.pick_cards(view, decision)
        if kind == "draw":
            return decision.max_count  # every card it may: the keep decision chooses among them
        if kind == "keep":
            return self.pick_keep(view, decision)
        if kind == "setup":
            return self.pick_setup(view, decision)
        raise ValueError(f"{self.name} cannot answer a {kind!r} decision")

    # ------------------------------------------------------------------ setup, reinforce, seals
    def pick_setup(self, view: PlayerView, decision: Decision) -> tuple[int, ...]:
        mine = view.my_rooms()
        total = sum(mine) + decision.max_count
        target = self.standing_target(view, total)
        counts = [0] * 9
        left = decision.max_count
        for room, level in self._standing:
            while left and mine[room] + counts[room] < min(level, target[room]):
                counts[room] += 1
                left -= 1
        counts[GATE] += left
        return tuple(counts)

    def pick_reinforce(self, view: PlayerView, decision: Decision) -> object:
        supply = view.supply[view.seat]
        return (min(decision.max_count, supply), ())

    def pick_seals(self, view: PlayerView, decision: Decision) -> object:
        seat = view.seat
        supply = view.supply[seat]
        king, madame = decision.king_max, decision.madame_max
        if supply < king + madame:
            # Servants taken out of rooms only where they can still become seals for a noble.
            if view.rooms[KING][seat] >= 5:
                king = min(king, supply)
            if view.rooms[MADAME][seat] >= 5:
                madame = min(madame, max(0, supply - king))
        need = king + madame - supply
        sources: list[int] = []
        if need > 0:
            mine = view.my_rooms()
            # Take from the least useful rooms first: the Gate, then surplus over the standing distribution.
            target = self.standing_target(view, sum(mine))
            for room in (GATE, BACK, CARDINAL, PARADE, MINT, STAIRWAY, OFFICE):
                spare = mine[room] - (0 if room == GATE else target[room])
                while spare > 0 and len(sources) < need:
                    sources.append(room)
                    spare -= 1
                    mine[room] -= 1
            # Still short: the supply is empty, so the Parade ground reinforces nothing and its servants are the
            # cheapest to give up; a seal servant also beats a Mint or Cardinal servant. (Refusing here could
            # deadlock a game: no servant ever reaches an empty seal room.)
            floors = ((PARADE, 1), (MINT, 0 if view.gold[seat] >= 8 else 1), (CARDINAL, 0), (BACK, 0))
            for room, floor in floors:
                while mine[room] > floor and len(sources) < need:
                    sources.append(room)
                    mine[room] -= 1
            if len(sources) < need:
                # Not enough servants anywhere spare: take fewer bonus servants.
                short = need - len(sources)
                cut_m = min(madame, short)
                madame -= cut_m
                king -= short - cut_m
            # The engine takes the King's sources first.
        return (king, madame, tuple(sources))

    # ------------------------------------------------------------------ recruit
    def pick_recruit(self, view: PlayerView, decision: Decision) -> object:
        seat = view.seat
        nobles = view.components.nobles
        gold = view.gold[seat]
        king, madame = view.rooms[KING][seat], view.rooms[MADAME][seat]
        wild = decision.wild_seals
        strengths = self.row_strengths(view)
        turns = self.turns_left(view)
        best, best_score = None, -1e9
        park = view.park
        for field in range(36):
            code = park[field]
            if code < 0:
                continue
            noble = nobles[code]
            short_violet, short_turquoise = noble.violet - madame, noble.turquoise - king
            short = (short_violet if short_violet > 0 else 0) + (short_turquoise if short_turquoise > 0 else 0)
            if short > wild:
                continue
            cost = noble_cost(park, field, noble.gold)
            if cost > gold:
                continue
            value = self.noble_value(view, field, strengths, turns)
            seals = noble.violet + noble.turquoise
            score = self.noble_score(value, cost, seals - min(wild, seals))
            if score > best_score:
                best, best_score = field, score
        if best is None:
            return None
        if turns > 0 and best_score < self.min_recruit_score(view):
            return None
        return best

    def min_recruit_score(self, view: PlayerView) -> float:
        """Below this score a recruitment is not worth the seals (the game end needs recruitments: keep it low)."""
        return 0.5

    # ------------------------------------------------------------------ keep
    def pick_keep(self, view: PlayerView, decision: Decision) -> tuple[int, ...]:
        drawn = decision.drawn
        ranked = sorted(range(len(drawn)), key=lambda i: -self.card_keep_value(view, drawn[i]))
        keep = [i for i in ranked[: decision.max_count] if self.card_keep_value(view, drawn[i]) > 0.5]
        return tuple(sorted(keep))

    def card_keep_value(self, view: PlayerView, card: str) -> float:
        value = CARD_VALUE.get(card, 1.0) * self.card_weight
        if view.final_round:
            value = 4.0 if card == "points4" else 2.0 if card == "points2" else 1.0
        return value

    # ------------------------------------------------------------------ cards
    def pick_cards(self, view: PlayerView, decision: Decision) -> tuple[str, ...]:
        window = decision.window
        playable = decision.playable
        seat = view.seat
        gold = view.gold[seat]
        bank = view.bank
        prices = view.components.card_prices
        hand = list(view.hand)
        play: list[str] = []

        def pay(card: str) -> bool:
            nonlocal gold, bank
            if card not in hand:
                return False
            if prices[card] > gold and "gold4" in hand and card != "gold4" and prices["gold4"] <= gold:
                hand.remove("gold4")
                play.append("gold4")
                gold, bank = cards.pay("gold4", prices["gold4"], gold, bank)
            if prices[card] > gold:
                return False
            hand.remove(card)
            play.append(card)
            gold, bank = cards.pay(card, prices[card], gold, bank)
            return True

        last = view.final_round
        if window == "start":
            if "all_majorities" in playable and self.all_majorities_gain(view) >= 3:
                pay("all_majorities")
            if "free_reinforce" in playable and view.supply[seat] >= view.reinforce_count() + 4 and not last:
                pay("free_reinforce")
            if "reinforce2_move6" in playable and (last or view.movement_points() < self.stairway + 1 or len(hand) > 3):
                pay("reinforce2_move6")
        elif window == "move":
            points = view.movement_points()
            diagonal = view.priv[seat][P_DIAGONAL] > 0
            if not self.has_target(view, points, diagonal):
                for card, extra in (("move5", 5), ("move9", 9)):
                    if card in playable and self.has_target(view, points + extra, diagonal) and pay(card):
                        break
            if self.card_aggression and not any(c in play for c in ("move5", "move9")):
                moves, _ = self.plan_move(view, points, diagonal)
                idle = view.rooms[GATE][seat] - sum(c for src, _dst, c in moves if src == GATE)
                if idle >= self.card_aggression:
                    for card in ("move9", "move5") if idle >= 4 else ("move5", "move9"):
                        if card in playable and pay(card):
                            break
        elif window == "recruit":
            self.recruit_cards(view, decision, hand, pay)
        # Point cards: whenever affordable (an unplayed card is worth 1 point; a played one 2 or 4).
        spare = gold - (0 if last or window == "end" else 3)
        for card in ("points4", "points2"):
            while card in hand and prices[card] <= spare:
                if not pay(card):
                    break
                spare -= prices[card]
        return tuple(play)

    def recruit_cards(self, view: PlayerView, decision: Decision, hand: list[str], pay) -> None:
        """two_seals / gold4 when they let the seat recruit something (better) now."""
        seat = view.seat
        if view.rooms[OFFICE][seat] == 0:
            return
        prices = view.components.card_prices
        gold = view.gold[seat]
        base = self._best_reachable(view, gold, view.wild)
        if "two_seals" in hand:
            with_seals = self._best_reachable(view, view.money() - prices["two_seals"], view.wild + 2)
            if with_seals > base + 1.5:
                pay("two_seals")
                base = with_seals
        if "gold4" in hand and prices["gold4"] <= gold:
            with_gold = self._best_reachable(view, cards.pay("gold4", prices["gold4"], gold, view.bank)[0], view.wild)
            if with_gold > base + 0.5:
                pay("gold4")

    def _best_reachable(self, view: PlayerView, gold: int, wild: int) -> float:
        seat = view.seat
        nobles = view.components.nobles
        king, madame = view.rooms[KING][seat], view.rooms[MADAME][seat]
        park = view.park
        best = 0.0
        turns = self.turns_left(view)
        for field in range(36):
            code = park[field]
            if code < 0:
                continue
            noble = nobles[code]
            if max(0, noble.violet - madame) + max(0, noble.turquoise - king) > wild:
                continue
            cost = noble_cost(park, field, noble.gold)
            if cost > gold:
                continue
            best = max(best, self.noble_value(view, field, None, turns) - self.gold_weight * cost)
        return best

    def all_majorities_gain(self, view: PlayerView) -> int:
        seat = view.seat
        return sum(1 for r in MAJORITY_ROOMS if view.rooms[r][seat] > 0 and not view.majority(r))

    # ------------------------------------------------------------------ movement
    def plan_move(self, view: PlayerView, points: int, diagonal: bool) -> tuple[list[tuple[int, int, int]], int]:
        """The moves of this turn and how many wanted servants for the target noble could not be brought."""
        mine = view.my_rooms()
        dist = view.layout.distances(diagonal)
        total = sum(mine)
        target = self.standing_target(view, total)
        keep = [0] * 9
        for r in (PARADE, STAIRWAY, MINT, BACK, CARDINAL):
            keep[r] = min(mine[r], target[r])
        moves: list[tuple[int, int, int]] = []
        unmet = 0

        wants = self.target_wants(view, mine, dist, points, keep)
        if wants:
            for r, lvl in wants:
                keep[r] = max(keep[r], min(mine[r], lvl))
            points = _fill(mine, wants, keep, dist, points, moves)
            unmet = sum(max(0, lvl - mine[r]) for r, lvl in wants)
            for r, lvl in wants:
                keep[r] = max(keep[r], min(mine[r], lvl))
        if points > 0:
            for r in (OFFICE, KING, MADAME):
                keep[r] = max(keep[r], min(mine[r], target[r]))
            standing = own = self.standing_for(view)
            if self.majority_chase and not view.final_round:
                # After the Office servant: the Office is what turns seals into nobles.
                standing = standing[:1] + self.majority_wants(view, mine) + standing[1:]
            for room, level in standing:
                if points <= 0:
                    break
                want = min(level, target[room]) if (room, level) in own else level
                if mine[room] >= want:
                    keep[room] = max(keep[room], want)
                    continue
                points = _fill(mine, ((room, want),), keep, dist, points, moves, target)
                keep[room] = max(keep[room], min(mine[room], want))
        return moves, unmet

    def has_target(self, view: PlayerView, points: int, diagonal: bool) -> bool:
        """Whether some noble can be brought together this turn with ``points`` movement points."""
        mine = view.my_rooms()
        target = self.standing_target(view, sum(mine))
        keep = [0] * 9
        for r in (PARADE, STAIRWAY, MINT, BACK, CARDINAL):
            keep[r] = min(mine[r], target[r])
        return self.target_wants(view, mine, view.layout.distances(diagonal), points, keep) is not None

    def majority_wants(self, view: PlayerView, mine: list[int]) -> tuple[tuple[int, int], ...]:
        """One more servant where that wins the King's or Madame's majority (a free seal servant every turn)."""
        seat = view.seat
        wants = []
        for room in (KING, MADAME):
            counts = view.rooms[room]
            best_other = _best_other(counts, seat)
            if mine[room] <= best_other and best_other + 1 - mine[room] <= 1:
                wants.append((room, best_other + 1))
        return tuple(wants)

    def target_wants(
        self, view: PlayerView, mine: list[int], dist: Distances, points: int, keep: list[int]
    ) -> tuple[tuple[int, int], ...] | None:
        """The Office, King and Madame levels the best reachable noble needs this turn (or None)."""
        seat = view.seat
        nobles = view.components.nobles
        park = view.park
        gold = view.money() + view.mint_income()
        wild = 2 * view.hand.count("two_seals") if view.wild == 0 else view.wild
        turns = self.turns_left(view)
        strengths = self.row_strengths(view)
        # What can be brought: spare servants with their distance to each of the three rooms.
        spare = [mine[r] - keep[r] if r not in (OFFICE, KING, MADAME) else 0 for r in range(9)]
        spare[STAIRWAY] = max(0, spare[STAIRWAY])
        k_bonus = view.priv[seat][P_KING]
        d_bonus = view.priv[seat][P_MADAME]
        office_need = 0 if mine[OFFICE] > 0 else 1
        office_cost = dist_for(spare[:], dist, OFFICE, office_need) if office_need else 0
        if office_cost is None:
            return None
        candidates = []
        for field in range(36):
            code = park[field]
            if code < 0:
                continue
            noble = nobles[code]
            cost = noble_cost(park, field, noble.gold)
            if cost > gold:
                continue
            value = self.noble_value(view, field, strengths, turns)
            candidates.append((self.noble_score(value, cost, noble.violet + noble.turquoise), noble))
        candidates.sort(key=lambda c: -c[0])
        for _score, noble in candidates[:8]:
            need_k = self._seal_level(view, KING, noble.turquoise, mine, k_bonus)
            need_d = self._seal_level(view, MADAME, noble.violet, mine, d_bonus)
            bring_k = max(0, need_k - mine[KING])
            bring_d = max(0, need_d - mine[MADAME])
            # Wild seals (two_seals) replace the servants dearest to bring.
            w = min(wild, bring_k + bring_d)
            if w:
                if dist[GATE][KING] >= dist[GATE][MADAME]:
                    wk = min(w, bring_k)
                    bring_k, bring_d = bring_k - wk, bring_d - (w - wk)
                else:
                    wd = min(w, bring_d)
                    bring_d, bring_k = bring_d - wd, bring_k - (w - wd)
            sp = spare[:]
            if office_need:
                dist_for(sp, dist, OFFICE, office_need)
            cost_k = dist_for(sp, dist, KING, bring_k)
            cost_d = dist_for(sp, dist, MADAME, bring_d)
            if cost_k is None or cost_d is None:
                continue
            if office_cost + cost_k + cost_d <= points:
                return ((OFFICE, 1), (KING, mine[KING] + bring_k), (MADAME, mine[MADAME] + bring_d))
        return None

    def _seal_level(self, view: PlayerView, room: int, seals: int, mine: list[int], priv_bonus: int) -> int:
        """Servants needed in ``room`` after moving so that with action 3b's bonus servants it holds ``seals``."""
        if seals == 0:
            return 0
        seat = view.seat
        counts = view.rooms[room]
        best_other = _best_other(counts, seat)
        for level in range(0, seals + 1):
            bonus = priv_bonus
            if level > best_other or (level == best_other and level > 0 and self._cardinal_wins(view)):
                bonus += 1
            if level + bonus >= seals:
                return level
        return seals

    def _cardinal_wins(self, view: PlayerView) -> bool:
        seat = view.seat
        card = view.rooms[CARDINAL]
        return all(card[seat] > c for s, c in enumerate(card) if s != seat)


# ---------------------------------------------------------------------------------------------- helpers


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


def dist_for(spare: list[int], dist: Distances, room: int, count: int) -> int | None:
    """Points to bring ``count`` servants into ``room`` from the nearest spare ones (``spare`` is consumed)."""
    cost = 0
    for _ in range(count):
        best, best_d = -1, 99
        for src in range(9):
            if spare[src] > 0 and src != room and dist[src][room] < best_d:
                best, best_d = src, dist[src][room]
        if best < 0:
            return None
        spare[best] -= 1
        cost += best_d
    return cost


def _fill(
    mine: list[int],
    wants: tuple[tuple[int, int], ...],
    keep: list[int],
    dist: Distances,
    points: int,
    moves: list[tuple[int, int, int]],
    target: list[int] | None = None,
) -> int:
    """Move servants into rooms until each holds what it wants, nearest spare servant first (the Gate's preferred),
    within the points. A servant is spare above ``keep`` (and, with ``target``, only above its standing level).
    Returns the points left."""
    for room, wanted in wants:
        while mine[room] < wanted and points > 0:
            best, best_d = -1, 99.0
            for src in range(9):
                if src == room:
                    continue
                floor = keep[src]
                if target is not None and src != GATE:
                    floor = max(floor, target[src])
                if mine[src] <= floor:
                    continue
                d = dist[src][room] - (0.5 if src == GATE else 0.0)
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
            if moves and moves[-1][0] == best and moves[-1][1] == room:
                moves[-1] = (best, room, moves[-1][2] + 1)
            else:
                moves.append((best, room, 1))
    return points
