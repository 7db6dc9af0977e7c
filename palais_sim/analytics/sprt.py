"""The sequential probability ratio test of an A/B match on paired games, and the Elo scale.

A match is played in seat-rotation groups: one setup seed in every seating, so the games of a group are not
independent and the group is the unit. With two players a group is a game pair and its score (A's mean) is one of
0, 1/4, 1/2, 3/4, 1: the pentanomial model of fishtest. With more players the group score has more values; the test
is the same. The log-likelihood ratio is the generalised SPRT on the empirical distribution of group scores
(M. Van den Bergh's "model-free" GSPRT, as fishtest computes it): for a hypothesised mean score ``s`` the maximum
likelihood distribution on the observed support with that mean is ``p_i / (1 + lambda (a_i - s))``, and

    LLR = N * sum_i p_i * log(p1_i / p0_i)

compared with Wald's bounds ``log(beta / (1 - alpha))`` (accept H0) and ``log((1 - beta) / alpha)`` (accept H1).
Elo is logistic: a score share ``s`` is ``-400 log10(1 / s - 1)`` Elo.
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
