"""The shared heuristic behind ``greedy`` and the named styles: plan one turn around a target noble.

Every style is this class with other weights and, where its plan asks for it, a valuation or standing list of its
own (see ``strategies/palais_royal/styles.py``). A turn goes:

- cards(start): all_majorities when it adds enough bonuses, free_reinforce with a large supply,
  reinforce2_move6 when the plan needs movement; gold4 whenever gold is short for the plan.
- reinforce: every servant the supply can give.
- cards(move) + move: pick the best noble the seat can bring together *this* turn (gold after the Mint, seals after
  the majority bonuses, an Office servant), move the servants it needs, then spend what points are left towards a
  *standing distribution* (a priority list of (room, level) pairs built from the weights), filled in priority order:
  a servant above its room's standing level first, else one only a later level holds; one too far for this turn
  goes part of the way. The engine rooms are never drained below their standing level while planning a noble.
- no stalls, as planning (``reach_plan``, ``turn_plan``): a bonus servant of action 3b (a majority, king_plus1,
  madame_plus1) counts only if a new servant can come for it (the supply, or with the supply empty a room the seal
  decision will give up: a spare servant, a seal room's servants beyond what the noble asks, the engine rooms'
  reserve), and the move keeps those sources in place. If nothing is reachable and the supply is empty (so waiting
  changes nothing), the engine rooms' servants become spare down to their reserve: a standing distribution that
  never becomes reachable does not freeze its servants. The lifelines are never spent before the last round: the
  last Stairway servant (without one nothing ever moves again) and the last Parade ground servant (unless a noble
  brings servants out of the supply). An edge noble's servant is gone for good: with few servants left in play it
  costs value. With the supply empty any recruitment is worth it (only a recruitment refills it).
- seals: the bonus servants the turn's best noble still needs first (from the sources the plan counted), then every
  other one the supply gives, and from rooms only up to the seal room's standing level (never more than a seal
  room at 5 holds from the supply alone).
- cards(recruit) + recruit: two_seals and gold4 when they make a better noble affordable; recruit the best noble
  while the Office allows.
- keep: the most valuable drawn cards; cards(end): point cards when affordable, everything sensible in the last
  round (an unplayed card is worth 1 point, at most 6).
- endgame (the last round, or the one before it is likely): the standing distribution becomes seals and a second
  and third Office servant for as many recruitments as possible (a Mint servant while the gold is short of the
  dearest noble; a style with a Back entrance servant keeps one drawing); in the last turn spare servants go to the
  Back entrance, each card kept being a point.

Speed matters (greedy is the benchmark workload): the per-decision work is a few loops over the 36 park fields and
the 9 rooms, no copies of the state and no enumeration of options.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from palais_sim.games.palais_royal import cards
from palais_sim.games.palais_royal.board import (
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
from palais_sim.games.palais_royal.rules import END_TRIGGER_NOBLES as END_TRIGGER
from palais_sim.games.palais_royal.rules import Decision, noble_cost
from palais_sim.games.palais_royal.state import P_DIAGONAL, P_KING, P_MADAME, P_MOVE, P_REINFORCE
from palais_sim.games.palais_royal.view import PlayerView

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
# A privilege is worth its full PRIVILEGE_VALUE with this many of the seat's turns to come, proportionally less with
# fewer: it pays per turn, and a game lasts about 13 rounds (at 8 the engine nobles crowded out the point nobles,
# which the game's end by noble count makes the scarce resource).
PRIVILEGE_HORIZON: Final = 12.0
MAJORITY_ROOMS: Final = (PARADE, STAIRWAY, MINT, KING, MADAME)
# Below this many servants in the supply and the rooms an edge noble's servant (gone for good) is a loss.
SERVANTS_NEEDED: Final = 8
# At this many or fewer a seat cannot spare one at all: an edge noble is then worth this much less (and is not worth
# recruiting even with an empty supply; unless it brings the end of the game).
SERVANTS_LAST: Final = 5
NO_SERVANT_TO_SPARE: Final = -20.0


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

# The ranges `palais tune` searches (whole numbers where the default is one); the switch majority_chase is not tuned.
TUNING_SPACE: Final[dict[str, tuple[float, float]]] = {
    "parade": (1, 5),
    "stairway": (2, 7),
    "mint": (0, 4),
    "stock": (1, 5),
    "office": (1, 2),
    "back": (0, 2),
    "cardinal": (0, 2),
    "gold_weight": (0.0, 1.0),
    "seal_weight": (0.0, 1.5),
    "edge_bonus": (0.0, 3.0),
    "park_weight": (0.0, 2.0),
    "privilege_weight": (0.0, 2.0),
    "card_weight": (0.5, 2.5),
    "card_aggression": (0, 4),
    "park_denial": (0.0, 2.0),
    "late_engine": (1, 5),
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

    @classmethod
    def tuning_space(cls) -> dict[str, tuple[float, float]]:
        """The numeric parameters `palais tune` searches, with their ranges."""
        return dict(TUNING_SPACE)

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
            # One servant in each engine room first: without a Parade ground servant nothing comes out of the
            # supply, without a Stairway servant nothing moves (a seat with few servants left keeps both).
            (PARADE, min(1, p)),
            (STAIRWAY, min(1, s)),
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
        standing = self.endgame_list(view) if self.is_late(view) else self._standing
        if not view.final_round and self.gold_starved(view):
            # No gold coming and too little for any noble: a Mint servant right after the Office's.
            return standing[:1] + ((MINT, 1),) + standing[1:]
        return standing

    def gold_starved(self, view: PlayerView) -> bool:
        """Whether the seat has no gold income and less money than the cheapest noble in the park costs."""
        if view.mint_income() > 0:
            return False
        money = view.money()
        park = view.park
        nobles = view.components.nobles
        for field in range(36):
            code = park[field]
            if code >= 0 and noble_cost(park, field, nobles[code].gold) <= money:
                return False
        return True

    def endgame_list(self, view: PlayerView) -> tuple[tuple[int, int], ...]:
        """Near the end: seals and Office servants for as many recruitments as possible; in the last turn the
        servants left over go to the Back entrance, since every card kept is a point (up to 6 in hand)."""
        cards_room = max(0, 6 - len(view.hand)) if view.final_round else 0
        # Before the last round the engine still has to run (the end may take longer than it looks).
        engine = 0 if view.final_round else 1
        # Gold for the dearest noble (6): short of it, the Mint still has to pay (the end may be far off yet).
        mint = engine if view.money() < 6 else 0
        # A style that draws cards keeps its Back entrance servant drawing to the end: every card in hand is a point
        # (up to 6), and a point card drawn late is still played.
        back = 1 if self.back > 0 and len(view.hand) < 6 else 0
        order = (
            (OFFICE, 1),
            (PARADE, engine),
            (STAIRWAY, engine),
            (MINT, mint),
            # A second Office servant before the engine's surplus: the last round's nobles need recruitments.
            (OFFICE, 2),
            (PARADE, max(1, self.late_engine - 1) * engine),
            (STAIRWAY, self.late_engine * engine),
            (BACK, back),
            (KING, 2),
            (MADAME, 2),
            (KING, 3),
            (MADAME, 3),
            (OFFICE, 3),
            (BACK, min(cards_room, 2)),
            (KING, 4),
            (MADAME, 4),
            (BACK, cards_room),
            (CARDINAL, self.cardinal + 1),
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
        """Every bonus servant a new servant can be found for: first those the best noble of this turn still
        needs (from the sources ``reach_plan`` counted: a seal room may give up what the noble does not ask), then
        the rest from the supply, the Gate, spare servants and the engine rooms' reserve. A seal room holding 5
        (more than any noble asks) takes new servants only from the supply."""
        seat = view.seat
        supply = view.supply[seat]
        king, madame = decision.king_max, decision.madame_max
        if supply >= king + madame:
            return (king, madame, ())
        mine = view.my_rooms()
        target = self.standing_target(view, sum(mine))
        protect = [0] * 9
        want_k = want_d = 0
        found = self.turn_plan(view, mine, target, view.distances(), 0, view.money())
        keep = self.standing_keep(view, mine, target) if found is None else found[1]
        if found is not None:
            plan = found[0]
            protect[KING], protect[MADAME] = plan[2], plan[3]
            want_k = max(0, plan[2] - mine[KING])
            want_d = max(0, plan[3] - mine[MADAME])
            wild = view.wild
            if wild == 0 and view.components.card_prices["two_seals"] <= view.money():
                wild = 2 * view.hand.count("two_seals")
            use_d = min(wild, want_d)
            want_d -= use_d
            want_k = max(0, want_k - (wild - use_d))
            want_k, want_d = min(want_k, king), min(want_d, madame)
        if mine[KING] >= 5:
            king = max(want_k, min(king, supply))
        if mine[MADAME] >= 5:
            madame = max(want_d, min(madame, max(0, supply - king)))
        # The engine gives the King's new servants the supply first, then takes the rooms named, in order.
        supply_k = min(supply, king)
        supply_d = min(madame, supply - supply_k)
        wanted_k = max(0, want_k - supply_k)
        wanted_d = max(0, want_d - supply_d)
        work = mine[:]
        src_wk = self.seal_sources(view, work, keep, protect, KING, wanted_k, True)
        src_wd = self.seal_sources(view, work, keep, protect, MADAME, wanted_d, True)
        # Beyond what the noble needs, servants come out of rooms only up to the seal room's standing level (above
        # it the standing distribution would move them out again).
        room_k = max(0, target[KING] - mine[KING] - supply_k - wanted_k)
        room_d = max(0, target[MADAME] - mine[MADAME] - supply_d - wanted_d)
        extra_k = min(max(0, king - supply_k) - wanted_k, room_k)
        extra_d = min(max(0, madame - supply_d) - wanted_d, room_d)
        king = supply_k + wanted_k + extra_k
        madame = supply_d + wanted_d + extra_d
        src_ek = self.seal_sources(view, work, keep, protect, KING, extra_k, False)
        src_ed = self.seal_sources(view, work, keep, protect, MADAME, extra_d, False)
        # Fewer where no source was found (the supply stays the King's first: he had more than it).
        king -= wanted_k + extra_k - len(src_wk) - len(src_ek)
        madame -= wanted_d + extra_d - len(src_wd) - len(src_ed)
        return (king, madame, tuple(src_wk + src_ek + src_wd + src_ed))

    def seal_sources(
        self,
        view: PlayerView,
        mine: list[int],
        keep: list[int],
        protect: list[int],
        into: int,
        count: int,
        cross: bool,
    ) -> list[int]:
        """Up to ``count`` rooms to take new servants from for ``into`` (``mine`` is consumed): the Gate, the
        engine rooms' servants above what the plan keeps (``keep``), with ``cross`` the other seal room's servants
        beyond what the noble asks (``protect``), then the reserve of ``reserve_floors``. The Office keeps one
        servant; ``into`` is never a source."""
        sources: list[int] = []
        if count <= 0:
            return sources
        stages: list[tuple[int, int]] = [(GATE, 0)]
        for room in (BACK, CARDINAL, PARADE, MINT, STAIRWAY):
            stages.append((room, keep[room]))
        stages.append((OFFICE, 1))
        if cross:
            stages.append((KING, protect[KING]))
            stages.append((MADAME, protect[MADAME]))
        for stage in self.reserve_floors(view):
            stages.append(stage)
        for room, floor in stages:
            if room == into:
                continue
            while mine[room] > floor and len(sources) < count:
                sources.append(room)
                mine[room] -= 1
            if len(sources) == count:
                break
        return sources

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
        if best_score < self.recruit_floor(view, turns):
            return None
        return best

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
        moves: list[tuple[int, int, int]] = []
        unmet = 0
        found = self.turn_plan(view, mine, target, dist, points, view.money() + view.mint_income())
        # What the standing distribution may not take: the lifelines, then the plan's servants.
        locked = [0] * 9
        self.keep_lifelines(view, mine, locked)
        if found is not None:
            plan, keep = found
            wants = ((OFFICE, 1), (KING, plan[0]), (MADAME, plan[1]))
            for r, lvl in wants:
                keep[r] = max(keep[r], min(mine[r], lvl))
            points = _fill(mine, wants, keep, dist, points, moves)
            unmet = sum(max(0, lvl - mine[r]) for r, lvl in wants)
            for r, lvl in wants:
                locked[r] = max(locked[r], min(mine[r], lvl))
            if plan[4] > 0:
                # The plan counts on new servants from rooms at the seal decision: those servants stay where they
                # are (the ones ``seal_sources`` will take, in its order).
                work = mine[:]
                protect = [0] * 9
                protect[KING], protect[MADAME] = plan[2], plan[3]
                for r in self.seal_sources(view, work, keep, protect, -1, plan[4], True):
                    locked[r] = min(mine[r], max(locked[r], keep[r] if r != GATE else 0) + 1)
        if points > 0:
            standing = own = self.standing_for(view)
            if self.majority_chase and not view.final_round:
                # After the Office servant: the Office is what turns seals into nobles.
                standing = standing[:1] + self.majority_wants(view, mine) + standing[1:]
            # In priority order; a level reached is locked for the levels after it.
            for room, level in standing:
                if points <= 0:
                    break
                want = min(level, target[room]) if (room, level) in own else level
                if mine[room] < want:
                    points = _fill(mine, ((room, want),), locked, dist, points, moves, target)
                locked[room] = max(locked[room], min(mine[room], want))
        return moves, unmet

    def has_target(self, view: PlayerView, points: int, diagonal: bool) -> bool:
        """Whether some noble can be brought together this turn with ``points`` movement points."""
        mine = view.my_rooms()
        target = self.standing_target(view, sum(mine))
        dist = view.layout.distances(diagonal)
        return self.turn_plan(view, mine, target, dist, points, view.money() + view.mint_income()) is not None

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

    def standing_keep(self, view: PlayerView, mine: list[int], target: list[int]) -> list[int]:
        """Servants the engine rooms keep while planning a noble: up to their standing level, and never below
        the lifelines."""
        keep = [0] * 9
        for r in (PARADE, STAIRWAY, MINT, BACK, CARDINAL):
            keep[r] = min(mine[r], target[r])
        self.keep_lifelines(view, mine, keep)
        return keep

    def relaxed_keep(self, view: PlayerView, mine: list[int]) -> list[int]:
        """What the engine rooms keep when the standing distribution reaches no noble and the supply is empty (so
        no new servant comes): the engine rooms' reserve floors and the lifelines."""
        keep = [0] * 9
        for room, floor in self.reserve_floors(view):
            keep[room] = min(mine[room], floor)
        self.keep_lifelines(view, mine, keep)
        return keep

    def keep_lifelines(self, view: PlayerView, mine: list[int], keep: list[int]) -> None:
        """Before the last round a seat keeps its last Stairway servant unless a move_plus2 noble moves for it (a
        servant enters the Stairway only by moving: without one nothing ever moves again), and its last Parade
        ground servant unless a noble brings servants out of the supply (see ``reserve_floors``)."""
        if view.final_round:
            return
        priv = view.priv[view.seat]
        if priv[P_MOVE] == 0:
            keep[STAIRWAY] = max(keep[STAIRWAY], min(mine[STAIRWAY], 1))
        if priv[P_REINFORCE] + priv[P_KING] + priv[P_MADAME] == 0:
            keep[PARADE] = max(keep[PARADE], min(mine[PARADE], 1))

    def turn_plan(
        self, view: PlayerView, mine: list[int], target: list[int], dist: Distances, points: int, gold: int
    ) -> tuple[tuple[int, int, int, int, int], list[int]] | None:
        """The best noble reachable this turn (``reach_plan``) and the engine levels the plan keeps.

        First with the engine rooms at their standing levels; if that reaches no noble and the supply is empty
        (reinforcement brings nothing, so waiting changes nothing), with the engine rooms down to their reserve:
        a standing distribution that never becomes reachable must not freeze the servants it holds."""
        keep = self.standing_keep(view, mine, target)
        plan = self.reach_plan(view, mine, dist, points, keep, gold)
        if plan is not None:
            return plan, keep
        if view.supply[view.seat] > 0:
            return None
        keep = self.relaxed_keep(view, mine)
        plan = self.reach_plan(view, mine, dist, points, keep, gold)
        if plan is not None:
            return plan, keep
        return None

    def reach_plan(
        self, view: PlayerView, mine: list[int], dist: Distances, points: int, keep: list[int], gold: int
    ) -> tuple[int, int, int, int, int] | None:
        """The best noble this turn's ``points`` can bring together, as ``(king, madame, turquoise, violet,
        from_rooms)``: the levels to reach by moving, the seals the noble asks and how many of the new servants it
        counts on must come out of rooms; None if no noble is reachable.

        Action 3b's bonus servants (a majority, king_plus1 / madame_plus1) count only as far as a new servant can
        come for each of them: from the supply, or, with the supply empty, from a room the seal decision gives up
        (``seal_sources``: spare servants the move leaves, a seal room's servants beyond what the noble asks, the
        reserve of the engine rooms), never from the servants the plan itself keeps."""
        seat = view.seat
        nobles = view.components.nobles
        park = view.park
        wild = view.wild
        if wild == 0 and view.components.card_prices["two_seals"] <= gold:
            wild = 2 * view.hand.count("two_seals")  # played in the recruit window, if it can be paid for
        turns = self.turns_left(view)
        strengths = self.row_strengths(view)
        # What can be brought: spare servants with their distance to each of the three rooms.
        spare = [mine[r] - keep[r] if r not in (OFFICE, KING, MADAME) else 0 for r in range(9)]
        spare[STAIRWAY] = max(0, spare[STAIRWAY])
        k_bonus = view.priv[seat][P_KING]
        d_bonus = view.priv[seat][P_MADAME]
        supply = view.supply[seat]
        # Bonus servants are short only when the supply cannot give them all (2: the two majorities).
        short = supply < k_bonus + d_bonus + 2
        reserve = self.seal_reserve(view, keep) if short else 0
        office_need = 0 if mine[OFFICE] > 0 else 1
        office_cost = dist_for(spare[:], dist, OFFICE, office_need) if office_need else 0
        if office_cost is None:
            return None
        floor = self.recruit_floor(view, turns)
        candidates: list[tuple[float, int]] = []
        for field in range(36):
            code = park[field]
            if code < 0:
                continue
            noble = nobles[code]
            cost = noble_cost(park, field, noble.gold)
            if cost > gold:
                continue
            value = self.noble_value(view, field, strengths, turns)
            score = self.noble_score(value, cost, noble.violet + noble.turquoise)
            if score >= floor:
                candidates.append((score, code))
        candidates.sort(key=lambda c: -c[0])
        if not short:
            # Plenty of servants: the best few decide (speed); short of them, any noble that can be reached.
            candidates = candidates[:8]
        for _score, code in candidates:
            noble = nobles[code]
            violet, turquoise = noble.violet, noble.turquoise
            caps: list[tuple[int, int]] = [(99, 99)]
            if short:
                # Most bonus servants first; fewer when no source can be found for them.
                caps = [(ck, cd) for ck in range(k_bonus + 1, -1, -1) for cd in range(d_bonus + 1, -1, -1)]
                caps.sort(key=lambda c: -(c[0] + c[1]))
            for cap_k, cap_d in caps:
                need_k = self._seal_level(view, KING, turquoise, mine, k_bonus, cap_k)
                need_d = self._seal_level(view, MADAME, violet, mine, d_bonus, cap_d)
                bring_k = max(0, need_k - mine[KING])
                bring_d = max(0, need_d - mine[MADAME])
                # Wild seals (two_seals) replace the servants dearest to bring.
                w = min(wild, bring_k + bring_d)
                wk = 0
                if w:
                    wk = min(w, bring_k) if dist[GATE][KING] >= dist[GATE][MADAME] else w - min(w, bring_d)
                    bring_k, bring_d = bring_k - wk, bring_d - (w - wk)
                sp = spare[:]
                # A seal room's servants beyond what this noble asks may move, or be given up for the other room.
                sp[KING] = max(0, mine[KING] - turquoise)
                sp[MADAME] = max(0, mine[MADAME] - violet)
                if office_need:
                    dist_for(sp, dist, OFFICE, office_need)
                cost_k = dist_for(sp, dist, KING, bring_k)
                cost_d = dist_for(sp, dist, MADAME, bring_d)
                if cost_k is None or cost_d is None or office_cost + cost_k + cost_d > points:
                    continue
                # The levels after the move: what was brought in, less the surplus moved out to the other room.
                level_k = mine[KING] + bring_k - (max(0, mine[KING] - turquoise) - sp[KING])
                level_d = mine[MADAME] + bring_d - (max(0, mine[MADAME] - violet) - sp[MADAME])
                from_rooms = 0
                if short:
                    wild_left = wild - w
                    new_k = max(0, turquoise - wk - level_k)
                    new_d = max(0, violet - (w - wk) - level_d)
                    extra_k = min(wild_left, new_k)
                    new_k, new_d = new_k - extra_k, max(0, new_d - (wild_left - extra_k))
                    pool = supply + reserve + sum(sp)
                    if new_k + new_d > pool or new_k > pool - sp[KING] or new_d > pool - sp[MADAME]:
                        continue
                    from_rooms = max(0, new_k + new_d - supply)
                return (level_k, level_d, turquoise, violet, from_rooms)
        return None

    def seal_reserve(self, view: PlayerView, keep: list[int]) -> int:
        """Servants the seal decision may give up below the standing levels (``seal_sources``' last resort)."""
        total = 0
        for room, floor in self.reserve_floors(view):
            total += max(0, keep[room] - floor)
        return total

    def reserve_floors(self, view: PlayerView) -> tuple[tuple[int, int], ...]:
        """With the supply empty the Parade ground reinforces nothing, so its servants are the cheapest new
        servants (one stays, to bring back the servants a recruitment returns, unless a noble does: reinforce_plus2,
        king_plus1, madame_plus1); a seal servant also beats a Mint servant when gold is plenty, a Cardinal or a
        Back entrance one."""
        priv = view.priv[view.seat]
        parade = 0 if priv[P_REINFORCE] + priv[P_KING] + priv[P_MADAME] > 0 else 1
        return ((PARADE, parade), (MINT, 0 if view.gold[view.seat] >= 8 else 1), (CARDINAL, 0), (BACK, 0))

    def _seal_level(
        self, view: PlayerView, room: int, seals: int, mine: list[int], priv_bonus: int, cap: int = 99
    ) -> int:
        """Servants needed in ``room`` after moving so that with action 3b's bonus servants (at most ``cap``, the
        ones a new servant can be found for) it holds ``seals``."""
        if seals == 0:
            return 0
        seat = view.seat
        counts = view.rooms[room]
        best_other = _best_other(counts, seat)
        for level in range(0, seals + 1):
            bonus = priv_bonus
            if level > best_other or (level == best_other and level > 0 and self._cardinal_wins(view)):
                bonus += 1
            if level + min(bonus, cap) >= seals:
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
    within the points. A servant is spare above ``keep``. With ``target`` (the standing distribution, filled in
    priority order): a servant above its room's standing level first; if none is in reach, one that only a later
    level holds; if none, the nearest goes part of the way. Returns the points left."""
    for room, wanted in wants:
        while mine[room] < wanted and points > 0:
            best = _nearest(mine, room, keep, target, dist, points)
            if best < 0 and target is not None:
                best = _nearest(mine, room, keep, None, dist, points)
            if best < 0:
                if target is not None:
                    far = _nearest(mine, room, keep, target, dist, 99)
                    if far >= 0:
                        # Too far for this turn: part of the way, so that the servant gets there next turn.
                        points = _part_way(mine, far, room, dist, points, moves)
                break
            mine[best] -= 1
            mine[room] += 1
            points -= dist[best][room]
            if moves and moves[-1][0] == best and moves[-1][1] == room:
                moves[-1] = (best, room, moves[-1][2] + 1)
            else:
                moves.append((best, room, 1))
    return points


def _nearest(mine: list[int], room: int, keep: list[int], target: list[int] | None, dist: Distances, limit: int) -> int:
    """The room of the nearest servant above ``keep`` (and ``target``, the Gate excepted) within ``limit`` points of
    ``room`` (the Gate preferred by half a point), or -1."""
    best, best_d = -1, 99.0
    for src in range(9):
        if src == room or dist[src][room] > limit:
            continue
        floor = keep[src]
        if target is not None and src != GATE and target[src] > floor:
            floor = target[src]
        if mine[src] <= floor:
            continue
        d = dist[src][room] - (0.5 if src == GATE else 0.0)
        if d < best_d:
            best, best_d = src, d
    return best


def _part_way(
    mine: list[int], src: int, room: int, dist: Distances, points: int, moves: list[tuple[int, int, int]]
) -> int:
    """Move one servant from ``src`` as far as ``points`` allow along a shortest way to ``room``."""
    best, best_d = -1, 0
    full = dist[src][room]
    for mid in range(9):
        d = dist[src][mid]
        if mid != src and mid != room and d <= points and d + dist[mid][room] == full and d > best_d:
            best, best_d = mid, d
    if best < 0:
        return points
    mine[src] -= 1
    mine[best] += 1
    moves.append((src, best, 1))
    return points - best_d
