"""Palastgeflüster's chance events, for the luck correction (``core.luck``), and a value function fixed by hand.

The events, in the order a game meets them:

- ``setup``: the first king-pile shuffle and the first deal, from the game's seed: a sample of independent starts
  stands for them (too many hands to list).
- ``deal``: each later deal (every round after the first), shuffled from every person card: sampled the same way.
- ``draw``: the card drawn after a Zofe discard, uniform over the draw pile; cards of one person and colour are one
  outcome, with their count.
- ``king``: the king card revealed by the Hofmarschall, uniform over the face-down king cards (over all of them when
  the pile is empty and they are shuffled anew: that shuffle is part of this event).
- ``reshuffle``: the Zofe's discards shuffled into an empty draw pile. Its order shows only at the draws that follow,
  so it has one outcome and a term of zero.

The engine calls ``state.chance(state, kind)`` just before each of these (``rules``); the hook is None in every
other game and never copied.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final

from palais_sim.core.luck import SETUP, ChanceEvent, digest_of, sample_seeds
from palais_sim.core.portable_math import exp
from palais_sim.games.palastgefluester import rules
from palais_sim.games.palastgefluester.play import PgResult, continue_game
from palais_sim.games.palastgefluester.state import PgOptions, PgState

DEAL: Final = "deal"
DRAW: Final = "draw"
KING: Final = "king"
RESHUFFLE: Final = "reshuffle"
KINDS: Final = (SETUP, DEAL, DRAW, KING, RESHUFFLE)

# V: each seat's strength is its points plus HAND_WEIGHT times its progress towards six different persons (the cards
# of its display and the new persons of its hand that are not blocked, over the six); the seats' win chances are a
# softmax of SHARPNESS times the strengths. Fixed by hand before any luck was measured.
HAND_WEIGHT: Final = 0.5
SHARPNESS: Final = 1.5


def card_kind(state: PgState, card: int) -> tuple[int, int]:
    """What tells a card from another for play: its person and its colour."""
    comps = state.components
    return comps.person(card), comps.colour(card)


class LuckValue:
    """V(state, seat): a softmax over the seats of points plus progress towards six different persons."""

    def __call__(self, state: PgState, seat: int) -> float:
        comps = state.components
        blocked = state.blocked
        strengths = []
        for s in range(state.n):
            shown = {comps.person(c) for c in state.displays[s]}
            new = {comps.person(c) for c in state.hands[s]} - shown - {blocked}
            progress = min(comps.different_to_end, len(shown) + len(new)) / comps.different_to_end
            strengths.append(state.points[s] + HAND_WEIGHT * progress)
        top = max(strengths)
        weights = [exp(SHARPNESS * (x - top)) for x in strengths]
        return weights[seat] / sum(weights)

    def digest(self) -> str:
        return digest_of({"value": "palastgefluester-hand-made", "hand_weight": HAND_WEIGHT, "sharpness": SHARPNESS})


class PgChance:
    """The chance model (``core.luck.ChanceModel``) of Palastgeflüster games with one set of rule options."""

    kinds = KINDS

    def __init__(self, options: PgOptions) -> None:
        self.options = options

    def start(self, seed: int) -> PgState:
        return rules.new_game(self.options, seed)

    def event(self, state: PgState, kind: str, rng: random.Random) -> ChanceEvent:
        if kind in (SETUP, DEAL):
            seeds = sample_seeds(rng)
            return ChanceEvent(kind, tuple((s, 1.0 / len(seeds)) for s in seeds), sampled=True)
        if kind == DRAW:
            return _uniform(kind, [card_kind(state, c) for c in state.draw])
        if kind == KING:
            return _uniform(kind, state.king_pile or state.kings_revealed)
        if kind == RESHUFFLE:
            return ChanceEvent(kind, ((None, 1.0),))
        raise ValueError(f"unknown chance event {kind!r}; known: {', '.join(KINDS)}")

    def actual(self, state: PgState, kind: str) -> object:
        if kind == SETUP:
            return state.seed
        if kind == DEAL:
            return None  # the engine's own deal: ``after`` deals it from the game's stream
        if kind == DRAW:
            return card_kind(state, state.draw[-1])
        if kind == KING:
            probe = state.copy()
            rules._reveal_king(probe)  # the engine's own reveal (and reshuffle) on a copy
            return probe.kings_revealed[-1]
        return None

    def after(self, state: PgState, kind: str, outcome: object) -> PgState:
        if kind == SETUP:
            assert isinstance(outcome, int)
            return self.start(outcome)
        new = state.copy()
        if kind == DEAL:
            if outcome is None:
                rules._deal(new)
            else:
                new.shuffles += 1
                rules.deal_cards(new, random.Random(outcome))
        elif kind == DRAW:
            card = next(c for c in reversed(new.draw) if card_kind(new, c) == outcome)
            new.draw.remove(card)
            new.hands[new.current].append(card)
        elif kind == KING:
            assert isinstance(outcome, int)
            if not new.king_pile:
                new.king_pile, new.kings_revealed = new.kings_revealed, []
                new.king_shuffles += 1
            new.king_pile.remove(outcome)
            new.kings_revealed.append(outcome)
        return new

    def attach(self, state: PgState, hook: Callable[[PgState, str], None] | None) -> None:
        state.chance = hook

    def play(self, state: PgState, strategies: Sequence) -> tuple[PgResult, list[float]]:
        result = continue_game(state, strategies)
        return result, [s.win for s in result.seats]


def _uniform(kind: str, items: Sequence) -> ChanceEvent:
    """An event drawing one of ``items`` uniformly: equal items are one outcome with their count."""
    counts = Counter(items)
    return ChanceEvent(kind, tuple((item, n / len(items)) for item, n in sorted(counts.items())))
