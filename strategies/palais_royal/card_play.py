"""The heuristic's card play: which privilege cards to play in each window, and which drawn cards to keep."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from palais_sim.games.palais_royal import cards
from palais_sim.games.palais_royal.board import GATE, KING, MADAME, MINT, OFFICE, PARADE, STAIRWAY
from palais_sim.games.palais_royal.rules import Decision, noble_cost
from palais_sim.games.palais_royal.state import P_DIAGONAL
from palais_sim.games.palais_royal.view import PlayerView
from strategies.palais_royal.planning import Planning

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


@mypyc_attr(allow_interpreted_subclasses=True)
class CardPlay(Planning):
    """Plays and keeps privilege cards for the turn plan."""

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
