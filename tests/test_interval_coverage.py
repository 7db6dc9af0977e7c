"""The intervals keep their promise: each one's coverage in simulation, where the truth is planted.

Every simulation is vectorised numpy on a fixed seed, so each test is fast and deterministic; the bounds (93-97% for a
95% interval) are about three simulation standard errors either side of 95%.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from palais_sim.analytics import stats, winrates
from palais_sim.analytics.paired import mean_interval
from palais_sim.games.palais_royal.studies.nobles import fit_line, price_point

# --- the fair price of a noble: the price line's Fieller interval --------------------------------------------------
FAIR = 4.0  # planted: value (pp) = SLOPE * (price - FAIR)
SLOPE = -6.0
PRICES = (3, 4, 5)
GROUPS = 120  # groups per point
SPREAD = 20.0  # pp: the standard deviation of one group's value


def _fair_price_coverage(looks: int, reps: int, seed: int) -> float:
    """Plant a line, draw each point's group values, make each point's row as a study does (its interval at the
    looks' confidence, 1 - 0.05/looks) and count how often the fair price's 95% interval holds the planted one."""
    rng = np.random.default_rng(seed)
    confidence = 1 - 0.05 / looks
    truth = SLOPE * (np.array(PRICES) - FAIR)
    values = truth[None, :, None] + SPREAD * rng.standard_normal((reps, len(PRICES), GROUPS))
    hits = fits = 0
    for rep in range(reps):
        points = []
        for i, price in enumerate(PRICES):
            est = mean_interval(values[rep, i], confidence)
            row = {"effect": est.mean, "se": est.se, "ci": [est.low, est.high], "n_groups": GROUPS,
                   "verdict": "", "reason": ""}  # fmt: skip
            points.append(price_point(price, row))
        ci = fit_line(points)["fair_price_ci"]
        if ci is not None:
            fits += 1
            hits += ci[0] <= FAIR <= ci[1]
    assert fits >= 0.95 * reps  # the planted slope is steep enough that the line is (almost) always given
    return hits / fits


@pytest.mark.parametrize("looks", [1, 3, 5])
def test_the_fair_price_interval_covers_95_percent_at_any_number_of_looks(looks: int) -> None:
    coverage = _fair_price_coverage(looks, reps=2000, seed=34)
    assert 0.93 <= coverage <= 0.97, coverage


def test_a_points_standard_error_is_its_own_not_read_back_from_its_interval() -> None:
    """The same point at 1 and at 5 looks (a wider verdict interval) weighs the same in the line."""
    x = np.random.default_rng(3).normal(0, 10, 50)
    one, five = mean_interval(x, 0.95), mean_interval(x, 0.99)
    base = {"n_groups": 50, "verdict": "", "reason": ""}
    p1 = price_point(1, {**base, "effect": one.mean, "se": one.se, "ci": [one.low, one.high]})
    p5 = price_point(1, {**base, "effect": five.mean, "se": five.se, "ci": [five.low, five.high]})
    assert p1["se"] == p5["se"] and p1["ci"] != p5["ci"]


# --- the strategy table: the win rate's interval and its test against 1/P, clustered on the group -----------------
def _planted_strategy_table(rates: np.ndarray, groups: int, seed: int, spread: float = 0.25) -> pl.DataFrame:
    """One row per replicate (a "strategy" of its own) at 4 players: the strategy plays every game of a group of 4
    (its seat rotations), and the games of a group share a setup: its win chance in the group is the planted rate
    shifted by the group's setup (so the seats of a group are correlated, as in a real run). The per-cell sums are
    what ``winrates`` builds from a run: ``n``, ``win_sum``, ``win_sq`` (squared group sums), ``win_tn``, ``nn``."""
    rng = np.random.default_rng(seed)
    reps, per = len(rates), 4
    chance = np.clip(rates[:, None] + spread * rng.uniform(-1, 1, (reps, groups)), 0, 1)
    wins = rng.binomial(per, chance).astype(float)  # (reps, groups): wins of the group's 4 games
    zeros = np.zeros(reps)
    return pl.DataFrame({
        "players": np.full(reps, 4), "strategy": [f"r{i:05d}" for i in range(reps)],
        "games": np.full(reps, groups * per), "n": np.full(reps, groups * per), "groups": np.full(reps, groups),
        "nn": np.full(reps, groups * per**2, dtype=float),
        "win_sum": wins.sum(1), "win_sq": (wins**2).sum(1), "win_tn": per * wins.sum(1),
        **{f"{v}_{k}": zeros for v in ("total", "rank") for k in ("sum", "sq", "tn")},
    })  # fmt: skip


def test_the_strategy_tables_interval_and_p_agree_and_cover_95_percent() -> None:
    reps, groups = 4000, 60
    rates = np.random.default_rng(0).choice([0.25, 0.27, 0.3, 0.35], reps)
    table = winrates.finish_strategy_table(_planted_strategy_table(rates, groups, seed=1))
    truth = dict(zip([f"r{i:05d}" for i in range(reps)], rates, strict=True))
    low, high, p = table["ci_low"].to_numpy(), table["ci_high"].to_numpy(), table["p"].to_numpy()
    excludes_fair = (low > 0.25) | (high < 0.25)
    assert ((p < 0.05) == excludes_fair).all()
    assert 0.2 < excludes_fair.mean() < 0.9  # both kinds of row are there
    rate = np.array([truth[s] for s in table["strategy"]])
    coverage = ((low <= rate) & (rate <= high)).mean()
    assert 0.93 <= coverage <= 0.97, coverage
    # the planted correlation matters: the Wilson interval (seats independent) covers far less, and disagrees
    w_low, w_high = stats.wilson(table["win_rate"].to_numpy() * table["seats"].to_numpy(), table["seats"].to_numpy())
    assert ((w_low <= rate) & (rate <= w_high)).mean() < 0.93
    assert ((p < 0.05) != ((w_low > 0.25) | (w_high < 0.25))).any()
