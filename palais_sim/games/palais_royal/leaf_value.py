"""A cheap value of an unfinished position for search, by two logistic models per player count fitted on self-play
(``benchmarks/fit_leaf_value.py`` writes ``leaf_value.json`` beside this module):

- ``win_chance``: the chance that a seat wins from here (``settle`` calls a game on it);
- ``worth``: the expected reward of playing the game out from here (``PrTurns.reward``: 0.7 for the win, 0.3 for a
  logistic of the final score margin), which a rollout cut after ``horizon`` rounds counts instead.

The score "as if the game ended now" misjudges a position (a seat that has just spent its gold on servants is behind
on points but ahead on the game). The features are the seat's differences to the best other seat in everything a
seat owns (its points by source, gold, servants in each room and in its supplies, cards, nobles, privileges), each
also scaled by how close the end is (the end comes when 12 nobles are left in the park), so a lead counts for more
late in the game; and whose turn it is and the seat's place at the table.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from palais_sim.core.portable_math import exp
from palais_sim.games.palais_royal.board import ROOM_KEYS
from palais_sim.games.palais_royal.components import PRIVILEGES
from palais_sim.games.palais_royal.rules import END_TRIGGER_NOBLES
from palais_sim.games.palais_royal.scoring import SeatScore, final_scores
from palais_sim.games.palais_royal.state import GameState

SEAT_COUNTS: tuple[str, ...] = (
    "noble_points", "cards_played", "cards_unplayed", "park_points", "total", "gold", "supply", "general", "hand",
    "nobles", *(f"room_{key}" for key in ROOM_KEYS), *(f"privilege_{key}" for key in PRIVILEGES),
)  # fmt: skip
FEATURES: tuple[str, ...] = (
    *SEAT_COUNTS, *(f"{name}_late" for name in SEAT_COUNTS), "to_move", "seat", "to_move_late", "late", "final_round",
)  # fmt: skip
HEADS = ("win", "worth")
# found through the package (a compiled module's __file__ is the shared library's, elsewhere)
MODEL = Path(str(resources.files("palais_sim.games.palais_royal").joinpath("leaf_value.json")))


def seat_counts(state: GameState, seat: int, score: SeatScore) -> list[float]:
    """What ``seat`` owns, in the order of ``SEAT_COUNTS``."""
    out = [
        float(score.nobles), float(score.cards_played), float(score.cards_unplayed), float(score.park),
        float(score.total), float(state.gold[seat]), float(state.supply[seat]), float(state.general[seat]),
        float(len(state.hands[seat])), float(len(state.nobles[seat])),
    ]  # fmt: skip
    for row in state.rooms:
        out.append(float(row[seat]))
    for count in state.priv[seat]:
        out.append(float(count))
    return out


def features(state: GameState, seat: int, scores: list[SeatScore] | None = None) -> list[float]:
    """The seat's differences to the best other seat (by score now) in ``SEAT_COUNTS``, plain and scaled by
    closeness to the end; whether it is the seat to move (plain and scaled), the closeness itself, its place at the
    table (0 for seat 1, 1 for the last) and whether the last round has begun. ``scores``: the state's
    ``final_scores`` when the caller has them already."""
    scores = final_scores(state) if scores is None else scores
    other = -1
    for s in scores:
        if s.seat != seat and (other < 0 or s.total > scores[other].total):
            other = s.seat
    late = 1.0 / max(1, state.nobles_left - END_TRIGGER_NOBLES)
    own, theirs = seat_counts(state, seat, scores[seat]), seat_counts(state, other, scores[other])
    diff = [a - b for a, b in zip(own, theirs, strict=True)]
    to_move = 1.0 if state.current == seat else 0.0
    return [
        *diff, *[d * late for d in diff], to_move, seat / max(1, state.n - 1), to_move * late, late,
        1.0 if state.final_round else 0.0,
    ]  # fmt: skip


class Logistic:
    """One fitted head: ``intercept + weights . features`` through the logistic."""

    def __init__(self, intercept: float, weights: list[float]) -> None:
        self.intercept = intercept
        self.weights = weights

    def __call__(self, x: list[float]) -> float:
        z = self.intercept
        for w, v in zip(self.weights, x, strict=True):
            z += w * v
        return 1.0 / (1.0 + exp(-max(-30.0, min(30.0, z))))


class LeafValue:
    """The fitted models, one pair per player count: ``win_chance(state, seat)`` and ``worth(state, seat)``, both in
    (0, 1). A count the file has no fit for uses the nearest fitted one."""

    def __init__(self, heads: dict[int, tuple[Logistic, Logistic]]) -> None:
        self.heads = heads

    @classmethod
    def load(cls, path: Path = MODEL) -> LeafValue:
        data = json.loads(path.read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: fitted on other features than today's {len(FEATURES)}: refit it")
        heads: dict[int, tuple[Logistic, Logistic]] = {}
        for players, fit in data["players"].items():
            win, worth = (Logistic(float(fit[h]["intercept"]), [float(w) for w in fit[h]["weights"]]) for h in HEADS)
            heads[int(players)] = (win, worth)
        return cls(heads)

    def _heads(self, n: int) -> tuple[Logistic, Logistic]:
        pair = self.heads.get(n)
        return pair if pair is not None else self.heads[min(self.heads, key=lambda f: (abs(f - n), f))]

    def win_chance(self, state: GameState, seat: int, scores: list[SeatScore] | None = None) -> float:
        return self._heads(state.n)[0](features(state, seat, scores))

    def worth(self, state: GameState, seat: int, scores: list[SeatScore] | None = None) -> float:
        return self._heads(state.n)[1](features(state, seat, scores))
