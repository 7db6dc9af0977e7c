"""``greedy``: each turn, the best noble it can bring together now, over a balanced standing distribution.

The shared turn plan of :class:`strategies.heuristic.HeuristicStrategy` with its default weights: no style of its
own, the benchmark the styles must beat.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from strategies.heuristic import HeuristicStrategy


@mypyc_attr(allow_interpreted_subclasses=True)
class GreedyStrategy(HeuristicStrategy):
    """Best noble it can bring together this turn; balanced rooms; plays cards when they help at once."""

    name = "greedy"
