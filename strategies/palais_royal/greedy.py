"""``greedy``: each turn, the best noble it can bring together now, over a balanced standing distribution.

The shared turn plan of :class:`~strategies.palais_royal.heuristic.HeuristicStrategy` with no valuation of its
own, its weights tuned by simulation: ``palais tune greedy --against greedy,economy,seals,park,cards --players 2
--budget 100000 --trial-games 400 --validate 4000 --seed 101`` (200 trials). On fresh seeds these weights beat the
heuristic's untuned defaults in 65% of 2-player games (4000 games, seats swapped) and win 62% against the styles pool
where the untuned defaults win 46% (README, "Tuning by simulation").
"""

from __future__ import annotations

from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from strategies.palais_royal.heuristic import HeuristicStrategy


@mypyc_attr(allow_interpreted_subclasses=True)
class GreedyStrategy(HeuristicStrategy):
    """Best noble it can bring together this turn; balanced rooms; plays cards when they help at once."""

    name = "greedy"
    # Tuned (see the module docstring); the untuned defaults are HEURISTIC_DEFAULTS.
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "parade": 2,
        "stairway": 4,
        "mint": 1,
        "stock": 4,
        "office": 1,
        "back": 0,
        "cardinal": 2,
        "gold_weight": 0.52,
        "seal_weight": 0.85,
        "edge_bonus": 0.39,
        "park_weight": 0.72,
        "privilege_weight": 1.61,
        "card_weight": 0.6,
        "card_aggression": 1,
        "park_denial": 0.71,
        "late_engine": 3,
    }
