"""The analytics statistics against scipy's own results and against direct dense computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sstats

from palais_sim.analytics import stats


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (517, 1000), (1, 3)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    low, high = stats.wilson(k, n)
    ref = sstats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert float(low) == pytest.approx(ref.low, abs=1e-12)
    assert float(high) == pytest.approx(ref.high, abs=1e-12)


def test_wilson_vectorised_and_empty() -> None:
    low, high = stats.wilson(np.array([1.5, 0.0]), np.array([4, 0]))
    assert 0 < low[0] < 1.5 / 4 < high[0] < 1
    assert np.isnan(low[1]) and np.isnan(high[1])


def test_holm_known_values() -> None:
    # sorted p: 0.005 (x4), 0.01 (x3), 0.03 (x2), 0.04 (x1) -> 0.02, 0.03, 0.06, max(0.06, 0.04) = 0.06
    adjusted = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    assert np.isnan(stats.holm([np.nan, 0.2])[0])
    assert stats.holm([0.5, 0.9])[1] == 1.0


def test_holm_never_below_raw_and_at_least_as_strict_as_bh() -> None:
    p = np.random.default_rng(1).uniform(0, 0.1, 30)
    holm = stats.holm(p)
    assert (holm >= p).all()
    assert (holm >= sstats.false_discovery_control(p, method="bh") - 1e-12).all()


def test_chisquare_matches_scipy() -> None:
    observed = np.array([340.5, 310.0, 349.5])
    chi2, p = stats.chisquare_equal(observed)
    ref = sstats.chisquare(observed)
    assert chi2 == pytest.approx(ref.statistic)
    assert p == pytest.approx(ref.pvalue)


def test_proportion_p_matches_scipy_normal_test() -> None:
    # the score test of a proportion is the chi-square test of the two cells (win / not win)
    k, n, p0 = 380, 1000, 1 / 3
    ref = sstats.chisquare([k, n - k], [n * p0, n * (1 - p0)]).pvalue
    assert float(stats.proportion_p(k, n, p0)) == pytest.approx(ref)


def _cluster_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(300), rng.integers(1, 6, 300))
    effect = rng.normal(0, 1, 300)[groups]
    values = 2 + effect + rng.normal(0, 1, len(groups))
    return groups, values


def test_cluster_mean_matches_dense_sandwich_and_bootstrap() -> None:
    groups, values = _cluster_data()
    g = np.unique(groups)
    n_g = np.bincount(groups).astype(float)
    s_g = np.bincount(groups, weights=values)
    cm = stats.cluster_mean(n_g.sum(), s_g.sum(), (s_g**2).sum(), (s_g * n_g).sum(), (n_g**2).sum(), len(g))
    mean = values.mean()
    assert float(cm.mean) == pytest.approx(mean)
    dense = np.sqrt(len(g) / (len(g) - 1) * ((s_g - n_g * mean) ** 2).sum()) / len(values)
    assert float(cm.se) == pytest.approx(dense)
    low, high = stats.bootstrap_ratio(s_g, n_g, reps=2000, seed=3)
    assert low == pytest.approx(float(cm.low), abs=0.05)
    assert high == pytest.approx(float(cm.high), abs=0.05)


def test_cluster_mean_with_single_rows_is_the_usual_standard_error() -> None:
    """One row per cluster: the sums built from the rows as a caller builds them give the plain mean and its usual
    standard error; the same values in clusters of two give the clustered one, which differs."""
    values = np.random.default_rng(2).normal(size=500)
    n = np.ones(500)  # rows per cluster
    cm = stats.cluster_mean(n.sum(), values.sum(), (values**2).sum(), (values * n).sum(), (n**2).sum(), len(n))
    usual = values.std(ddof=1) / np.sqrt(500)
    assert float(cm.mean) == pytest.approx(values.mean(), rel=1e-12)
    assert float(cm.se) == pytest.approx(usual, rel=1e-9)
    pairs = values[::2] + values[1::2]  # the same 500 rows in 250 clusters of two
    two = np.full(250, 2.0)
    cm2 = stats.cluster_mean(two.sum(), pairs.sum(), (pairs**2).sum(), (pairs * two).sum(), (two**2).sum(), 250)
    clustered = np.sqrt(250 / 249 * ((pairs - 2 * values.mean()) ** 2).sum()) / 500
    assert float(cm2.mean) == pytest.approx(values.mean(), rel=1e-12)
    assert float(cm2.se) == pytest.approx(clustered, rel=1e-9) and abs(float(cm2.se) - usual) > 1e-4


def test_ols_accumulator_matches_lstsq_and_dense_sandwich() -> None:
    rng = np.random.default_rng(5)
    groups = np.sort(rng.integers(0, 200, 2000))
    x = np.column_stack([np.ones(2000), rng.normal(size=2000), rng.integers(0, 2, 2000)])
    y = x @ np.array([1.0, 2.0, -0.5]) + rng.normal(0, 1, 200)[groups] + rng.normal(size=2000)
    acc = stats.OLSAccumulator(3)
    for part in np.array_split(np.arange(2000), 4):
        acc.add(x[part], y[part])
    coef = acc.solve()
    np.testing.assert_allclose(coef, np.linalg.lstsq(x, y, rcond=None)[0], rtol=1e-10)
    # batches split at group boundaries for the second pass
    cuts = np.searchsorted(groups, [50, 100, 150])
    for part in np.split(np.arange(2000), cuts):
        acc.add_scores(x[part], y[part], groups[part])
    result = acc.result()
    resid = y - x @ coef
    bread = np.linalg.inv(x.T @ x)
    scores = np.array([x[groups == g].T @ resid[groups == g] for g in np.unique(groups)])
    g, n, k = len(scores), 2000, 3
    cov = g / (g - 1) * (n - 1) / (n - k) * bread @ (scores.T @ scores) @ bread
    np.testing.assert_allclose(result.se, np.sqrt(np.diag(cov)), rtol=1e-8)
    assert result.clusters == g


def test_ols_accumulator_leaves_unused_columns_nan() -> None:
    x = np.column_stack([np.ones(10), np.arange(10.0), np.zeros(10)])
    acc = stats.OLSAccumulator(3)
    acc.add(x, 3 + 2 * np.arange(10.0))
    coef = acc.solve()
    np.testing.assert_allclose(coef[:2], [3, 2])
    assert np.isnan(coef[2])


def test_cluster_slopes_match_linregress() -> None:
    rng = np.random.default_rng(7)
    cells = 400
    x = rng.integers(1, 5, cells).astype(float)
    n = rng.integers(1, 4, cells).astype(float)
    y_rows = [rng.random(int(k)) < 0.3 + 0.02 * xv for xv, k in zip(x, n, strict=True)]
    y_sum = np.array([r.sum() for r in y_rows], dtype=float)
    slope, se, p = stats.cluster_slopes(x, n, y_sum, np.arange(cells))
    ref = sstats.linregress(np.repeat(x, n.astype(int)), np.concatenate(y_rows).astype(float))
    assert slope[0] == pytest.approx(ref.slope)
    assert se[0] > 0 and 0 <= p[0] <= 1
    # a 0/1 feature: the slope is the difference of the two means
    binary = (x > 2).astype(float)
    slope_b, _, _ = stats.cluster_slopes(binary, n, y_sum, np.arange(cells))
    on, off = binary == 1, binary == 0
    assert slope_b[0] == pytest.approx(y_sum[on].sum() / n[on].sum() - y_sum[off].sum() / n[off].sum())


def _cluster_slopes_plain(x: np.ndarray, n: np.ndarray, y_sum: np.ndarray, cluster: np.ndarray) -> tuple:
    """The straightforward form of ``stats.cluster_slopes`` (its first version): one bincount per feature."""
    dx = x - (n[:, None] * x).sum(0) / n.sum()
    ey = y_sum - n * y_sum.sum() / n.sum()
    sxx = (n[:, None] * dx**2).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (dx * ey[:, None]).sum(0) / sxx
        score = dx * (ey[:, None] - slope * n[:, None] * dx)
        g = int((np.bincount(cluster, weights=n) > 0).sum())
        meat = np.array([(np.bincount(cluster, weights=score[:, j]) ** 2).sum() for j in range(x.shape[1])])
        se = np.where(sxx > 0, np.sqrt(g / (g - 1) * meat) / sxx, np.nan)
    return slope, se


@pytest.mark.parametrize("shared", [False, True])
def test_cluster_slopes_match_the_plain_computation(shared: bool) -> None:
    rng = np.random.default_rng(11)
    cells = 3000
    x = np.column_stack([rng.integers(0, 5, cells), rng.integers(0, 2, cells), np.ones(cells)]).astype(np.float32)
    n = rng.integers(1, 5, cells).astype(float)
    y_sum = rng.binomial(n.astype(int), 0.3 + 0.02 * x[:, 0]).astype(float)
    cluster = rng.integers(0, 700, cells) if shared else rng.permutation(cells) * 3
    slope, se, p = stats.cluster_slopes(x, n, y_sum, cluster)
    ref_slope, ref_se = _cluster_slopes_plain(x.astype(float), n, y_sum, cluster)
    np.testing.assert_allclose(slope, ref_slope, rtol=1e-10)
    np.testing.assert_allclose(se, ref_se, rtol=1e-10)
    assert np.isnan(slope[2]) and np.isnan(se[2]) and np.isnan(p[2])  # a constant feature has no slope


def test_fiellers_interval_of_where_a_line_crosses_zero_covers_it_95_percent_of_the_time() -> None:
    """Lines drawn around value = 6 - 2 * price (crossing 0 at 3) at prices 0..3 with known errors: the interval
    holds the true crossing in about 95% of 2,000 draws, and is not symmetric (a ratio's interval)."""
    rng = np.random.default_rng(7)
    x = np.array([0.0, 1.0, 2.0, 3.0])
    se = np.array([0.5, 0.5, 0.75, 0.75])  # the slope is surely negative in every draw: coverage unconditional
    hits = decided = 0
    lopsided = False
    for _ in range(2000):
        fit = stats.weighted_line(x, 6 - 2 * x + rng.normal(0, se), se)
        if fit.root_ci is None:
            continue
        decided += 1
        low, high = fit.root_ci
        hits += low <= 3.0 <= high
        lopsided |= abs((high - fit.root) - (fit.root - low)) > 0.05
    assert decided == 2000 and 0.94 < hits / decided < 0.965 and lopsided  # 0.9555 when written
    flat = stats.weighted_line(x, np.array([1.0, 0.5, 1.2, 0.8]), np.ones(4))
    assert flat.root is None and flat.root_ci is None
