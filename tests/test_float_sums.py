"""The searches' sums of floats are correctly rounded (``math.fsum``), so a game goes the same way on every Python:
since 3.12 the builtin ``sum`` of floats compensates its rounding errors, where 3.11's adds left to right, and a mean
that differs in its last bit can turn a near tie between two candidates."""

from __future__ import annotations

from strategies.common.search import clearly_better
from strategies.palais_royal import ismcts

# Left to right, 1e16 + 1.0 rounds to 1e16 and the 1.0 is lost; correctly rounded, the three add up to 1.0.
LOST_ONE = [1e16, 1.0, -1e16]


def test_a_mean_is_the_correctly_rounded_sum_over_the_count() -> None:
    assert ismcts._mean(LOST_ONE) == 1.0 / 3.0


def test_the_search_picks_by_correctly_rounded_means() -> None:
    # candidate 1's mean is 1/3 (0.0 left to right), above candidate 2's 0.2: it is the best, and its noisy
    # difference to the base candidate is not clearly better, so the base stays; left to right, candidate 2 won
    rewards = [[0.0, 0.0, 0.0], LOST_ONE, [0.2, 0.2, 0.2]]
    assert clearly_better(rewards, tie=0.01) == 0
