"""A complete strategy of your own: greedy's movement, your own choice of nobles and of point cards.

Run it from the repository root against the built-ins:
    palais play --strategies examples.my_strategy:MyStrategy,greedy
    palais ladder --strategies examples.my_strategy:MyStrategy:min_points=5,greedy,cards --games 100
"""

from palais_sim.strategy import Decision, PlayerView
from strategies.palais_royal.greedy import GreedyStrategy


class MyStrategy:
    """Recruits the noble with the most points; plays point cards at once; greedy for the rest."""

    name = "my_strategy"

    def __init__(self, min_points: int = 4) -> None:
        self.min_points = min_points  # below this, wait for a better noble (except in the last round)
        self.helper = GreedyStrategy()

    def choose(self, view: PlayerView, decision: Decision) -> object:
        if decision.kind == "recruit":
            nobles = view.components.nobles
            affordable = [f for f in view.noble_fields() if view.can_recruit(f, decision.wild_seals)]
            best = max(affordable, key=lambda f: nobles[view.park[f]].points, default=None)
            if best is None or (nobles[view.park[best]].points < self.min_points and not view.final_round):
                return None  # stop recruiting this turn
            return best  # a park field; the engine spends wild seals where they are needed
        if decision.kind == "cards":
            gold, play = view.gold[view.seat], []
            for card in decision.playable:  # the cards of the hand allowed in this window
                price = view.components.card_prices[card]
                if card in ("points2", "points4") and price <= gold:
                    play.append(card)
                    gold -= price
            return play
        return self.helper.choose(view, decision)  # reinforce, move, seals, keep, setup
