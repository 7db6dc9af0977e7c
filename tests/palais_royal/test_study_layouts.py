"""`palais study layouts`: the joint feature model and the variance share find planted effects in synthetic data;
the study runs end to end on real games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.games.palais_royal.analysis.setup_balance import feature_names, layout_features
from palais_sim.games.palais_royal.board import random_layout_code
from palais_sim.games.palais_royal.studies.layout_models import Fit, contrasts, fit, layout_covariance, spread_interval
from palais_sim.games.palais_royal.studies.layouts import (
    BLOCKS,
    PRIMARY,
    block_spreads,
    first_game_difference,
    joint_model,
    variance_share,
)


def _layouts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [random_layout_code(rng) for _ in range(n)]


def test_joint_model_finds_a_planted_feature_and_not_its_correlated_neighbour() -> None:
    codes = _layouts(6000)
    feats = layout_features(pl.DataFrame({"layout": codes}).lazy()).collect()
    rng = np.random.default_rng(1)
    centre = feats["gate_in_centre"].to_numpy()
    # seat 1 wins 30 pp more often with the Gate in the centre; nothing else matters
    win = (rng.random(len(codes)) < 0.5 + 0.3 * centre - 0.3 * centre.mean()).astype(float)
    rows, aliased, n = joint_model(pl.DataFrame({"layout": codes, "win": win}), players=2, names=feature_names())
    by = {r["feature"]: r for r in rows}
    assert n == 6000 and len(aliased) >= 1  # nine in-centre indicators sum to one: one is left out
    if "gate_in_centre" in by:
        assert by["gate_in_centre"]["low"] > 0.15
    else:  # the Gate's indicator was the aliased one: every other room in the centre is then worse
        assert all(by[f"{r}_in_centre"]["high"] < -0.1 for r in ("king", "madame", "mint"))
    # a distance from the Gate is correlated with the Gate's place, but it gets no credit in the joint model
    assert by["gate_to_king"]["low"] < 0 < by["gate_to_king"]["high"] or abs(by["gate_to_king"]["mean"]) < 0.05


def test_variance_share_finds_a_layout_effect_and_no_effect() -> None:
    rng = np.random.default_rng(2)
    setups = rng.normal(0, 0.2, 200)
    none = (rng.random((10, 200)) < 0.5 + setups).astype(float)
    planted = (rng.random((10, 200)) < 0.5 + np.linspace(-0.3, 0.3, 10)[:, None] + 0 * setups).astype(float)
    a, b = variance_share(none), variance_share(planted)
    assert a["share"] < 0.02 and a["p"] > 0.01
    assert b["share"] > 0.05 and b["ci"][0] > 0.02 and b["p"] < 1e-6


def test_cli_layouts_end_to_end(tmp_path: Path) -> None:
    args = ["study", "layouts", "--out", str(tmp_path / "l"), "--strategy", "greedy", "--strategy", "seals",
            "--groups", "80", "--layouts", "3", "--setups", "10", "--first-game-setups", "12"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "l" / "study.json").read_text())
    assert data["study"] == "layouts" and len(data["fixed_layouts"]) == 3 and data["first_game_setups"] == 12
    rows = data["rows"]
    for level in ("greedy", "seals"):  # per level: the ten distances, one row per block, the first-game layout
        mine = [r for r in rows if r["strategy"] == level]
        assert sorted(r["key"] for r in mine if r["subject"] == "layout_feature") == sorted(PRIMARY)
        assert sorted(r["key"] for r in mine if r["subject"] == "layout_block") == sorted(BLOCKS)
        first = [r for r in mine if r["subject"] == "layout"]
        assert len(first) == 1 and first[0]["n_groups"] == 12
    assert all(r["verdict"] in ("balanced", "unbalanced", "undecided") for r in rows if r["subject"] == "layout_block")
    assert (tmp_path / "l" / "runs" / "greedy" / "2p" / "first-game-PMSKGDCOB").is_dir()
    page = (tmp_path / "l" / "study.md").read_text()
    assert "Beyond the distances" in page and "root-mean-square" in page
    assert len(data["variance"]) == 2 and all(0 <= v["share"] <= 1 for v in data["variance"])
    assert data["games"]["greedy"]["games"] == 80 + 12 + 3 * 10
    assert (tmp_path / "l" / "charts" / "features_2p.png").exists()
    # more first-game setups: the page says how, and the rerun grows that arm alone (chunks of 10: 10 + 2 games, the
    # short one played again at its full size with the 8 new games)
    assert "a larger `--groups` (or `--first-game-setups`) into the same `--out` plays only the new groups" in page
    more = CliRunner().invoke(app, [*args[:-1], "20"])
    assert more.exit_code == 0, more.output
    grown = json.loads((tmp_path / "l" / "study.json").read_text())
    assert grown["games"]["greedy"]["played_now"] == 10 and grown["games"]["greedy"]["games"] == 80 + 20 + 3 * 10
    assert [r["n_groups"] for r in grown["rows"] if r["subject"] == "layout"] == [20, 20]


def test_the_first_game_arm_plays_as_many_games_as_groups_unless_given(tmp_path: Path) -> None:
    """A study sized by --groups plays no more first-game games than it asked for: the README's tour line once
    played a 1,000-game first-game arm at expert beside its 200 random-layout games (the old fixed default)."""
    args = ["study", "layouts", "--out", str(tmp_path / "l"), "--strategy", "greedy", "--groups", "30",
            "--layouts", "3", "--setups", "4"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "l" / "study.json").read_text())
    assert data["first_game_setups"] == 30
    assert [r["n_groups"] for r in data["rows"] if r["subject"] == "layout"] == [30]
    assert data["games"]["greedy"]["games"] == 30 + 30 + 3 * 4
    shown = CliRunner().invoke(app, ["study", "layouts", "--help"], env={"COLUMNS": "240"}).output
    assert "[default: --groups]" in shown


def test_the_first_game_setups_are_checked(tmp_path: Path) -> None:
    args = ["study", "layouts", "--out", str(tmp_path / "l"), "--strategy", "greedy", "--first-game-setups", "1"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code != 0 and "--first-game-setups must be at least 2" in res.output


# --- the blocks beyond the distances: the spread and its interval ---------------------------------------------------


def _synthetic(n: int, seed: int, effect: dict[str, float]) -> pl.DataFrame:
    """``n`` games on random layouts whose start player wins 1/2 + the planted effects of the named features."""
    codes = _layouts(n, seed)
    feats = layout_features(pl.DataFrame({"layout": codes}).lazy()).collect()
    p = 0.5 + sum(v * (feats[k].to_numpy() - feats[k].to_numpy().mean()) for k, v in effect.items())
    win = (np.random.default_rng(seed).random(n) < p).astype(float)
    return pl.DataFrame({"layout": codes, "win": win})


def test_block_spreads_find_a_planted_centre_and_nothing_beside_the_stairway() -> None:
    # the Cardinal in the centre: +12 pp; a spread of 12 * sqrt(1/9 * 8/9) = 3.8 pp; a distance effect beside it
    games = _synthetic(20_000, 5, {"cardinal_in_centre": 0.12, "gate_to_king": -0.05})
    blocks = {b["block"]: b for b in block_spreads(games, players=2)[0]}
    centre, stairway = blocks["room in the centre"], blocks["rooms next to the Stairway"]
    assert centre["low"] > 0.02 and centre["low"] <= 0.12 * np.sqrt(8 / 81) <= centre["high"]
    assert stairway["low"] == 0.0 and stairway["high"] < 0.03
    rows = {r["feature"]: r for r in joint_model(games, players=2)[0]}
    assert set(rows) == set(PRIMARY) and rows["gate_to_king"]["low"] < -0.05 < rows["gate_to_king"]["high"] < 0


def test_the_spread_does_not_depend_on_the_room_left_out() -> None:
    games = _synthetic(4000, 6, {"king_in_centre": 0.1})
    names = list(PRIMARY) + list(BLOCKS["room in the centre"])
    y = games["win"].to_numpy() - 0.5
    feats = layout_features(games.select("layout").lazy()).collect()
    spreads = []
    for order in (names, names[:10] + names[10:][::-1]):  # the last room in the list is the one left out
        f = fit(feats.select(order).to_numpy().astype(float), y, order)
        idx = [f.names.index(c) for c in order[10:] if c in f.names]
        gamma, cov = f.beta[idx], f.cov[np.ix_(idx, idx)]
        spreads.append(spread_interval(gamma, cov, layout_covariance(tuple(f.names[i] for i in idx))))
    assert len({round(s.value, 10) for s in spreads}) == 1
    assert abs(spreads[0].high - spreads[1].high) < 1e-3 and abs(spreads[0].low - spreads[1].low) < 1e-3


def _spread_coverage(direction: str, theta: float, reps: int, seed: int) -> tuple[float, float]:
    """Plant a block's coefficients with spread ``theta`` along one axis of the noise, draw the estimates from the
    normal they have (a covariance from a real design of 10,000 games) and count how often the interval misses
    above and below."""
    block = BLOCKS["rooms next to the Stairway"]
    s = layout_covariance(block)
    feats = layout_features(pl.DataFrame({"layout": _layouts(10_000, seed)}).lazy()).collect()
    names = list(PRIMARY) + list(block)
    x = np.column_stack([np.ones(10_000), feats.select(names).to_numpy().astype(float)])
    cov = 0.25 * np.linalg.inv(x.T @ x)[11:, 11:]  # the block's part: win shares have a variance of about 1/4
    w_val, w_vec = np.linalg.eigh(s)
    w = w_vec @ np.diag(np.sqrt(w_val)) @ w_vec.T
    axes = np.linalg.eigh(w @ cov @ w)[1]
    axis = {"largest": axes[:, -1], "smallest": axes[:, 0], "mixed": axes.sum(1) / np.sqrt(len(block))}[direction]
    gamma = np.linalg.solve(w, theta * axis)  # sqrt(gamma' S gamma) = theta
    draws = np.random.default_rng(seed).multivariate_normal(gamma, cov, size=reps)
    above = below = 0
    for i, g in enumerate(draws):
        sp = spread_interval(g, cov, s, draws=2000, seed=i)
        above += sp.low > theta
        below += sp.high < theta
    return above / reps, below / reps


@pytest.mark.parametrize("direction", ["largest", "smallest", "mixed"])
@pytest.mark.parametrize("theta", [0.0, 0.01, 0.02])
def test_the_spread_interval_misses_at_most_its_share_either_side(direction: str, theta: float) -> None:
    above, below = _spread_coverage(direction, theta, reps=400, seed=11)
    # 2.5% a side; 4.5% is about three simulation standard errors above it
    assert above <= 0.045 and below <= 0.045, (above, below)


def test_a_block_without_noise_or_games_gives_no_interval() -> None:
    sp = spread_interval(np.array([np.nan, 0.1]), np.eye(2), np.eye(2))
    assert np.isnan(sp.value) and np.isnan(sp.low)


# --- the first-game layout against the random-layout arm's mean -----------------------------------------------------


@pytest.mark.parametrize("delta", [0.0, 0.07])
def test_the_first_game_interval_covers_95_percent(delta: float) -> None:
    rng = np.random.default_rng(12)
    hits = 0
    reps = 2000
    for _ in range(reps):
        first = (rng.random(300) < 0.5 + delta).astype(float)
        random_layouts = (rng.random(3000) < 0.5).astype(float)
        est = first_game_difference(first, random_layouts)
        hits += est.low <= delta <= est.high
    assert 0.93 <= hits / reps <= 0.97, hits / reps


# --- the primary rows: the distances' intervals ---------------------------------------------------------------------


def test_the_distance_intervals_cover_95_percent() -> None:
    """Plant a start player's share that falls 5 pp per step from the Gate to the King and rises 3 pp per step from
    the Stairway to the Office, with the Cardinal in the centre worth 10 pp more (outside the primary model: the
    rows estimate the best linear prediction from the distances, which that shifts), and count how often each
    distance's 95% interval holds the planted slope of that prediction."""
    names = list(PRIMARY)
    pool = layout_features(pl.DataFrame({"layout": _layouts(50_000, 21)}).lazy()).collect()
    x_pool = pool.select(names).to_numpy().astype(float)
    p_pool = (0.5 - 0.05 * (x_pool[:, names.index("gate_to_king")] - 2) + 0.03 * x_pool[:, names.index(
        "stairway_to_office")] + 0.1 * pool["cardinal_in_centre"].to_numpy() - 0.04)  # fmt: skip
    design = np.column_stack([np.ones(len(x_pool)), x_pool])
    truth = np.linalg.lstsq(design, p_pool, rcond=None)[0][1:]  # the best linear prediction's slopes
    rng = np.random.default_rng(22)
    reps, n = 500, 2000
    hits = np.zeros(len(names))
    for _ in range(reps):
        pick = rng.integers(0, len(x_pool), n)
        y = (rng.random(n) < p_pool[pick]).astype(float) - 0.5
        f = fit(x_pool[pick], y, names)
        half = 1.96 * np.sqrt(np.diag(f.cov))
        hits += (f.beta - half <= truth) & (truth <= f.beta + half)
    coverage = hits / reps  # each about 1 simulation standard error (1 pp) from 95%; ten of them: +-3 each
    assert np.all((coverage >= 0.92) & (coverage <= 0.98)) and 0.935 <= coverage.mean() <= 0.965, coverage.round(3)


# --- the blocks' members: leads with simultaneous intervals --------------------------------------------------------


def test_the_rooms_in_the_centre_are_read_against_the_average_layout_and_hold_together() -> None:
    """The centre's members are each room against the average layout: they add up to zero and do not depend on the
    room left out; drawn about planted values (the covariance of a real design), all nine intervals hold their
    planted values together about 95% of the time."""
    members = BLOCKS["room in the centre"]
    games = _synthetic(4000, 7, {"king_in_centre": 0.1})
    feats = layout_features(games.select("layout").lazy()).collect()
    y = games["win"].to_numpy() - 0.5
    names = list(PRIMARY) + list(members)
    reordered = list(PRIMARY) + list(members[::-1])
    a = contrasts(fit(feats.select(names).to_numpy().astype(float), y, names), members)
    b = contrasts(fit(feats.select(reordered).to_numpy().astype(float), y, reordered), members)
    assert [r["feature"] for r in a] == list(members) and abs(sum(r["effect"] for r in a)) < 1e-12
    assert np.allclose([r["effect"] for r in a], [r["effect"] for r in b])
    king = next(r for r in a if r["feature"] == "king_in_centre")
    assert king["low"] < 0.1 * 8 / 9 < king["high"] and king["against"] == "the average layout"
    f = fit(feats.select(names).to_numpy().astype(float), y, names)
    planted = np.zeros(len(f.names))
    planted[f.names.index("king_in_centre")] = 0.1  # the Cardinal left out: the King +10 pp against it
    truth = {n: (0.1 if n == "king_in_centre" else 0.0) - 0.1 / 9 for n in members}
    rng = np.random.default_rng(8)
    reps, together = 800, 0
    for beta in rng.multivariate_normal(planted, f.cov, size=reps):
        rows = contrasts(Fit(f.names, beta, f.cov, f.aliased, f.n, f.dof), members, draws=4000)
        together += all(r["low"] <= truth[r["feature"]] <= r["high"] for r in rows)
    assert 0.93 <= together / reps <= 0.97, together / reps
