"""The report corrections of issue 14: a confounded design gets a warning and no verdicts, one tie rule for win, rank
and head to head, group-clustered seat tests, maximum-likelihood ratings with a group bootstrap, memory linear in the
strategies, and groups never split by batches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import optimize

from palais_sim.analytics import batches, report, stats, winrates
from palais_sim.analytics.design import confound_warning, confounded_player_counts
from palais_sim.analytics.runs import open_run
from palais_sim.games.palais_royal.analysis import setup_balance
from palais_sim.games.palais_royal.analysis.synthetic import SynthSpec, synthetic_run
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings


@pytest.fixture(scope="module")
def aligned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aligned") / "run"
    settings = Settings(games=40, players=2, strategies=("greedy", "random"), format="fixed", rotate_seats=False)
    run(settings, out, workers=1, chunk_size=7)
    return out


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rotated") / "run"
    # chunks of 7 games cut rotation groups of 2 in half: the batches must put them back together
    run(Settings(games=60, players=2, strategies=("greedy", "seals"), seed=3), out, workers=1, chunk_size=7)
    return out


def test_confounded_design_gets_a_warning_and_no_verdicts(aligned: Path, tmp_path: Path) -> None:
    played = open_run(aligned)
    assert confounded_player_counts(played) == [2]
    assert "confounded" in (confound_warning(played) or "")
    w = winrates.compute(played)
    assert w.strategies["p_holm"].null_count() == len(w.strategies)
    s = setup_balance.compute(played)
    assert not s.seats["flagged"].any() and s.seats["p_holm"].is_nan().all()
    assert s.balance["p"].is_nan().all()
    path = report.write(played, "all", tmp_path, "md")
    text = path.read_text()
    assert text.index("confounded") < text.index("## Win rates")  # at the top


def test_a_rotated_run_is_not_confounded(rotated: Path) -> None:
    assert confounded_player_counts(open_run(rotated)) == []
    assert confound_warning(open_run(rotated)) is None


def test_one_tie_rule_for_win_and_rank(rotated: Path) -> None:
    played = open_run(rotated)
    names = batches.strategies(played)
    for b in batches.seat_batches(played, names):
        winners = b.win > 0
        assert (winners == (b.rank == 1)).all()  # rank applies the Cardinal like the win does


def test_groups_are_never_split_by_batches(rotated: Path) -> None:
    played = open_run(rotated)
    names = batches.strategies(played)
    seen: list[set[int]] = []
    for b in batches.seat_batches(played, names, target_rows=10):  # a batch every chunk or two
        games = pl.read_parquet(rotated / "games" / "*.parquet").filter(pl.col("game").is_in(b.game.tolist()))
        seen.append(set(games["group"].to_list()))
    for i, a in enumerate(seen):
        for other in seen[i + 1 :]:
            assert not a & other
    assert sum(len(s) for s in seen) == 30
    # every group whole: 2 games x 2 seats
    sums = batches.ClusterSums(1)
    for b in batches.seat_batches(played, names, target_rows=10):
        sums.add(np.zeros(len(b), dtype=np.int64), b.group, {"win": b.win.astype(float)})
    assert sums.groups[0] == 30 and sums.nn[0] == 30 * 16


def test_cluster_sums_are_sparse_and_match_a_dense_computation() -> None:
    rng = np.random.default_rng(5)
    cells, groups, rows = 40 * 40, 300, 5000  # a head-to-head table of 40 strategies
    cell = rng.integers(0, cells, rows)
    gcode = np.sort(rng.integers(0, groups, rows))
    v = rng.normal(size=rows)
    sparse_sums = batches.ClusterSums(cells)
    sparse_sums.add(cell, gcode, {"v": v})
    n = np.zeros((cells, groups))
    s = np.zeros((cells, groups))
    np.add.at(n, (cell, gcode), 1)
    np.add.at(s, (cell, gcode), v)
    np.testing.assert_allclose(sparse_sums.n, n.sum(1))
    np.testing.assert_allclose(sparse_sums.groups, (n > 0).sum(1))
    np.testing.assert_allclose(sparse_sums.nn, (n**2).sum(1))
    np.testing.assert_allclose(sparse_sums.s["v_sq"], (s**2).sum(1))
    np.testing.assert_allclose(sparse_sums.s["v_tn"], (s * n).sum(1))


def test_clustered_seat_test_two_players_wald_is_z_squared_and_se_matches_bootstrap() -> None:
    rng = np.random.default_rng(6)
    g = 400
    seat1 = (rng.random((g, 2)) < 0.58).astype(float)  # two games a group: rotations share the setup
    seat1[:, 1] = np.where(rng.random(g) < 0.7, seat1[:, 0], seat1[:, 1])  # games of a group correlated
    part = pl.DataFrame(
        {"group": np.repeat(np.arange(g), 2), "seat": np.tile([1, 2], g), "n": np.full(2 * g, 2),
         "win": np.column_stack([seat1.sum(1), 2 - seat1.sum(1)]).ravel()}
    )  # fmt: skip
    se, z, chi2, p = setup_balance.clustered_seat_test(part, 2)
    assert chi2 == pytest.approx(z[0] ** 2, rel=1e-9)
    low, high = stats.bootstrap_ratio(seat1.sum(1), np.full(g, 2.0), reps=2000, seed=1)
    assert (high - low) / (2 * stats.Z95) == pytest.approx(se[0], rel=0.15)
    naive = np.sqrt(0.58 * 0.42 / (2 * g))
    assert se[0] > naive * 1.1  # the correlated games of a group count less than independent ones


def _bt_loglik_fit(comp: np.ndarray) -> np.ndarray:
    k = len(comp)

    def nll(theta: np.ndarray) -> float:
        t = np.r_[0.0, theta]
        diff = t[:, None] - t[None, :]
        return float(-(comp * (diff - np.logaddexp(0, diff))).sum())

    res = optimize.minimize(nll, np.zeros(k - 1), method="BFGS", options={"gtol": 1e-10})
    t = np.r_[0.0, res.x]
    return t - t.mean()


def test_bradley_terry_is_the_maximum_likelihood_fit() -> None:
    comp = np.array([[0, 30.5, 40], [19.5, 0, 28], [10, 22, 0]])
    np.testing.assert_allclose(winrates._fit(comp), _bt_loglik_fit(comp), atol=1e-5)


def test_ratings_find_the_planted_strategy_with_a_group_bootstrap(tmp_path: Path) -> None:
    spec = SynthSpec(groups=1500, players=(3,), chunk_groups=400, skill={"alpha": 3.0}, seed=9)
    played = open_run(synthetic_run(tmp_path / "run", spec))
    w = winrates.compute(played)
    assert w.ratings["strategy"][0] == "alpha"
    top = w.ratings.row(0, named=True)
    assert top["ci_low"] > 0 and top["ci_low"] < top["rating"] < top["ci_high"]
    again = winrates.ratings(played)[0]
    assert again["rating"].to_list() == w.ratings["rating"].to_list()  # no dependence on order or on a draw
