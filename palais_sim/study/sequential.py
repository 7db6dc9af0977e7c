"""Group-sequential boundaries by alpha spending (Lan & DeMets 1983), and the repeated confidence intervals they give.

A study that looks at its data K times and stops at the first decided look must keep its error over all the looks.
Splitting the 5% evenly (Bonferroni: each look at 1 - 0.05/K) does, but wastefully: the cumulative statistics of
the looks are strongly correlated (corr(Z_i, Z_j) = sqrt(t_i / t_j) for information fractions t_i <= t_j), so the
overall error of Bonferroni's looks is well under 5% (3.8% at three equal looks, 3.3% at five) and every look's
interval is wider than it needs to be, the last one most of all.

A *spending function* alpha(t) says how much of the two-sided error may be used up by information fraction t (0 at
0, alpha at 1). The critical value c_k of look k is the one at which the chance of crossing a boundary for the first
time at look k is alpha(t_k) - alpha(t_(k-1)): with the joint normal of the cumulative statistics,

    P(|Z_1| < c_1, ..., |Z_k| < c_k) = 1 - alpha(t_k),

solved look by look (``scipy.stats.multivariate_normal`` gives the rectangle's probability). Two shapes:

- ``obf`` (the default), Lan-DeMets' O'Brien-Fleming shape, two-sided: alpha(t) = 4 - 4 Phi(z_(1 - alpha/4) / sqrt(t))
  (each side spends alpha/2 as 2 - 2 Phi(z_(1 - alpha/4) / sqrt(t))). Early looks are very strict (4.88 at the first
  of five), the last nearly a fixed design's (2.03 instead of 1.96): little is lost when a study plays every look.
- ``pocock``, Lan-DeMets' Pocock shape: alpha(t) = alpha ln(1 + (e - 1) t). About the same critical value at every
  look (2.41 at five): earlier stops for clear effects, a wider last interval.

The interval at look k is the *repeated confidence interval* (Jennison & Turnbull 2000, ch. 9): the estimate +-
c_k standard errors. All K of them hold the true value together with probability 1 - alpha, so any decision read
from any of them (favoured, disfavoured, balanced within the margin), at whatever look the study stopped, keeps the
95%. A study's values are means of a few dozen groups with an estimated standard error, so its interval uses the t
quantile of the same tail probability (``look_confidence``: the level 2 Phi(c_k) - 1 handed to the t interval).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import stats
from scipy.optimize import brentq

SHAPES = ("obf", "pocock")
ALPHA = 0.05  # two-sided, spent over all looks


def spent(t: float, shape: str = "obf", alpha: float = ALPHA) -> float:
    """The two-sided error the spending function allows to be used up by information fraction ``t`` (0..1)."""
    if t <= 0:
        return 0.0
    t = min(t, 1.0)
    if shape == "obf":
        return float(4 - 4 * stats.norm.cdf(stats.norm.ppf(1 - alpha / 4) / np.sqrt(t)))
    if shape == "pocock":
        return float(alpha * np.log(1 + (np.e - 1) * t))
    raise ValueError(f"the spending function must be one of {', '.join(SHAPES)}, got {shape!r}")


def _corr(fractions: tuple[float, ...]) -> np.ndarray:
    t = np.asarray(fractions, dtype=float)
    return np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))


def inside_mvn(fractions: tuple[float, ...], bounds: tuple[float, ...]) -> float:
    """P(|Z_i| < bounds_i for every look i) from ``scipy.stats.multivariate_normal`` (Genz's quasi-Monte Carlo,
    corr sqrt(t_i / t_j)): the independent check of ``inside``, accurate to about 1e-6 and slow (seconds at ten
    looks), so the boundaries are solved with ``inside``."""
    k = len(bounds)
    hi = np.asarray(bounds, dtype=float)
    dist = stats.multivariate_normal(np.zeros(k), _corr(fractions[:k]), seed=1, abseps=1e-9, releps=0,
                                     maxpts=50_000 * k)  # fmt: skip
    return float(dist.cdf(hi, lower_limit=-hi))


GRID = 801  # Simpson points over a look's continuation region (odd)
WIDE = 9.0  # standard deviations: the region of a look that never rejects


class _Density:
    """The sub-density of the score S_k = Z_k sqrt(t_k) on paths that have not crossed a boundary by look k, on a
    Simpson grid over its continuation region (Armitage, McPherson & Rowe 1969; Jennison & Turnbull 2000, ch. 19):
    S has independent normal increments of variance t_k - t_(k-1), so each look's density is the last one's
    convolved with that increment and cut at the look's boundary. Exact up to the quadrature (about 1e-9)."""

    def __init__(self, t: float, bound: float) -> None:
        self.t = t
        self.x, self.w = _simpson(_half_width(bound, t))
        self.f = stats.norm.pdf(self.x, scale=np.sqrt(t))

    def mass_inside(self, t: float, bound: float) -> float:
        """P(no crossing up to this look, and |Z| < ``bound`` at a next look at fraction ``t``)."""
        sd = np.sqrt(t - self.t)
        half = _half_width(bound, t)
        keep = stats.norm.cdf((half - self.x) / sd) - stats.norm.cdf((-half - self.x) / sd)
        return float(np.sum(self.w * self.f * keep))

    def step(self, t: float, bound: float) -> _Density:
        """The density at the next look (fraction ``t``, critical value ``bound``)."""
        sd = np.sqrt(t - self.t)
        nxt = _Density.__new__(_Density)
        nxt.t = t
        nxt.x, nxt.w = _simpson(_half_width(bound, t))
        kernel = stats.norm.pdf((nxt.x[:, None] - self.x[None, :]) / sd) / sd
        nxt.f = kernel @ (self.w * self.f)
        return nxt


def _half_width(bound: float, t: float) -> float:
    return float(min(bound, WIDE) * np.sqrt(t))


def _simpson(half: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-half, half, GRID)
    w = np.ones(GRID)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return x, w * (x[1] - x[0]) / 3


def inside(fractions: tuple[float, ...], bounds: tuple[float, ...]) -> float:
    """P(|Z_i| < bounds_i for every look i) for the cumulative statistics at ``fractions`` under no effect (their
    joint normal: corr(Z_i, Z_j) = sqrt(t_i / t_j)), by recursive numerical integration."""
    if len(bounds) == 1:
        return float(1 - 2 * stats.norm.sf(bounds[0]))
    density = _Density(fractions[0], bounds[0])
    for t, b in zip(fractions[1:-1], bounds[1:-1], strict=True):
        density = density.step(t, b)
    return density.mass_inside(fractions[len(bounds) - 1], bounds[-1])


@lru_cache(maxsize=256)
def boundaries(fractions: tuple[float, ...], shape: str = "obf", alpha: float = ALPHA) -> tuple[float, ...]:
    """The two-sided critical values (z scale) of looks at the increasing information ``fractions`` (the last one
    normally 1: the planned end), look k spending alpha(t_k) - alpha(t_(k-1)) of the error."""
    if not fractions or fractions[0] <= 0 or any(b <= a for a, b in zip(fractions, fractions[1:], strict=False)):
        raise ValueError(f"information fractions must increase from above 0, got {list(fractions)}")
    bounds = [float(stats.norm.isf(spent(fractions[0], shape, alpha) / 2))]
    density = _Density(fractions[0], bounds[0])
    for k in range(1, len(fractions)):
        t = fractions[k]
        target = 1 - spent(t, shape, alpha)  # the chance of no crossing by look k
        if spent(t, shape, alpha) <= spent(fractions[k - 1], shape, alpha):  # nothing to spend: never rejects
            bound = float("inf")
        else:
            bound = _solve(density, t, target)
        bounds.append(bound)
        if k < len(fractions) - 1:
            density = density.step(t, bound)
    return tuple(bounds)


def _solve(density: _Density, t: float, target: float) -> float:
    """The critical value c at fraction ``t`` with P(no crossing before, |Z| < c now) = ``target``."""
    return float(brentq(lambda c: density.mass_inside(t, c) - target, 0.1, 40.0, xtol=1e-10))


def look_confidence(bound: float) -> float:
    """The pointwise level of a look's interval with critical value ``bound``: 2 Phi(c) - 1."""
    return 1.0 if not np.isfinite(bound) else float(1 - 2 * stats.norm.sf(bound))


def fractions_of(sizes: list[int] | tuple[int, ...]) -> tuple[float, ...]:
    """The information fractions of looks of ``sizes`` groups each (cumulative over the planned total)."""
    total = sum(sizes)
    return tuple(float(x) / total for x in np.cumsum(sizes))


def total_error(fractions: tuple[float, ...], bounds: tuple[float, ...]) -> float:
    """The chance that some look crosses its boundary under no effect: the design's overall two-sided error."""
    finite = [(t, b) for t, b in zip(fractions, bounds, strict=True) if np.isfinite(b)]
    if not finite:
        return 0.0
    ts, bs = zip(*finite, strict=True)
    return 1 - inside(tuple(ts), tuple(bs))
