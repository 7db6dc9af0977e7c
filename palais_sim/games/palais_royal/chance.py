"""Palais Royal's chance events, for the luck correction (``core.luck``), and the value function that weighs them.

The events, in the order a game meets them:

- ``setup``: the layout (when random), the park's order and the deck's order, from the game's seed. Far too many
  outcomes to list: a sample of independent starts stands for the distribution (``core.luck``). The deck's order is
  hidden at the start, so only the layout and the park can move V here; the deck shows itself card by card.
- ``draw``: each card drawn at the Back entrance, uniform over the cards in the deck (drawing the top card of a
  shuffled deck is drawing uniformly without replacement). Cards of one kind are one outcome, with their count.
- ``reshuffle``: the discard pile shuffled into a new deck. Its order stays hidden until the draws reveal it, so it
  has one outcome and a term of zero: its luck is counted at the draws that follow.

The engine calls ``state.chance(state, kind)`` just before each draw and reshuffle (``rules._draw_card``); the hook is
None in every other game and never copied, so it costs one attribute test per card drawn.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from palais_sim.core.luck import SETUP, ChanceEvent, digest_of, sampled_event, uniform_event
from palais_sim.core.portable_math import exp, log
from palais_sim.games.palais_royal.components import ComponentSet
from palais_sim.games.palais_royal.leaf_value import MODEL, LeafValue
from palais_sim.games.palais_royal.play import PrResult, continue_game
from palais_sim.games.palais_royal.scoring import final_scores
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import GameState, RuleOptions

DRAW: Final = "draw"
RESHUFFLE: Final = "reshuffle"
KINDS: Final = (SETUP, DRAW, RESHUFFLE)

# What a card in hand is worth beyond being a card (the leaf value counts cards, not their kinds), in points: a point
# card scores its face instead of the 1 point of an unplayed card; gold4 nets gold; the rest give a turn's edge.
# Fixed by hand before any luck was measured; a point is worth POINT_LOGIT on the leaf value's logit scale (its
# 2-player weights of total + noble points, rounded).
CARD_WORTH: Final[dict[str, float]] = {"points4": 3.0, "points2": 1.0, "gold4": 1.0}
OTHER_CARD_WORTH: Final = 0.5
POINT_LOGIT: Final = 0.14


class LuckValue:
    """V(state, seat) for the luck correction: the shipped leaf value's win chance (``leaf_value.py``, fitted on its
    own seeds, see the note of 2026-11-28) with the cards just drawn counted in the drawer's hand, plus the worth of
    the seat's cards by kind against the best of the other seats'."""

    def __init__(self, leaf: LeafValue | None = None) -> None:
        self.leaf = leaf if leaf is not None else LeafValue.load()

    def __call__(self, state: GameState, seat: int) -> float:
        if state.drawn:
            state = state.copy()
            state.hands[state.current].extend(state.drawn)
            state.drawn = []
        p = self.leaf.win_chance(state, seat, final_scores(state))
        p = min(max(p, 1e-9), 1.0 - 1e-9)
        worth = [sum(CARD_WORTH.get(card, OTHER_CARD_WORTH) for card in hand) for hand in state.hands]
        edge = worth[seat] - max(w for s, w in enumerate(worth) if s != seat)
        z = log(p / (1.0 - p)) + POINT_LOGIT * edge
        return 1.0 / (1.0 + exp(-z))

    def digest(self) -> str:
        return digest_of(
            {
                "leaf_value": MODEL.read_text(encoding="utf-8"),
                "card_worth": CARD_WORTH,
                "other_card_worth": OTHER_CARD_WORTH,
                "point_logit": POINT_LOGIT,
            }
        )


class PrChance:
    """The chance model (``core.luck.ChanceModel``) of Palais Royal games of one component set and rule options."""

    kinds = KINDS

    def __init__(self, components: ComponentSet, options: RuleOptions) -> None:
        self.components = components
        self.options = options

    def start(self, seed: int) -> GameState:
        return new_game(self.components, self.options, seed)

    def event(self, state: GameState, kind: str, rng: random.Random) -> ChanceEvent:
        if kind == DRAW:
            return uniform_event(kind, state.deck)
        if kind == RESHUFFLE:
            return ChanceEvent(kind, ((None, 1.0),))
        if kind == SETUP:
            return sampled_event(kind, rng)
        raise ValueError(f"unknown chance event {kind!r}; known: {', '.join(KINDS)}")

    def actual(self, state: GameState, kind: str) -> object:
        if kind == DRAW:
            return state.deck[0]
        if kind == SETUP:
            return state.seed
        return None

    def after(self, state: GameState, kind: str, outcome: object) -> GameState:
        if kind == SETUP:
            assert isinstance(outcome, int)
            return self.start(outcome)
        new = state.copy()
        if kind == DRAW:
            assert isinstance(outcome, str)
            new.deck.remove(outcome)
            new.drawn.append(outcome)
        return new

    def play(self, state: GameState, strategies: Sequence) -> tuple[PrResult, list[float]]:
        result = continue_game(state, strategies)
        return result, [s.win for s in result.seats]
