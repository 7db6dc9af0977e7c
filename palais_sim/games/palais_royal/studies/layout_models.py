"""The layouts study's statistics: least squares of the start player's result on layout features (HC1 errors), and
the spread over layouts that a block of features adds to the prediction, with an interval that keeps its promise.

Why a block's *spread* and not its single coefficients: the room in the centre and the Stairway's neighbours are
nearly collinear with the distances, so each of their coefficients is wide (1.7-3 pp half-widths at 30,000 games)
while together they move a layout's prediction by much less. The spread answers the designer's question ("does
anything beyond the distances move the start player's share?") in one number per block: the root-mean-square, over
uniformly random layouts, of the block's part of the prediction, ``theta = sqrt(gamma' S gamma)`` with ``gamma``
the block's coefficients and ``S`` the covariance of its features over all 9! layouts (exact, by enumeration).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np
import polars as pl

from palais_sim.games.palais_royal.analysis.setup_sums import layout_features
from palais_sim.games.palais_royal.board import ROOM_CODES

DRAWS = 20_000  # Monte Carlo draws of the spread's sampling distribution (fixed seed: the page is reproducible)


@dataclass(frozen=True)
class Fit:
    """An OLS fit: the kept feature names (intercept first is implicit), coefficients and HC1 covariance of the
    features (without the intercept), the aliased (left out) features and the number of games."""

    names: list[str]
    beta: np.ndarray
    cov: np.ndarray
    aliased: list[str]
    n: int
    dof: int


def fit(x_all: np.ndarray, y: np.ndarray, names: list[str]) -> Fit:
    """OLS of ``y`` on an intercept and the columns of ``x_all`` (named ``names``), each column kept only when it
    raises the design's rank (the others are aliased: exactly collinear with those before them); HC1 errors (every
    game is independent)."""
    n = len(y)
    full = np.column_stack([np.ones(n), x_all])
    gram = full.T @ full  # the rank checks on it (k x k) rather than on the n x k design: the same answer, faster
    cols = [0]
    keep: list[int] = []
    aliased: list[str] = []
    for j, name in enumerate(names):
        trial = cols + [j + 1]
        if np.linalg.matrix_rank(gram[np.ix_(trial, trial)]) > len(cols):
            cols, keep = trial, keep + [j]
        else:
            aliased.append(name)
    design = full[:, cols]
    k = design.shape[1]
    kept = [names[j] for j in keep]
    if n <= k + 1:
        nan = np.full(len(keep), np.nan)
        return Fit(kept, nan, np.full((len(keep), len(keep)), np.nan), aliased, n, max(n - k, 0))
    xtx_inv = np.linalg.pinv(design.T @ design)
    beta = xtx_inv @ design.T @ y
    resid = y - design @ beta
    meat = (design * resid[:, None]).T @ (design * resid[:, None])
    cov = n / (n - k) * xtx_inv @ meat @ xtx_inv
    return Fit(kept, beta[1:], cov[1:, 1:], aliased, n, n - k)


@cache
def _all_layouts() -> pl.DataFrame:
    """The features of every one of the 9! = 362,880 layouts (the rulebook's random layout draws each alike)."""
    codes = ["".join(p) for p in itertools.permutations(ROOM_CODES)]
    return layout_features(pl.DataFrame({"layout": [f"{c[0:3]}/{c[3:6]}/{c[6:9]}" for c in codes]}).lazy()).collect()


def layout_covariance(names: tuple[str, ...]) -> np.ndarray:
    """The covariance of the named layout features over uniformly random layouts (exact: all 9! of them)."""
    x = _all_layouts().select(list(names)).to_numpy().astype(float)
    return np.atleast_2d(np.cov(x.T, bias=True))


@dataclass(frozen=True)
class Spread:
    """A block's spread over layouts (share units): the estimate, its interval, the features it has."""

    value: float
    low: float
    high: float
    features: int


def spread_interval(gamma: np.ndarray, cov: np.ndarray, s: np.ndarray, confidence: float = 0.95,
                    draws: int = DRAWS, seed: int = 0) -> Spread:  # fmt: skip
    """The spread ``theta = sqrt(gamma' S gamma)`` of a block with estimated coefficients ``gamma`` (covariance
    ``cov``) and feature covariance ``S`` over layouts.

    The estimate removes the noise's share: ``Q = |W gamma|^2`` (``W = S^(1/2)``) overshoots ``theta^2`` by
    ``tr(W cov W)`` on average. The interval inverts the test of each ``theta``: ``W gamma`` is normal about a point
    at distance ``theta`` with covariance ``Omega = W cov W``, and ``Q``'s distribution there is drawn by Monte
    Carlo (``draws``, fixed seed). Its direction is unknown; the point is put on ``Omega``'s largest axis, where
    ``Q`` spreads most both ways, so no direction makes the interval too narrow (the simulation in the tests plants
    the truth along the largest, the smallest and other axes). Upper bound: the largest ``theta`` at which a ``Q``
    as small as the observed one has at least ``(1 - confidence) / 2`` probability; lower bound likewise for a ``Q``
    as large (0 when ``theta = 0`` is not rejected)."""
    gamma = np.asarray(gamma, dtype=float)
    if not (np.all(np.isfinite(gamma)) and np.all(np.isfinite(cov))) or len(gamma) == 0:
        return Spread(np.nan, np.nan, np.nan, len(gamma))
    w_val, w_vec = np.linalg.eigh(s)
    w = w_vec @ np.diag(np.sqrt(np.maximum(w_val, 0))) @ w_vec.T
    omega = w @ cov @ w
    lam = np.maximum(np.linalg.eigvalsh((omega + omega.T) / 2), 0)  # ascending: the largest axis is the last
    m = w @ gamma
    q_obs = float(m @ m)
    value = float(np.sqrt(max(q_obs - lam.sum(), 0.0)))
    noise = np.random.default_rng(seed).standard_normal((draws, len(lam))) * np.sqrt(lam)
    tail = (1 - confidence) / 2
    top = len(lam) - 1

    def q(theta: float) -> np.ndarray:
        shifted = noise.copy()
        shifted[:, top] += theta
        return (shifted**2).sum(1)

    def bisect(inside) -> float:  # the largest theta for which ``inside(theta)`` holds (it holds at 0)
        lo, hi = 0.0, np.sqrt(q_obs) + 10 * np.sqrt(lam[-1]) + 1e-12
        for _ in range(50):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if inside(mid) else (lo, mid)
        return (lo + hi) / 2

    high = bisect(lambda t: np.mean(q(t) <= q_obs) > tail)
    low = 0.0 if np.mean(q(0.0) >= q_obs) > tail else bisect(lambda t: np.mean(q(t) >= q_obs) <= tail)
    return Spread(value, low, high, len(gamma))


def sums_to_one(names: tuple[str, ...]) -> bool:
    """Whether the named yes/no features add up to one on every layout (one room in the centre): then each one is
    read against the average layout (effect coding), not against the one left out."""
    total = _all_layouts().select(pl.sum_horizontal(list(names))).to_series().to_numpy()
    return bool(np.all(total == 1))


def contrasts(f: Fit, members: tuple[str, ...], confidence: float = 0.95, draws: int = DRAWS,
              seed: int = 0) -> list[dict]:  # fmt: skip
    """Each member of a block, as a lead beside the block's row: for features that add up to one (the room in the
    centre) the room against the average layout (its coefficient minus the mean over the rooms, the one left out
    counting 0), else the feature's own coefficient (yes against no), all with simultaneous intervals over the block
    (the 95% point of the largest of their t statistics, by Monte Carlo): the one that stands out is not picked
    from many by luck. [] when more than the reference is left out (too few games)."""
    index = {n: i for i, n in enumerate(f.names)}
    missing = [n for n in members if n not in index]
    effect_coded = sums_to_one(members)
    if len(missing) > (1 if effect_coded else 0) or not np.all(np.isfinite(f.beta)):
        return []
    lin = np.zeros((len(members), len(f.names)))
    for r, name in enumerate(members):
        if name in index:
            lin[r, index[name]] += 1.0
        if effect_coded:
            for other in members:
                if other in index:
                    lin[r, index[other]] -= 1.0 / len(members)
    value = lin @ f.beta
    cov = lin @ f.cov @ lin.T
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    if not np.all(se > 0):
        return []
    corr = cov / np.outer(se, se)
    z = np.random.default_rng(seed).multivariate_normal(np.zeros(len(members)), corr, size=draws, method="eigh")
    q = float(np.quantile(np.abs(z).max(1), confidence))
    return [{"feature": n, "effect": float(v), "low": float(v - q * s), "high": float(v + q * s),
             "against": "the average layout" if effect_coded else "not"}
            for n, v, s in zip(members, value, se, strict=True)]  # fmt: skip
