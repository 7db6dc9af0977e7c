"""The sequential probability ratio test of an A/B match on paired games, and the Elo scale.

A match is played in seat-rotation groups: one setup seed in every seating, so the games of a group are not
independent and the group is the unit. With two players a group is a game pair and its score (A's mean) is one of
0, 1/4, 1/2, 3/4, 1: the pentanomial model of fishtest. With more players the group score has more values; the test
is the same. The log-likelihood ratio is the generalised SPRT on the empirical distribution of group scores
(M. Van den Bergh's "model-free" GSPRT, as fishtest computes it): for a hypothesised mean score ``s`` the maximum
likelihood distribution on the observed support with that mean is ``p_i / (1 + lambda (a_i - s))``, and

    LLR = N * sum_i p_i * log(p1_i / p0_i)

compared with Wald's bounds ``log(beta / (1 - alpha))`` (accept H0) and ``log((1 - beta) / alpha)`` (accept H1).
Elo is logistic: a score share ``s`` is ``-400 log10(1 / s - 1)`` Elo. After the test, ``stopped_estimate`` gives
the Elo and interval that account for its stopping rule (below).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy import optimize

PSEUDO = 1e-3  # pseudo-count on the end points 0 and 1, so any mean strictly between them has a fitted distribution


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    if not 0.0 < score < 1.0:
        return math.copysign(math.inf, score - 0.5) if score != 0.5 else 0.0
    return -400.0 * math.log10(1.0 / score - 1.0)


def unbounded_elo(score: float, who: str = "A", against: str = "B") -> str | None:
    """Why a score share has no finite Elo (``who`` won or lost everything against ``against``), or None."""
    if score >= 1.0:
        return f"{who} won every game against {against} (score 1): no finite Elo"
    if score <= 0.0:
        return f"{who} lost every game against {against} (score 0): no finite Elo"
    return None


def elo_end(x: float) -> str:
    """An Elo figure or interval end as printed: an infinite one is "unbounded", never a number."""
    return "unbounded" if math.isinf(x) else "-" if math.isnan(x) else f"{x:+.1f}"


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: below the lower accept H0, above the upper accept H1."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def distribution(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Support (with 0 and 1 always in it), probabilities (with a tiny pseudo-count on 0 and 1) and N."""
    counts = Counter(np.round(np.asarray(scores, dtype=float), 9).tolist())
    counts[0.0] = counts.get(0.0, 0) + PSEUDO
    counts[1.0] = counts.get(1.0, 0) + PSEUDO
    support = np.array(sorted(counts))
    weight = np.array([counts[a] for a in support], dtype=float)
    return support, weight / weight.sum(), float(len(scores))


def mle(support: np.ndarray, probs: np.ndarray, s: float) -> np.ndarray:
    """The distribution on ``support`` closest to ``probs`` (maximum likelihood) with mean ``s``."""
    d = support - s
    hi = 1.0 / -d.min() if d.min() < 0 else math.inf  # 1 + lambda d_i > 0 for all i
    lo = -1.0 / d.max() if d.max() > 0 else -math.inf
    eps = 1e-12

    def f(lam: float) -> float:
        return float(np.sum(probs * d / (1.0 + lam * d)))

    lam = optimize.brentq(f, lo + eps * abs(lo), hi - eps * abs(hi), xtol=1e-14)
    p = probs / (1.0 + lam * d)
    return p / p.sum()


def llr(scores: np.ndarray, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``) for the group scores."""
    scores = np.asarray(scores, dtype=float)
    if len(scores) < 2:
        return 0.0
    support, probs, n = distribution(scores)
    p0 = mle(support, probs, elo_to_score(elo0))
    p1 = mle(support, probs, elo_to_score(elo1))
    return float(n * np.sum(probs * np.log(p1 / p0)))


@dataclass(frozen=True)
class SprtState:
    result: str  # "H0", "H1" or "undecided"
    llr: float
    lower: float
    upper: float


def decide(scores: np.ndarray, elo0: float, elo1: float, alpha: float, beta: float) -> SprtState:
    lower, upper = bounds(alpha, beta)
    value = llr(scores, elo0, elo1)
    result = "H1" if value >= upper else "H0" if value <= lower else "undecided"
    return SprtState(result, value, lower, upper)


def pentanomial(scores: np.ndarray) -> list[int]:
    """Counts of game-pair scores 0, 1/4, 1/2, 3/4, 1 (two players: a pair is a rotation group)."""
    idx = np.round(np.asarray(scores, dtype=float) * 4).astype(int)
    return np.bincount(np.clip(idx, 0, 4), minlength=5).tolist()


# --- the estimate after a sequential stop ------------------------------------------------------------------------
# A test that stops when the LLR crosses a bound stops early on samples that happen to run ahead, so the plain mean
# of the stopped sample is biased away from the middle and its fixed-length interval covers less than it says. The
# stopping-rule-aware estimate (Whitehead's ordering of the outcomes of a sequential test, computed as fishtest's
# ``SPRT_elo`` does): the LLR is approximated by a Brownian motion whose drift and variance per group follow from the
# score distribution (M. Van den Bergh, "GSPRT approximation"); the outcomes of the test are ordered (an earlier
# stop at the lower bound is worse, then later ones, then the runs still open at the end by their LLR, then later
# and earlier stops at the upper bound), and the estimate at level q is the Elo at which an outcome worse than the
# observed one has probability 1 - q: the median (q = 1/2) is median-unbiased, q = (1 -+ c)/2 give the interval.
ELO_LIMIT = 1000.0  # an estimate or interval end beyond +-this is unbounded
OVERSHOOT = 0.5826  # Siegmund's correction: a walk tested every d steps stops as a continuous one at bounds moved
# out by this many standard deviations of d steps (Siegmund 1985, Sequential Analysis, ch. X; -zeta(1/2)/sqrt(2 pi))


@dataclass(frozen=True)
class Stopped:
    """The Elo estimate and interval of a sequential test, accounting for its stopping rule."""

    elo: float
    low: float
    high: float
    confidence: float
    clamped_llr: float  # the LLR the estimate used (the observed one, put back on a bound it overshot)
    groups: float  # the groups the estimate used (the time the Brownian LLR would have reached that bound)


def llr_drift(var: float, s: float, s0: float, s1: float) -> tuple[float, float]:
    """Drift and variance per group of the (approximate) LLR of H1 against H0 when the true mean score is ``s`` and
    the group scores' variance is ``var``: the observed one whatever ``s``, as fishtest's
    ``LLRcalc.LLR_drift_variance_alt2`` has it since its commit 93fe81eb (2026-07-20, "Fix for issue 2571"). Before
    it, fishtest used the variance's maximum likelihood under ``s``, v + (s - s_hat)^2, which made the chance of a
    worse outcome non-monotone in the Elo; its intervals were wider far from the observed mean (on pentanomial
    [5, 0, 7, 0, 6], SPRT(0, 5): upper end 181.7 Elo against 153.8 now)."""
    return (s - (s0 + s1) / 2.0) * (s1 - s0) / var, (s1 - s0) ** 2 / var


def _exit_low(z: np.ndarray, a: float, b: float, gamma: float) -> np.ndarray:
    """Probability that a Brownian motion with drift/variance ratio ``gamma`` started at ``z`` in (a, b) leaves at
    ``a`` first (scale function exp(-2 gamma z)), written to stay finite for any sign of gamma."""
    width = b - a
    if abs(gamma * width) < 1e-9:
        return (b - z) / width
    if gamma > 0:
        return (np.exp(-2 * gamma * (z - a)) - math.exp(-2 * gamma * width)) / -math.expm1(-2 * gamma * width)
    return np.expm1(2 * gamma * (b - z)) / math.expm1(2 * gamma * width)


def _alive_density(z: np.ndarray, a: float, b: float, mu: float, sigma2: float, t: float) -> np.ndarray:
    """Density at ``z`` of a Brownian motion from 0 (drift ``mu``, variance ``sigma2`` per group) that has not left
    (a, b) by time ``t``: method of images for short times, the sine series for long ones, times the drift's
    Girsanov factor ``exp(gamma z - mu^2 t / (2 sigma2))``."""
    width = b - a
    v = sigma2 * t
    if v < width**2:
        reach = math.ceil(4 * math.sqrt(v) / width) + 1  # images beyond this many widths weigh < exp(-8)
        k = np.arange(-reach, reach + 1)[:, None]
        direct = np.exp(-((z[None, :] - 2 * k * width) ** 2) / (2 * v))
        mirror = np.exp(-((z[None, :] - 2 * a - 2 * k * width) ** 2) / (2 * v))
        base = (direct - mirror).sum(0) / math.sqrt(2 * math.pi * v)
    else:
        n = np.arange(1, 16)[:, None]
        decay = np.exp(-((n * math.pi / width) ** 2) * v / 2)
        base = (2 / width) * (decay * np.sin(n * math.pi * (z[None, :] - a) / width)
                              * np.sin(n * math.pi * (0 - a) / width)).sum(0)  # fmt: skip
    gamma = mu / sigma2
    return np.maximum(base, 0.0) * np.exp(gamma * z - mu * mu * t / (2 * sigma2))


def worse_outcome(a: float, b: float, mu: float, sigma2: float, t: float, y: float, grid: int = 241) -> float:
    """P(an outcome worse than the observed one): the Brownian LLR leaves at ``a`` before ``t``, or is still inside
    at ``t`` below ``y`` (y = a or b: the test stopped at that bound at time ``t``)."""
    gamma = mu / sigma2
    low = float(_exit_low(np.array([0.0]), a, b, gamma)[0])  # leaves at a, at any time
    left = np.linspace(a, y, grid) if y > a else np.array([a, a])
    right = np.linspace(y, b, grid) if y < b else np.array([b, b])
    below = np.trapezoid(_alive_density(left, a, b, mu, sigma2, t), left)
    late_low = sum(
        np.trapezoid(_alive_density(z, a, b, mu, sigma2, t) * _exit_low(z, a, b, gamma), z) for z in (left, right)
    )
    return float(min(1.0, max(0.0, low + below - late_low)))


def stopped_estimate(
    scores: np.ndarray, elo0: float, elo1: float, alpha: float, beta: float, confidence: float = 0.95, batch: int = 1
) -> Stopped:
    """The median-unbiased Elo and its interval after a sequential test on these group scores (stopped at a bound,
    or still open at the end). ``batch`` > 1: the test looked only every ``batch`` groups, so it overshoots its
    bounds; the Brownian model's bounds are moved out by Siegmund's correction to match (batch 1 is fishtest's
    model exactly)."""
    support, probs, n = distribution(scores)
    mean = float(np.sum(probs * support))
    var = float(np.sum(probs * (support - mean) ** 2))
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    a, b = bounds(alpha, beta)
    slope, sigma2 = llr_drift(var, mean, s0, s1)
    if batch > 1:
        shift = OVERSHOOT * math.sqrt(sigma2 * batch)
        a, b = a - shift, b + shift
    y, t = n * slope, n
    if y <= a or y >= b:  # stopped on a bound (an overshoot is put back on it, at the time it would have crossed)
        y = a if y <= a else b
        t = y / slope

    def worse(elo: float) -> float:
        mu, s2 = llr_drift(var, elo_to_score(elo), s0, s1)
        return worse_outcome(a, b, mu, s2, t, y)

    def at(q: float) -> float:
        if worse(-ELO_LIMIT) < 1 - q:
            return -math.inf
        if worse(ELO_LIMIT) > 1 - q:
            return math.inf
        return float(optimize.brentq(lambda e: worse(e) - (1 - q), -ELO_LIMIT, ELO_LIMIT, xtol=1e-4))

    tail = (1 - confidence) / 2
    return Stopped(at(0.5), at(tail), at(1 - tail), confidence, y, t)
