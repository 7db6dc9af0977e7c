"""Palastgeflüster's chance events, for the luck correction (``core.luck``), and the value function that weighs them.

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

V is a logistic fitted on games of the root seeds reserved for fitting (``core.seeds``), with the command that made
it in ``luck_value.json`` beside this module.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Final

from palais_sim.core.luck import SETUP, ChanceEvent, digest_of, sampled_event, uniform_event
from palais_sim.core.portable_math import exp
from palais_sim.games.palastgefluester import rules
from palais_sim.games.palastgefluester.play import PgResult, continue_game
from palais_sim.games.palastgefluester.state import PgOptions, PgState

DEAL: Final = "deal"
DRAW: Final = "draw"
KING: Final = "king"
RESHUFFLE: Final = "reshuffle"
KINDS: Final = (SETUP, DEAL, DRAW, KING, RESHUFFLE)

SEAT_FEATURES: Final = (
    "points", "new_persons", "display", "hand", "repeats_in_hand", "own_colour_in_hand", "brown_in_hand",
    "blocked_in_hand",
)  # fmt: skip
PLAIN: Final = (
    "points_lead", "points_to_win", *SEAT_FEATURES[1:], *(f"others_{name}" for name in SEAT_FEATURES[1:]), "to_move",
)  # fmt: skip
FEATURES: Final = (*PLAIN, *(f"{name}_late" for name in PLAIN), "late")
# found through the package (a compiled module's __file__ is the shared library's, elsewhere)
MODEL = Path(str(resources.files("palais_sim.games.palastgefluester").joinpath("luck_value.json")))


def card_kind(state: PgState, card: int) -> tuple[int, int]:
    """What tells a card from another for play: its person and its colour."""
    comps = state.components
    return comps.person(card), comps.colour(card)


def seat_features(state: PgState, seat: int) -> list[float]:
    """What ``seat`` holds, in the order of ``SEAT_FEATURES``."""
    comps = state.components
    hand = state.hands[seat]
    shown = {comps.person(c) for c in state.displays[seat]}
    persons = [comps.person(c) for c in hand]
    new = set(persons) - shown - {state.blocked}
    return [
        float(state.points[seat]), float(len(new)), float(len(shown)), float(len(hand)),
        float(len(persons) - len(set(persons))), float(sum(1 for c in hand if comps.colour(c) == seat)),
        float(sum(1 for c in hand if comps.colour(c) < 0)), float(persons.count(state.blocked)),
    ]  # fmt: skip


def features(state: PgState, seat: int) -> list[float]:
    """The seat's lead in points over the best other seat and its points still to win; what it holds; the mean of
    what the other seats hold; whether it is the seat to play; all of these again scaled by how close the nearest
    seat is to winning (a deal decides more when a round can end the game), and that closeness."""
    rows = [seat_features(state, s) for s in range(state.n)]
    others = [row for s, row in enumerate(rows) if s != seat]
    mean = [sum(col) / len(others) for col in zip(*others, strict=True)]
    own = rows[seat]
    lead = own[0] - max(row[0] for row in others)
    target = float(state.components.points_to_win(state.n))
    plain = [lead, target - own[0], *own[1:], *mean[1:], 1.0 if state.current == seat else 0.0]
    late = 1.0 / max(1.0, target - max(row[0] for row in rows))  # 1 when a seat needs one point more
    return [*plain, *(x * late for x in plain), late]


class LuckValue:
    """V(state, seat): a logistic per seat of ``features`` (fitted on games of the seeds reserved for fitting,
    ``benchmarks/luck_fit_pg.py``, one fit per player count), the seats' chances scaled to sum to 1."""

    def __init__(self, path: Path = MODEL) -> None:
        self.text = path.read_text(encoding="utf-8")
        data = json.loads(self.text)
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: fitted on other features than today's {len(FEATURES)}: refit it")
        self.fits = {
            int(n): (float(fit["intercept"]), [float(w) for w in fit["weights"]]) for n, fit in data["players"].items()
        }

    def chance(self, state: PgState, seat: int) -> float:
        """The fitted logistic's win chance of ``seat`` alone."""
        intercept, weights = self.fits.get(state.n) or self.fits[min(self.fits, key=lambda n: abs(n - state.n))]
        z = intercept + sum(w * x for w, x in zip(weights, features(state, seat), strict=True))
        return 1.0 / (1.0 + exp(-max(-30.0, min(30.0, z))))

    def __call__(self, state: PgState, seat: int) -> float:
        chances = [self.chance(state, s) for s in range(state.n)]
        return chances[seat] / sum(chances)

    def digest(self) -> str:
        return digest_of({"model": self.text})


class PgChance:
    """The chance model (``core.luck.ChanceModel``) of Palastgeflüster games with one set of rule options."""

    kinds = KINDS

    def __init__(self, options: PgOptions) -> None:
        self.options = options

    def start(self, seed: int) -> PgState:
        return rules.new_game(self.options, seed)

    def event(self, state: PgState, kind: str, rng: random.Random) -> ChanceEvent:
        if kind in (SETUP, DEAL):
            return sampled_event(kind, rng)
        if kind == DRAW:
            return uniform_event(kind, [card_kind(state, c) for c in state.draw])
        if kind == KING:
            return uniform_event(kind, state.king_pile or state.kings_revealed)
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
                assert isinstance(outcome, int)
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

    def play(self, state: PgState, strategies: Sequence) -> tuple[PgResult, list[float]]:
        result = continue_game(state, strategies)
        return result, [s.win for s in result.seats]
