"""The heuristic's planning: the standing distribution of servants, the turn plan around the best reachable noble,
the moves that carry it out and the rooms the seal decision takes new servants from."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from palais_sim.games.palais_royal.board import BACK, CARDINAL, GATE, KING, MADAME, MINT, OFFICE, PARADE, STAIRWAY
from palais_sim.games.palais_royal.rules import END_TRIGGER_NOBLES as END_TRIGGER
from palais_sim.games.palais_royal.rules import noble_cost
from palais_sim.games.palais_royal.state import P_KING, P_MADAME, P_MOVE, P_REINFORCE
from palais_sim.games.palais_royal.view import PlayerView
from strategies.palais_royal.budget_moves import Distances, dist_for, fill
from strategies.palais_royal.valuation import Valuation, _best_other


@mypyc_attr(allow_interpreted_subclasses=True)
class Planning(Valuation):
    """Plans a turn: where servants stand, which noble to bring together, how to move there."""

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
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
            points = fill(mine, wants, keep, dist, points, moves)
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
            # Whether each entry is one of the seat's own standing levels (capped by the target) or a majority
            # chase's that the standing list does not hold (as it is): worked out once, not by a tuple search per
            # entry (a tenth of a compiled game went into those).
            capped: list[bool] | None = None
            if self.majority_chase and not view.final_round:
                # After the Office servant: the Office is what turns seals into nobles.
                chase = self.majority_wants(view, mine)
                head, rest = own[:1], own[1:]
                standing = head + chase + rest
                capped = [True] * len(head) + [want in own for want in chase] + [True] * len(rest)
            # In priority order; a level reached is locked for the levels after it.
            for i, (room, level) in enumerate(standing):
                if points <= 0:
                    break
                want = min(level, target[room]) if capped is None or capped[i] else level
                if mine[room] < want:
                    points = fill(mine, ((room, want),), locked, dist, points, moves, target)
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
        candidates: list[tuple[float, int, int]] = []
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
                candidates.append((-score, field, code))
        candidates.sort()  # best first, the park's order among equals (no key function: a Python call per item)
        if not short:
            # Plenty of servants: the best few decide (speed); short of them, any noble that can be reached.
            candidates = candidates[:8]
        for _score, _field, code in candidates:
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
