"""A cheap value of an unfinished position for search: the chance that a seat wins from here, by a logistic model
fitted on self-play (``benchmarks/fit_leaf_value.py`` writes ``palais_sim/data/palais_royal_leaf_value.json``).

A search that stops its rollouts after ``horizon`` rounds needs to know what the position reached is worth; the
score "as if the game ended now" misjudges it (a seat that has just spent its gold on servants is behind on points
but ahead on the game). The features are differences to the best other seat, each also scaled by how close the end
is (the end comes when 12 nobles are left in the park), so a lead counts for more late in the game.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

from palais_sim.games.palais_royal.rules import END_TRIGGER_NOBLES
from palais_sim.games.palais_royal.scoring import SeatScore, final_scores
from palais_sim.games.palais_royal.state import GameState

FEATURES = (
    "lead", "lead_late", "gold", "gold_late", "servants", "servants_late", "nobles", "nobles_late", "to_move", "seat",
)  # fmt: skip
# found through the package (a compiled module's __file__ is the shared library's, elsewhere)
MODEL = Path(str(resources.files("palais_sim").joinpath("data/palais_royal_leaf_value.json")))


def features(state: GameState, seat: int, scores: list[SeatScore] | None = None) -> list[float]:
    """The seat's differences to the best other seat (by score now), plain and scaled by closeness to the end;
    whether it is the seat to move, and its place at the table (0 for seat 1, 1 for the last). ``scores``: the
    state's ``final_scores`` when the caller has them already."""
    scores = final_scores(state) if scores is None else scores
    other = max((s for s in scores if s.seat != seat), key=lambda s: s.total).seat
    late = 1.0 / max(1, state.nobles_left - END_TRIGGER_NOBLES)
    servants = [sum(row[s] for row in state.rooms) for s in range(state.n)]
    raw = (
        scores[seat].total - scores[other].total,
        state.gold[seat] - state.gold[other],
        servants[seat] - servants[other],
        len(state.nobles[seat]) - len(state.nobles[other]),
    )
    out: list[float] = []
    for value in raw:
        out += [float(value), value * late]
    return [*out, 1.0 if state.current == seat else 0.0, seat / max(1, state.n - 1)]


class LeafValue:
    """The fitted model: ``win_chance(state, seat)`` in (0, 1)."""

    def __init__(self, intercept: float, weights: list[float]) -> None:
        self.intercept = intercept
        self.weights = weights

    @classmethod
    def load(cls, path: Path = MODEL) -> LeafValue:
        data = json.loads(path.read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: fitted on features {data['features']}, not {list(FEATURES)}: refit it")
        return cls(float(data["intercept"]), [float(w) for w in data["weights"]])

    def win_chance(self, state: GameState, seat: int, scores: list[SeatScore] | None = None) -> float:
        x = features(state, seat, scores)
        z = self.intercept + sum(w * v for w, v in zip(self.weights, x, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
