"""The noble regression and the win lift against a straightforward computation on a small synthetic run.

``nobles.compute`` streams the seats in batches, demeans within games, and sums the cluster scores from the raw design
through a sparse group matrix; the reference below builds the whole design with one dummy per game, fits it with
``lstsq`` and sums every row's score per group, the plain textbook way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from palais_sim.analytics import batches
from palais_sim.analytics.runs import open_run
from palais_sim.games.palais_royal.analysis import nobles
from palais_sim.games.palais_royal.analysis.synthetic import SynthSpec, synthetic_run


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = SynthSpec(
        groups=150, players=(3, 4, 2), strategies=("a", "b", "c"), skill={"a": 2.0}, seat_bonus={1: 1.0},
        noble_bonus={"N41": 10.0}, fail_share=0.05, chunk_groups=40, seed=21,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("nobles") / "run"
    synthetic_run(path, spec)
    return path


def reference(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients and CR1 errors of the nobles, the lift and its error, the dense way."""
    run = open_run(path)
    ids = [n.id for n in run.components.nobles]
    seats = (
        run.seats()
        .select("game", "group", "seat", "strategy", "total", "win", "players")
        .collect()
        .sort("game", "seat")
        .with_row_index("row")
    )
    taken = run.scan("recruits").select("game", "seat", "noble").collect().join(seats, on=["game", "seat"])
    n = len(seats)
    bits = np.zeros((n, len(ids)))
    bits[taken["row"].to_numpy(), [ids.index(x) for x in taken["noble"]]] = 1
    players, seat = seats["players"].to_numpy(), seats["seat"].to_numpy()
    counts = sorted(set(players.tolist()))
    seat_dummies = [(players == p) & (seat == s) for p in counts for s in range(2, p + 1)]
    names = sorted(set(seats["strategy"]))
    strategy = seats["strategy"].to_numpy()
    strategy_dummies = [strategy == name for name in names[1:]]
    x = np.column_stack([bits, *seat_dummies, *strategy_dummies]).astype(float)
    game_codes = np.unique(seats["game"].to_numpy(), return_inverse=True)[1]
    games = np.zeros((n, game_codes.max() + 1))
    games[np.arange(n), game_codes] = 1
    y = seats["total"].to_numpy().astype(float)
    keep = x.any(0)
    full = np.column_stack([x[:, keep], games])
    coef_full = np.linalg.lstsq(full, y, rcond=None)[0]
    resid = y - full @ coef_full
    # the sandwich of the noble block: the design with the game dummies partialled out (Frisch-Waugh-Lovell)
    xt = x[:, keep] - games @ np.linalg.lstsq(games, x[:, keep], rcond=None)[0]
    group = seats["group"].to_numpy()
    scores = np.zeros((group.max() + 1, keep.sum()))
    np.add.at(scores, group, xt * resid[:, None])
    scores = scores[np.unique(group)]
    g, rows, k = len(scores), n, int(keep.sum())
    bread = np.linalg.inv(xt.T @ xt)
    cov = g / (g - 1) * (rows - 1) / (rows - k) * bread @ scores.T @ scores @ bread
    coef = np.full(x.shape[1], np.nan)
    se = np.full(x.shape[1], np.nan)
    coef[keep], se[keep] = coef_full[:k], np.sqrt(np.diag(cov))
    # lift: per taker, its win share minus the mean of the others at its table; a mean clustered on the group
    p = players.astype(float)
    value = (p * seats["win"].to_numpy() - 1) / np.maximum(p - 1, 1)
    lift, lift_se = np.full(len(ids), np.nan), np.full(len(ids), np.nan)
    for j in range(len(ids)):
        rows_j = bits[:, j] > 0
        if not rows_j.any():
            continue
        mean = value[rows_j].mean()
        cluster_ids, inverse = np.unique(group[rows_j], return_inverse=True)
        dev = np.bincount(inverse, weights=value[rows_j] - mean)
        lift[j] = mean
        if len(cluster_ids) > 1:
            lift_se[j] = np.sqrt(len(cluster_ids) / (len(cluster_ids) - 1) * (dev**2).sum()) / rows_j.sum()
    return ids, coef[: len(ids)], se[: len(ids)], lift, lift_se


@pytest.mark.parametrize("target_rows", [batches.TARGET_ROWS, 700])
def test_noble_regression_and_lift_match_the_dense_computation(
    small: Path, target_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def few_rows(run, strategy_list, noble_ids):  # many small batches: the sums must not depend on the cut
        return batches.seat_batches(run, strategy_list, noble_ids, target_rows=target_rows)

    monkeypatch.setattr(nobles, "seat_batches", few_rows)
    ids, coef, se, lift, lift_se = reference(small)
    table = nobles.compute(open_run(small)).nobles
    assert table["noble"].to_list() == ids
    # float32 design and residuals in the streamed version: equal to float noise
    np.testing.assert_allclose(table["points_associated"].to_numpy(), coef, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(table["points_se"].to_numpy(), se, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(table["lift"].to_numpy(), lift, rtol=1e-6, atol=1e-7)
    half = (table["lift_ci_high"] - table["lift_ci_low"]).to_numpy() / 2
    np.testing.assert_allclose(half / 1.959963984540054, lift_se, rtol=1e-6, atol=1e-7)
    assert table.filter(pl.col("noble") == "N41")["points_associated"].item() > 5


def test_group_scores_equal_row_scores() -> None:
    """``add_group_scores`` with per-group sums of X'e is the same meat as ``add_scores`` over the rows."""
    from palais_sim.analytics import stats

    rng = np.random.default_rng(3)
    groups = np.sort(rng.integers(0, 60, 600))
    x = np.column_stack([rng.integers(0, 2, 600), rng.normal(size=600)]).astype(float)
    y = x @ np.array([1.5, -0.3]) + rng.normal(size=600)
    one, two = stats.OLSAccumulator(2), stats.OLSAccumulator(2)
    for acc in (one, two):
        acc.add(x, y)
        acc.solve()
    one.add_scores(x.copy(), y, groups)
    resid = y - x @ two.coef
    codes = np.unique(groups, return_inverse=True)[1]
    summed = np.zeros((codes.max() + 1, 2))
    np.add.at(summed, codes, x * resid[:, None])
    two.add_group_scores(summed)
    np.testing.assert_allclose(two.result().se, one.result().se, rtol=1e-12)
    assert two.result().clusters == one.result().clusters


@pytest.mark.parametrize("padding", [0, 20, 100])
def test_noble_masks_match_a_plain_or(small: Path, padding: int) -> None:
    """The masks of a seat (bit positions below and above 53, one word and several) are the OR of its nobles."""
    run = open_run(small)
    ids = [f"X{i}" for i in range(padding)] + [n.id for n in run.components.nobles]
    words = (len(ids) + 63) // 64
    paths = sorted((small / "recruits").glob("chunk-*.parquet"))[:2]
    masks = batches._masks(paths, "noble", ids, words)
    recruits = pl.read_parquet(paths, columns=["game", "seat", "noble"])
    expected: dict[tuple[int, int], list[int]] = {}
    for game, seat, noble in recruits.iter_rows():
        words_of_seat = expected.setdefault((game, seat), [0] * words)
        position = ids.index(noble)
        words_of_seat[position // 64] |= 1 << (position % 64)
    got = {(r["game"], r["seat"]): [int(r[f"mask{w}"]) for w in range(words)] for r in masks.iter_rows(named=True)}
    assert got == expected
