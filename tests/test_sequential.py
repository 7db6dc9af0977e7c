"""The group-sequential design of the nobles study (``study.sequential``): alpha-spending boundaries against
published values, the error they spend, and the repeated confidence intervals' coverage over all looks in
simulation, where the truth is planted."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sstats

from palais_sim.analytics.paired import mean_interval
from palais_sim.games.palais_royal.studies.nobles import NoblesPlan
from palais_sim.study import sequential as sq
from palais_sim.study.common import StudySpec

# Lan-DeMets spending, K = 5 equally spaced looks, two-sided alpha = 0.05 (0.025 a side): the critical values of
# Reboussin, DeMets, Kim & Lan (2000), "Computations for group sequential boundaries using the Lan-DeMets spending
# function method", Controlled Clinical Trials 21:190-207 (their ld98 program; the same as R's ldbounds
# ldBounds(t = 1:5/5, iuse = 1 or 2, alpha = 0.05, sides = 2) and gsDesign's sfLDOF / sfLDPocock), to 3 decimals.
PUBLISHED = {
    "obf": (4.877, 3.357, 2.680, 2.290, 2.031),
    "pocock": (2.438, 2.427, 2.410, 2.397, 2.386),
}


@pytest.mark.parametrize("shape", sq.SHAPES)
def test_boundaries_match_the_published_lan_demets_values(shape: str) -> None:
    bounds = sq.boundaries(sq.fractions_of([1] * 5), shape)
    assert bounds == pytest.approx(PUBLISHED[shape], abs=6e-4)


@pytest.mark.parametrize("shape", sq.SHAPES)
@pytest.mark.parametrize("sizes", [(1,), (1, 1), (1, 1, 1), (2, 2, 2, 2, 1), (30, 10, 40), (1,) * 10])
def test_the_spent_error_sums_to_five_percent(shape: str, sizes: tuple[int, ...]) -> None:
    """Each look spends alpha(t_k) - alpha(t_(k-1)), checked against scipy's multivariate normal (an independent
    computation of the same probabilities), and the looks together spend 5%."""
    t = sq.fractions_of(sizes)
    bounds = sq.boundaries(t, shape)
    for k in range(1, len(t) + 1):
        crossed = 1 - (sq.inside_mvn(t[:k], bounds[:k]) if k > 1 else sq.inside(t[:1], bounds[:1]))
        assert crossed == pytest.approx(sq.spent(t[k - 1], shape), abs=2e-5), (k, bounds)
    assert sq.total_error(t, bounds) == pytest.approx(0.05, abs=1e-6)
    assert sq.spent(1.0, shape) == pytest.approx(0.05) and sq.spent(0.0, shape) == 0.0


def test_one_look_is_the_fixed_design_and_bad_fractions_are_refused() -> None:
    assert sq.boundaries((1.0,)) == pytest.approx((sstats.norm.isf(0.025),))
    assert sq.look_confidence(sq.boundaries((1.0,))[0]) == pytest.approx(0.95)
    with pytest.raises(ValueError, match="increase"):
        sq.boundaries((0.5, 0.5, 1.0))
    with pytest.raises(ValueError, match="spending"):
        sq.spent(0.5, "linear")


def _plan(looks: int, groups: int = 200, spending: str | None = None) -> NoblesPlan:
    spec = StudySpec(strategies=("greedy",), groups=groups)
    return NoblesPlan(spec, looks=looks) if spending is None else NoblesPlan(spec, looks=looks, spending=spending)


def _levels(plan: NoblesPlan) -> list[float]:
    return [plan.look_confidence(k) for k in range(len(plan.look_sizes()))]


@pytest.mark.parametrize("looks", [1, 3, 5])
def test_the_nobles_looks_spend_exactly_five_percent(looks: int) -> None:
    """The study's own per-look levels, as critical values, cross some look under no effect 5% of the time
    (Bonferroni's 1 - 0.05/K spent 3.8% at three looks and 3.3% at five: wider intervals than needed)."""
    plan = _plan(looks)
    t = sq.fractions_of(plan.look_sizes())
    z = tuple(float(sstats.norm.isf((1 - c) / 2)) for c in _levels(plan))
    error = 1 - (sq.inside_mvn(t, z) if looks > 1 else sq.inside(t, z))
    assert error == pytest.approx(0.05, abs=5e-4), error


# --- simulation: the repeated intervals hold the planted value at every look together -----------------------------
# One group's value as the study makes it at 2 players: 1/2 - the forbidden focus's win share over the two seatings,
# so -1/2, -1/4, 0, +1/4 or +1/2, mostly 0 (forbidding the noble changed nothing), with a planted mean.
VALUES = np.array([-0.5, -0.25, 0.0, 0.25, 0.5])
CHANCES = np.array([0.04, 0.08, 0.62, 0.16, 0.10])
TRUTH = float(VALUES @ CHANCES)


def _simultaneous_coverage(plan: NoblesPlan, reps: int, seed: int) -> float:
    """The share of simulated studies in which every look's interval (at the plan's level for that look, a t
    interval over the groups so far, as the study makes it) holds the planted mean."""
    rng = np.random.default_rng(seed)
    sizes = plan.look_sizes()
    values = rng.choice(VALUES, size=(reps, sum(sizes)), p=CHANCES)
    held = np.ones(reps, dtype=bool)
    for k, n in enumerate(np.cumsum(sizes)):
        x = values[:, :n]
        mean, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(n)
        q = sstats.t.ppf(0.5 + plan.look_confidence(k) / 2, n - 1)
        held &= (mean - q * se <= TRUTH) & (mean + q * se >= TRUTH)
        if k == 0:  # the vectorised interval is the study's own
            est = mean_interval(values[0, :n], plan.look_confidence(k))
            assert (est.low, est.high) == pytest.approx((mean[0] - q * se[0], mean[0] + q * se[0]))
    return float(held.mean())


@pytest.mark.parametrize("looks", [1, 3, 5])
def test_the_repeated_intervals_cover_95_percent_over_all_looks(looks: int) -> None:
    """Every decision of a study that stops at its first decided look is read from one of these intervals, so their
    holding together is what keeps the verdicts at 95%. Within 94-96% in 20,000 simulated studies (a standard error
    of 0.15 pp): Bonferroni's looks held together 96.2% at three looks and 96.7% at five, needlessly wide."""
    coverage = _simultaneous_coverage(_plan(looks), reps=20_000, seed=looks)
    assert 0.94 <= coverage <= 0.96, coverage


def test_a_looks_level_near_100_percent_is_printed_with_the_digits_that_show_it() -> None:
    """The first of five OBF looks is at 99.99989%: printed as "100%" it read as an interval that never misses."""
    from palais_sim.study.evidence import level

    first = _plan(5).look_confidence(0)
    assert level(first) == "99.99989%" and level(0.95) == "95%" and level(1 - 0.05 / 3) == "98.33%"
    assert level(0.99992) == "99.99%" and level(1.0) == "100%"
