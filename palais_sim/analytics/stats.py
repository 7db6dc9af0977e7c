"""The statistics the reports use, small and checked against scipy in the tests.

Everything is vectorised over numpy arrays, so one call serves a whole table. Conventions: two-sided tests,
95% intervals (``Z95``), p-values corrected with Holm's step-down method across the comparisons of one table.
Intervals that must respect the seat-rotation group (games on the same setup are not independent) use the
cluster-robust ("sandwich") variance with the group as the cluster, computed from per-group sums so that the data
never has to sit in memory row by row; ``bootstrap_ratio`` resamples whole groups and is used to cross-check it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from palais_sim.core.blas import one_blas_thread as one_blas_thread  # re-exported: the reports' decorator

Z95 = float(stats.norm.ppf(0.975))


def wilson(successes: np.ndarray | float, n: np.ndarray | float, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion; successes may be fractional (shared wins count as shares).

    Matches ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` for whole numbers.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    low = np.where(n > 0, np.clip(centre - half, 0, 1), np.nan)
    high = np.where(n > 0, np.clip(centre + half, 0, 1), np.nan)
    return low, high


def two_sided_p(z: np.ndarray | float) -> np.ndarray:
    """Two-sided normal p-value of a z statistic (NaN stays NaN)."""
    return 2 * stats.norm.sf(np.abs(np.asarray(z, dtype=float)))


def proportion_p(successes: np.ndarray, n: np.ndarray, p0: np.ndarray | float) -> np.ndarray:
    """Two-sided score test of a proportion against ``p0`` (the normal approximation of the binomial test)."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    p0 = np.asarray(p0, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (k / n - p0) / np.sqrt(p0 * (1 - p0) / n)
    return two_sided_p(z)


def holm(pvalues: np.ndarray | list[float]) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (NaNs are left out of the family and stay NaN)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    values = p[ok]
    order = np.argsort(values, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * values[order])
    result = np.empty(m)
    result[order] = np.minimum(adjusted, 1.0)
    out[ok] = result
    return out


@dataclass(frozen=True)
class ClusterMean:
    """A mean with its cluster-robust standard error and 95% interval (arrays, one entry per cell)."""

    n: np.ndarray
    clusters: np.ndarray
    mean: np.ndarray
    se: np.ndarray

    @property
    def low(self) -> np.ndarray:
        return self.mean - Z95 * self.se

    @property
    def high(self) -> np.ndarray:
        return self.mean + Z95 * self.se


def cluster_mean(
    n: np.ndarray, total: np.ndarray, sum_sq: np.ndarray, sum_tn: np.ndarray, sum_nn: np.ndarray, clusters: np.ndarray
) -> ClusterMean:
    """Mean of a value over rows, with a cluster-robust standard error, from per-cell sums over clusters.

    With ``n_g`` rows and value sum ``s_g`` in cluster ``g``: ``n = sum n_g``, ``total = sum s_g``,
    ``sum_sq = sum s_g**2``, ``sum_tn = sum s_g n_g``, ``sum_nn = sum n_g**2``. The mean is ``total / n`` and
    ``var = G/(G-1) * sum_g (s_g - n_g mean)**2 / n**2`` (the CR1 sandwich of a mean).
    """
    n = np.asarray(n, dtype=float)
    g = np.asarray(clusters, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.asarray(total, dtype=float) / n
        ss = np.asarray(sum_sq, dtype=float) - 2 * mean * np.asarray(sum_tn, dtype=float)
        ss = ss + mean**2 * np.asarray(sum_nn, dtype=float)
        var = np.where(g > 1, g / (g - 1) * np.maximum(ss, 0) / n**2, np.nan)
    return ClusterMean(n=n, clusters=g, mean=mean, se=np.sqrt(var))


def bootstrap_ratio(
    sums: np.ndarray, counts: np.ndarray, reps: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``sum(sums) / sum(counts)`` resampling whole clusters (one entry each)."""
    sums = np.asarray(sums, dtype=float)
    counts = np.asarray(counts, dtype=float)
    rng = np.random.default_rng(seed)
    g = len(sums)
    draws = np.empty(reps)
    for b in range(reps):
        pick = rng.integers(0, g, g)
        draws[b] = sums[pick].sum() / counts[pick].sum()
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class OLSResult:
    coef: np.ndarray
    se: np.ndarray
    clusters: int
    rows: int

    @property
    def low(self) -> np.ndarray:
        return self.coef - Z95 * self.se

    @property
    def high(self) -> np.ndarray:
        return self.coef + Z95 * self.se


class OLSAccumulator:
    """Least squares with cluster-robust errors, fed in batches (two passes over the data).

    Pass 1: ``add(X, y)`` for every batch, then ``solve()``. Pass 2: ``add_scores(X, y, cluster_ids)`` for every
    batch, where each cluster lies in one batch (``add_scores`` overwrites ``X``), then ``result()``. Memory is
    ``O(k**2 + rows of one batch)``.
    Columns that never vary (all zero) get a NaN coefficient instead of breaking the solve.
    """

    def __init__(self, k: int) -> None:
        self.k = k
        self.xtx = np.zeros((k, k))
        self.xty = np.zeros(k)
        self.rows = 0
        self.meat = np.zeros((k, k))
        self.clusters = 0
        self.coef: np.ndarray | None = None
        self._keep: np.ndarray | None = None

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        self.xtx += (x.T @ x).astype(float)
        self.xty += (x.T @ y).astype(float)
        self.rows += len(y)

    def solve(self) -> np.ndarray:
        keep = np.diag(self.xtx) > 0
        self._keep = keep
        coef = np.full(self.k, np.nan)
        sub = self.xtx[np.ix_(keep, keep)]
        coef[keep] = np.linalg.lstsq(sub, self.xty[keep], rcond=None)[0]
        self.coef = coef
        return coef

    def add_scores(self, x: np.ndarray, y: np.ndarray, cluster_ids: np.ndarray) -> None:
        """``cluster_ids`` must be sorted (clusters contiguous within the batch)."""
        assert self.coef is not None, "solve() first"
        if len(y) == 0:
            return
        beta = np.nan_to_num(self.coef).astype(x.dtype)
        resid = y - x @ beta
        starts = np.flatnonzero(np.r_[True, cluster_ids[1:] != cluster_ids[:-1]])
        x *= resid[:, None]  # the caller's matrix is spent: no copy of a batch-sized array
        scores = np.add.reduceat(x, starts, axis=0).astype(np.float64)
        self.meat += scores.T @ scores
        self.clusters += len(starts)

    def add_group_scores(self, scores: np.ndarray) -> None:
        """Pass 2 from the clusters' scores already summed (clusters x k: each cluster's ``X'e``, with ``e`` the
        residuals at the solved coefficients); the same sum as ``add_scores``."""
        assert self.coef is not None, "solve() first"
        scores = np.asarray(scores, dtype=np.float64)
        self.meat += scores.T @ scores
        self.clusters += len(scores)

    def result(self) -> OLSResult:
        assert self.coef is not None and self._keep is not None
        keep = self._keep
        g, n, k = self.clusters, self.rows, int(keep.sum())
        bread = np.linalg.pinv(self.xtx[np.ix_(keep, keep)])
        factor = (g / (g - 1)) * ((n - 1) / (n - k)) if g > 1 and n > k else np.nan
        cov = factor * bread @ self.meat[np.ix_(keep, keep)] @ bread
        se = np.full(self.k, np.nan)
        se[keep] = np.sqrt(np.maximum(np.diag(cov), 0))
        return OLSResult(coef=self.coef, se=se, clusters=g, rows=n)


def cluster_slopes(
    x: np.ndarray, n: np.ndarray, y_sum: np.ndarray, cluster: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slopes of a row-level outcome on features constant within each cell, with cluster-robust errors.

    Each cell (row of ``x``, shape cells x features) stands for ``n`` rows with outcome sum ``y_sum``; ``cluster``
    gives its cluster as a non-negative integer. For every feature separately, returns the least-squares slope of the
    rows, its CR1 standard error and a two-sided p. For a 0/1 feature the slope is the difference of the two means.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    n = np.asarray(n, dtype=float)
    y_sum = np.asarray(y_sum, dtype=float)
    f = x.shape[1]
    nan = np.full(f, np.nan)
    total = n.sum()
    if total == 0:
        return nan, nan.copy(), nan.copy()
    xbar = n @ x / total
    ybar = y_sum.sum() / total
    dx = x - xbar
    dx2 = dx * dx
    sxx = n @ dx2
    ey = y_sum - n * ybar
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = ey @ dx / sxx
        # score = dx * (ey - slope * n * dx), in place: two cells-sized temporaries in all
        dx *= ey[:, None]
        dx2 *= n[:, None]
        dx2 *= slope
        dx -= dx2
        score = dx
        per_cluster = np.bincount(cluster)
        present = np.bincount(cluster, weights=n) > 0
        g = int(present.sum())
        if per_cluster.max() > 1:  # several cells to a cluster: sum their scores first
            import scipy.sparse as sp

            code = np.cumsum(per_cluster > 0) - 1
            rows = np.arange(len(cluster))
            by_cluster = sp.csr_matrix((np.ones(len(cluster)), (code[cluster], rows)), shape=(code[-1] + 1, len(rows)))
            score = np.asarray(by_cluster @ score)
        meat = np.einsum("ij,ij->j", score, score)
        se = np.sqrt(g / (g - 1) * meat) / sxx if g > 1 else nan.copy()
        se = np.where(sxx > 0, se, np.nan)
        p = np.where(se > 0, two_sided_p(slope / se), np.nan)
    return slope, se, p


class TableSlopes:
    """``cluster_slopes`` for features read from a table (one row per kind of cell, e.g. a setup) whose columns take
    few distinct values, when every cluster has one cell: the sums the slopes and their CR1 errors need are taken
    per (feature, value) from per-row sums of the cells, through a sparse row-by-value indicator, instead of over a
    cells x features matrix. The same estimates as ``cluster_slopes`` (to float noise; it is used when a cluster has
    several cells)."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table  # as given (small integers, usually): read as floats only by the fallback
        rows, f = table.shape
        codes = np.empty((rows, f), dtype=np.int32)
        values, feature = [], []
        offset = 0
        for j in range(f):
            col = np.asarray(table[:, j], dtype=float)
            low = col.min() if rows else 0.0
            if rows and np.array_equal(col, np.round(col)) and col.max() - low < 256:  # small integers
                v, code = low + np.arange(int(col.max() - low) + 1), (col - low).astype(np.int64)
            else:
                v, code = np.unique(col, return_inverse=True)
            codes[:, j] = code + offset
            values.append(v)
            feature.append(np.full(len(v), j))
            offset += len(v)
        import scipy.sparse as sp

        self.value = np.concatenate(values) if values else np.zeros(0)
        self.feature = np.concatenate(feature) if feature else np.zeros(0, dtype=np.int64)
        self.f = f
        # values x rows, stored by row (column-compressed): row r has a 1 at the value of each of its f features
        starts = np.arange(0, rows * f + 1, f, dtype=np.int64)
        self.by_value = sp.csc_matrix((np.ones(rows * f), codes.reshape(-1), starts), shape=(offset, rows))

    def slopes(
        self, row: np.ndarray, n: np.ndarray, y_sum: np.ndarray, cluster: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cells given by their table ``row``, ``n`` rows and outcome sum ``y_sum``, and cluster: as
        ``cluster_slopes(table[row], n, y_sum, cluster)``."""
        n = np.asarray(n, dtype=float)
        y_sum = np.asarray(y_sum, dtype=float)
        per_cluster = np.bincount(cluster) if len(cluster) else np.zeros(1, dtype=np.int64)
        total = n.sum()
        if per_cluster.max() > 1 or total == 0:
            return cluster_slopes(np.asarray(self.table[row], dtype=float), n, y_sum, cluster)
        ey = y_sum - n * (y_sum.sum() / total)
        size = len(self.table)
        weights = np.column_stack(
            [np.bincount(row, weights=w, minlength=size) for w in (n, ey, ey * ey, ey * n, n * n)]
        )
        count, ey_v, sq, cross, nn = (self.by_value @ weights).T  # per (feature, value)
        f, feature = self.f, self.feature
        xbar = np.bincount(feature, weights=count * self.value, minlength=f) / total
        d = self.value - xbar[feature]
        sxx = np.bincount(feature, weights=count * d * d, minlength=f)
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = np.bincount(feature, weights=ey_v * d, minlength=f) / sxx
            b = np.nan_to_num(slope)[feature] * d
            # sum over the cells of (dx (ey - slope n dx))^2, cell by cell in cluster_slopes
            meat = np.maximum(np.bincount(feature, weights=d * d * (sq - 2 * b * cross + b * b * nn), minlength=f), 0)
            g = int((np.bincount(cluster, weights=n) > 0).sum())
            se = np.sqrt(g / (g - 1) * meat) / sxx if g > 1 else np.full(f, np.nan)
            se = np.where(sxx > 0, se, np.nan)
            p = np.where(se > 0, two_sided_p(slope / se), np.nan)
        return slope, se, p


def chisquare_equal(observed: np.ndarray) -> tuple[float, float]:
    """Chi-square goodness of fit of ``observed`` against equal shares (``scipy.stats.chisquare``)."""
    observed = np.asarray(observed, dtype=float)
    if observed.sum() <= 0 or len(observed) < 2:
        return np.nan, np.nan
    result = stats.chisquare(observed)
    return float(result.statistic), float(result.pvalue)


@dataclass(frozen=True)
class LineFit:
    """A weighted least-squares line ``intercept + slope * x`` and where it crosses 0."""

    slope: float
    slope_ci: tuple[float, float]
    intercept: float
    root: float | None  # x where the line crosses 0 (None when the slope's interval includes 0)
    root_ci: tuple[float, float] | None  # Fieller's interval of the root


def weighted_line(x: np.ndarray, y: np.ndarray, se: np.ndarray, z: float = Z95) -> LineFit:
    """The line through points with known standard errors (weights 1/se^2), and where it crosses 0 with Fieller's
    interval (Fieller 1954): every x at which 0 lies within the line's interval, ``|y(x)| <= z * se(y(x))``. It is a
    bounded interval exactly when the slope differs from 0 at that level; it is not symmetric around the root, as a
    ratio's interval should not be."""
    w = 1.0 / se**2
    total = float(w.sum())
    xm = float((w * x).sum() / total)
    ym = float((w * y).sum() / total)
    sxx = float((w * (x - xm) ** 2).sum())
    slope = float((w * (x - xm) * (y - ym)).sum() / sxx)
    slope_se = float(np.sqrt(1.0 / sxx))
    intercept = ym - slope * xm
    slope_ci = (slope - z * slope_se, slope + z * slope_se)
    if slope_ci[0] <= 0.0 <= slope_ci[1]:
        return LineFit(slope, slope_ci, intercept, None, None)
    # y(xm + d) = ym + slope * d with variance 1/total + d^2/sxx: solve (ym + slope d)^2 = z^2 (1/total + d^2/sxx)
    a = slope**2 - z**2 / sxx
    b = 2.0 * ym * slope
    c = ym**2 - z**2 / total
    disc = max(0.0, b * b - 4.0 * a * c)
    d1, d2 = sorted(((-b - np.sqrt(disc)) / (2.0 * a), (-b + np.sqrt(disc)) / (2.0 * a)))
    return LineFit(slope, slope_ci, intercept, xm - ym / slope, (xm + float(d1), xm + float(d2)))
