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

One job per module, each a class of the chain this one ends (mypyc compiles single inheritance only):
``tuning_space`` (the parameters and the ranges `palais tune` searches) <- ``valuation`` (what a noble is worth) <-
``planning`` (the standing distribution, the turn plan, the moves; ``budget_moves`` moves the servants) <-
``card_play`` (cards to play and to keep) <- ``HeuristicStrategy`` here (the answer to each decision).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from palais_sim.games.palais_royal.board import GATE, KING, MADAME
from palais_sim.games.palais_royal.rules import Decision, noble_cost
from palais_sim.games.palais_royal.view import PlayerView
from strategies.palais_royal.budget_moves import Distances, dist_for
from strategies.palais_royal.budget_moves import fill as _fill  # strategies.palais_royal.ismcts moves with it
from strategies.palais_royal.card_play import CARD_VALUE, CardPlay
from strategies.palais_royal.tuning_space import HEURISTIC_DEFAULTS, TUNING_SPACE
from strategies.palais_royal.valuation import _best_other

# The names other modules imported from here before the heuristic was split by job.
__all__ = [
    "CARD_VALUE", "HEURISTIC_DEFAULTS", "TUNING_SPACE", "Distances", "HeuristicStrategy", "_best_other", "_fill",
    "dist_for",
]  # fmt: skip


@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicStrategy(CardPlay):
    """Plans each turn around the best noble it can bring together, over a standing distribution of servants."""

    name = "heuristic"

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
