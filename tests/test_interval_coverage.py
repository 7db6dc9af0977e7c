"""The intervals keep their promise: each one's coverage in simulation, where the truth is planted.

Every simulation is vectorised numpy on a fixed seed, so each test is fast and deterministic; the bounds (93-97% for a
95% interval) are about three simulation standard errors either side of 95%.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from palais_sim.analytics import sprt, stats, winrates
from palais_sim.analytics.paired import mean_interval
from palais_sim.analytics.report_format import pp, pval
from palais_sim.analytics.report_render import Report
from palais_sim.analytics.seat_balance import finish_seats
from palais_sim.analytics.sections_common import seat_tables
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.studies.nobles import (
    LookReading,
    NoblesPlan,
    price_line,
    price_point,
    subject_row,
    to_reprice,
)
from palais_sim.study.common import StudySpec
from palais_sim.study.match import MatchPlan, stopped_estimate

COMPS = load_components()

# --- the fair price of a noble: the price line's Fieller interval, on the study's own path ----------------------
# Planted: a noble printed at GOLD whose value (pp) is SLOPE * (price - FAIR); each arm's group values are a 2-player
# group's (1/2 - the forbidden player's win share over its two games). The study plays the base arm in looks and
# stops at its first decided look; ``--reprice decided`` reprices the noble only when that verdict is decided; each
# variant's arm is played in looks and stops the same way; the line is fitted from the rows as the study makes them.
GOLD, FAIR, SLOPE = 3, 3.5, -4.0  # the base arm's value +2 pp: decided (and so repriced) only when it runs high
OFFSETS = (-1, 1)
MARGIN = StudySpec(strategies=("greedy",)).margin


def _group_wins(value_pp: float, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """The forbidden player's win share per group: a 2-player group's two games (its seatings)."""
    return rng.binomial(2, 0.5 - value_pp / 100, shape) / 2.0


def _arm_row(plan: NoblesPlan, wins: np.ndarray, stops: bool = True) -> dict:
    """One arm played look by look as ``play_rounds`` does (its row from every look so far, at that look's level),
    stopping at its first decided look if it ``stops`` (a variant of a price line plays every look)."""
    runs, row, done = [], {}, 0
    for look, size in enumerate(plan.look_sizes()):
        runs.append(LookReading(wins[done : done + size], {}))
        done += size
        row = subject_row(plan, runs, "noble", "N17", "greedy", COMPS, plan.look_confidence(look))
        if stops and row["verdict"] != "undecided":
            break
    return row


def _may_decide(plan: NoblesPlan, wins: np.ndarray) -> np.ndarray:
    """Per replicate (rows of ``wins``): whether some look's interval could lie wholly beyond the margin. Every
    look's level is at least 95%, so its t quantile exceeds 1.95: an arm no look of which has |mean| - 1.95 se above
    the margin is never favoured nor disfavoured, and need not be played through ``subject_row``."""
    ends = np.cumsum(plan.look_sizes())
    values = 100 * (0.5 - wins)
    total, square = np.cumsum(values, axis=1)[:, ends - 1], np.cumsum(values**2, axis=1)[:, ends - 1]
    mean = total / ends
    se = np.sqrt(np.maximum(square / ends - mean**2, 0) * ends / (ends - 1) / ends)
    return (np.abs(mean) - 1.95 * se > MARGIN).any(axis=1)


def fair_price_coverage(looks: int, spending: str, groups: int, reps: int, seed: int) -> tuple[float, int]:
    """How often the fair price's interval holds the planted one among the lines the study draws (``reps`` studies
    of the one noble), and how many lines it drew."""
    rng = np.random.default_rng(seed)
    plan = NoblesPlan(StudySpec(strategies=("greedy",), groups=groups), looks=looks, spending=spending,
                      offsets=OFFSETS)  # fmt: skip
    hits = lines = 0
    for chunk in range(0, reps, 2000):
        bases = _group_wins(SLOPE * (GOLD - FAIR), (min(2000, reps - chunk), groups), rng)
        for wins in bases[_may_decide(plan, bases)]:
            if not to_reprice(plan, [_arm_row(plan, wins)]):  # the base verdict selects the nobles repriced
                continue
            wins = {d: _group_wins(SLOPE * (GOLD + d - FAIR), (groups,), rng) for d in OFFSETS}
            variants = {GOLD + d: _arm_row(plan, w, stops=False) for d, w in wins.items()}
            ci = price_line("N17", "greedy", GOLD, variants)["fair_price_ci"]
            if ci is not None:
                lines += 1
                hits += ci[0] <= FAIR <= ci[1]
    return hits / lines, lines


@pytest.mark.parametrize(("looks", "spending"), [(1, "obf"), (3, "obf"), (5, "obf"), (3, "pocock"), (5, "pocock")])
def test_the_fair_price_interval_covers_95_percent_on_the_studys_own_path(looks: int, spending: str) -> None:
    """The line's points were the base row that selected the noble and its variants on the base arm's setups: with
    600 groups the interval covered about 80% at 1, 3 and 5 looks. The variants on setups of their own, the base
    row left off the line, it covers 93-97% at any number of looks and either spending shape."""
    coverage, lines = fair_price_coverage(looks, spending, groups=600, reps=32_000, seed=48 + looks)
    assert lines >= 600  # enough lines drawn to read a coverage
    assert 0.93 <= coverage <= 0.97, (coverage, lines)


def test_a_points_standard_error_is_its_own_not_read_back_from_its_interval() -> None:
    """The same point at 1 and at 5 looks (a wider verdict interval) weighs the same in the line."""
    x = np.random.default_rng(3).normal(0, 10, 50)
    one, five = mean_interval(x, 0.95), mean_interval(x, 0.99)
    base = {"n_groups": 50, "verdict": "", "reason": ""}
    p1 = price_point(1, {**base, "effect": one.mean, "se": one.se, "ci": [one.low, one.high]})
    p5 = price_point(1, {**base, "effect": five.mean, "se": five.se, "ci": [five.low, five.high]})
    assert p1["se"] == p5["se"] and p1["ci"] != p5["ci"]


def test_an_interval_is_cut_to_the_range_of_its_values_and_covers_as_often() -> None:
    """A value 1/2 - a win share lies in [-1/2, +1/2]: four groups' t interval at a look's strict level reached
    [-1.85, +1.47] (a tiny ladder study printed it); cut there it still covers whenever the uncut one does, since the
    mean lies in the range too."""
    rng = np.random.default_rng(12)
    within = (-0.5, 0.5)
    wide = mean_interval(np.array([0.5, -0.5, 0.5, 0.0]), 0.999)
    cut = mean_interval(np.array([0.5, -0.5, 0.5, 0.0]), 0.999, within)
    assert wide.low < -0.5 and wide.high > 0.5 and (cut.low, cut.high) == within and cut.mean == wide.mean
    for true_share in (0.05, 0.5, 0.9):  # the forbidden player's chance to win its group (value = 1/2 - share)
        wins = (rng.random((4000, 5)) < true_share).astype(float)
        hits_wide = hits_cut = 0
        for row in 0.5 - wins:
            w, c = mean_interval(row, 0.95), mean_interval(row, 0.95, within)
            assert within[0] <= c.low <= c.mean <= c.high <= within[1] or not np.isfinite(w.se) or w.se == 0
            hits_wide += w.low <= 0.5 - true_share <= w.high
            hits_cut += c.low <= 0.5 - true_share <= c.high
        assert hits_cut == hits_wide


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


# --- the seat headline: it names the seat that is flagged ---------------------------------------------------------
def _planted_seats(probs: list[float], groups: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A 5-player run in groups of 5 games (the seat rotations of one setup), each game won by seat ``i`` with the
    planted chance ``probs[i]``: the seats table and the per-group table ``finish_seats`` reads from a run."""
    rng = np.random.default_rng(seed)
    players = len(probs)
    winner = rng.choice(players, size=(groups, players), p=probs)  # (group, game in the group)
    wins = np.stack([(winner == s).sum(1) for s in range(players)], axis=1).astype(float)  # (group, seat)
    by_group = pl.DataFrame({
        "players": np.full(groups * players, players), "group": np.repeat(np.arange(groups), players),
        "seat": np.tile(np.arange(1, players + 1), groups), "n": np.full(groups * players, players),
        "win": wins.ravel(),
    })  # fmt: skip
    seats = pl.DataFrame({
        "players": np.full(players, players), "seat": np.arange(1, players + 1),
        "games": np.full(players, groups * players), "wins": wins.sum(0), "mean_score": np.zeros(players),
    })  # fmt: skip
    return seats, by_group


def test_the_seat_headline_names_the_flagged_seat_not_the_highest_share() -> None:
    """Seat 1 planted 1.2 pp below 1/5 (flagged), seat 4 0.9 pp above (the highest share, but under the 1 pp
    minimum effect, so not flagged): the summary names seat 1 with its own p, and not seat 4."""
    seats, by_group = _planted_seats([0.188, 0.201, 0.201, 0.209, 0.201], groups=20_000, seed=5)
    table, balance = finish_seats(seats, 0.01, by_group)
    assert table["flagged"].to_list() == [True, False, False, False, False]
    assert balance["best_seat"][0] == 4
    rep = Report("seats")
    seat_tables(rep, table, balance)
    (line,) = [h for h in rep.headline if h.startswith("Seat advantage at 5 players")]
    assert "seat 1 wins" in line and "seat 4" not in line, line
    one = table.row(0, named=True)
    assert pp(one["edge"]) in line and pval(one["p_holm"]) in line
    # nothing planted: no seat flagged, and the headline says so
    seats, by_group = _planted_seats([0.2] * 5, groups=2_000, seed=6)
    table, balance = finish_seats(seats, 0.01, by_group)
    rep = Report("seats")
    seat_tables(rep, table, balance)
    assert not table["flagged"].any() and "no seat flagged" in rep.headline[0]


def test_the_seat_interval_and_its_p_agree_and_cover_95_percent() -> None:
    """Seat shares planted with a group effect (the setup favours a seat in some groups): the clustered interval
    excludes 1/P exactly when the seat's p is below 0.05, and covers the planted share in 93-97% of 800 runs."""
    rng = np.random.default_rng(7)
    hits = total = 0
    probs = np.array([0.22, 0.2, 0.2, 0.19, 0.19])
    for _rep in range(800):
        groups = 150
        tilt = rng.dirichlet(np.full(5, 8.0), groups)  # each group's setup moves the chances
        chance = 0.5 * probs + 0.5 * tilt
        u = rng.random((groups, 5, 1))
        winner = (u > np.cumsum(chance, axis=1)[:, None, :]).sum(2)  # (group, game)
        wins = np.stack([(winner == s).sum(1) for s in range(5)], axis=1).astype(float)
        by_group = pl.DataFrame({"players": np.full(groups * 5, 5), "group": np.repeat(np.arange(groups), 5),
                                 "seat": np.tile(np.arange(1, 6), groups), "n": np.full(groups * 5, 5),
                                 "win": wins.ravel()})  # fmt: skip
        seats = pl.DataFrame({"players": np.full(5, 5), "seat": np.arange(1, 6), "games": np.full(5, groups * 5),
                              "wins": wins.sum(0), "mean_score": np.zeros(5)})  # fmt: skip
        table, _ = finish_seats(seats, 0.01, by_group)
        low, high, p = table["ci_low"].to_numpy(), table["ci_high"].to_numpy(), table["p"].to_numpy()
        assert ((p < 0.05) == ((low > 0.2) | (high < 0.2))).all()
        truth = 0.5 * probs + 0.5 * 0.2
        hits += int(((low <= truth) & (truth <= high)).sum())
        total += 5
    assert 0.93 <= hits / total <= 0.97, hits / total


# --- the match after an SPRT stop: the stopping-rule-aware Elo ----------------------------------------------------
DRAW = 0.1  # a game's chance of a shared win in the fast model


def _sprt_match(elo: float, plan: MatchPlan, rng: np.random.Generator) -> np.ndarray:
    """A match without games: group (game-pair) scores from the planted Elo (each game won, shared or lost
    independently with A's expected score ``elo_to_score(elo)``), in batches, stopping as ``play_match`` does."""
    s = sprt.elo_to_score(elo)
    chances = [1 - s - DRAW / 2, DRAW, s - DRAW / 2]  # lose, share, win
    scores = np.empty(0)
    while len(scores) * plan.players < plan.max_games:
        games = rng.choice(3, size=(plan.batch_groups, 2), p=chances) / 2.0
        scores = np.concatenate([scores, games.mean(1)])
        if sprt.decide(scores, plan.elo0, plan.elo1, plan.alpha, plan.beta).result != "undecided":
            break
    return scores


def _sprt_coverage(elo: float, reps: int, seed: int) -> tuple[float, float, float]:
    """Coverage of the match's interval after the SPRT, of the plain one, and the median estimate's mean error."""
    plan = MatchPlan("a", "b", elo0=0.0, elo1=20.0, max_games=40_000)  # batches of 50 groups, as the match
    rng = np.random.default_rng(seed)
    hits = plain_hits = 0
    errors = []
    for _ in range(reps):
        scores = _sprt_match(elo, plan, rng)
        est = stopped_estimate(plan, scores)
        assert est is not None
        hits += est.low <= elo <= est.high
        m = mean_interval(scores)
        plain_hits += sprt.score_to_elo(m.low) <= elo <= sprt.score_to_elo(m.high)
        errors.append(est.elo - elo)
    return hits / reps, plain_hits / reps, float(np.mean(errors))


@pytest.mark.parametrize("elo", [0.0, 10.0, 20.0])
def test_the_matchs_interval_after_an_sprt_stop_covers_95_percent(elo: float) -> None:
    coverage, _, _ = _sprt_coverage(elo, reps=300, seed=int(elo) + 1)
    assert 0.93 <= coverage <= 0.97, coverage


# fishtest's own numbers for a few pentanomial runs, computed outside this repository with
# server/fishtest/stats/stat_util.py::SPRT_elo (official-stockfish/fishtest at b8eecff220b562a0dc2c4e68d1fa02521e06d72c,
# 2026-08-22; elo_model="logistic", alpha = beta = 0.05, p = 0.05, R = {"pentanomial": counts}): (pentanomial counts,
# elo0, elo1) -> (elo, ci low, ci high), and the tolerance (Elo) of the comparison. The last four are wide: there the
# variance model decides the interval, and fishtest before its commit 93fe81eb (the variance's MLE under each Elo,
# v + (s - s_hat)^2) gave [-123.7, +177.8], [-89.8, +83.5], [-121.1, +181.7] and [-87.2, +85.7]; every difference from
# fishtest of today is its pseudo-count (1e-3 on every empty pentanomial cell, here on 0 and 1 only).
FISHTEST_SPRT_ELO = [
    (([10, 40, 100, 45, 12], 0, 20), (7.579093357699247, -14.058830907036002, 29.292112492114327), 0.01),
    (([30, 150, 300, 170, 40], 0, 20), (10.045859554258193, -3.4198532278604516, 23.510885351035668), 0.01),
    (([5, 60, 150, 80, 20], 0, 5), (27.632367654220634, 11.112148672384652, 44.27831672984163), 0.01),
    (([40, 210, 420, 190, 30], 0, 20), (-4.502978341005959, -26.772175634491468, 18.418971427408714), 0.01),
    (([100, 1000, 3000, 1050, 110], -3, 1), (1.6512877092408635, -2.791568463172938, 5.9482098369927945), 0.01),
    (([5, 0, 7, 0, 6], 0, 20), (19.319720765634052, -109.31345145254235, 153.75158105711918), 0.5),
    (([0, 10, 0, 10, 0], 0, 20), (0.0, -77.39274042030422, 77.39274042030415), 0.5),
    (([5, 0, 7, 0, 6], 0, 5), (19.31972076563394, -109.31345145254241, 153.7515810571192), 0.5),
    (([0, 10, 0, 10, 0], 0, 5), (0.0, -77.39274042030416, 77.39274042030418), 0.5),
]


@pytest.mark.parametrize(("case", "expected", "within"), FISHTEST_SPRT_ELO)
def test_the_stopped_estimate_matches_fishtests_sprt_elo(case: tuple, expected: tuple, within: float) -> None:
    counts, elo0, elo1 = case
    scores = np.repeat([0, 0.25, 0.5, 0.75, 1], counts)
    est = sprt.stopped_estimate(scores, elo0, elo1, 0.05, 0.05, 0.95)
    assert (est.elo, est.low, est.high) == pytest.approx(expected, abs=within)
