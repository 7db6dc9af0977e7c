"""The summaries taken from the seat batches equal their plain computation over the seat rows: the setup cells, the
score table and the confounding check (the report computes them from the batches it has read for the win rates)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from palais_sim.analytics import batches, design, sections_common
from palais_sim.analytics.runs import Run, open_run, taken_ids
from palais_sim.games.palais_royal.analysis import setup_balance
from palais_sim.games.palais_royal.analysis.synthetic import SynthSpec, synthetic_run
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("batched") / "run"
    spec = SynthSpec(groups=900, players=(3, 4), strategies=("a", "b", "c", "d"), fail_share=0.05, chunk_groups=70,
                     seat_bonus={1: 1.0}, seed=11)  # fmt: skip
    synthetic_run(out, spec)
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("played") / "run"
    # chunks of 7 games cut rotation groups of 2 in half: the batches must put them back together
    run(Settings(games=60, players=2, strategies=("greedy", "seals"), seed=3), out, workers=1, chunk_size=7)
    return out


@pytest.fixture(params=["synthetic", "played"])
def any_run(request: pytest.FixtureRequest) -> Run:
    return open_run(request.getfixturevalue(request.param))


def plain_setup_cells(r: Run) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The setup cells by a group-by over the joined seat rows."""
    rows = r.seats().collect()
    values = [pl.len().alias("n"), pl.col("win").sum(), pl.col("total").cast(pl.Int64).sum(),
              pl.col("rounds").cast(pl.Int64).sum()]  # fmt: skip
    seat = rows.group_by(setup_balance.SEAT_KEYS).agg(values)
    strategy = rows.group_by(setup_balance.STRATEGY_KEYS).agg(values)
    return seat, strategy


def same_rows(a: pl.DataFrame, b: pl.DataFrame, keys: list[str]) -> None:
    a, b = a.sort(keys), b.select(a.columns).sort(keys)
    assert_frame_equal(a, b, check_dtypes=False, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("target_rows", [batches.TARGET_ROWS, 25])
def test_setup_cells_equal_a_plain_group_by(any_run: Run, target_rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    real = batches.seat_batches
    monkeypatch.setattr(batches, "seat_batches", lambda *a, **k: real(*a, **{**k, "target_rows": target_rows}))
    seat, strategy = setup_balance.setup_cells(any_run)
    want_seat, want_strategy = plain_setup_cells(any_run)
    same_rows(seat, want_seat, setup_balance.SEAT_KEYS)
    same_rows(strategy, want_strategy, setup_balance.STRATEGY_KEYS)
    # the same from batches held by another report (with the noble masks)
    held = open_run(any_run.path)
    batches.cached_batches(held, batches.strategies(held), taken_ids(held))
    seat_held, _ = setup_balance.setup_cells(held)
    same_rows(seat_held, want_seat, setup_balance.SEAT_KEYS)


def test_score_table_equals_the_scan(any_run: Run) -> None:
    got, want = sections_common.score_table(any_run), sections_common.score_table_scan(any_run)
    assert got["players"].to_list() == want["players"].to_list()
    assert_frame_equal(got, want, rel_tol=1e-12, abs_tol=1e-9)


def test_score_quantiles_of_a_known_sample() -> None:
    """The histogram's linear quantiles against numpy's on the same integers."""
    rng = np.random.default_rng(2)
    values = rng.integers(-5, 80, 1001)
    hist = np.bincount(values + 5)
    cum = np.cumsum(hist[hist > 0])
    support = np.flatnonzero(hist) - 5.0
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        pos = q * (len(values) - 1)
        low, high = support[np.searchsorted(cum, [np.floor(pos), np.ceil(pos)], side="right")]
        assert low + (pos - np.floor(pos)) * (high - low) == pytest.approx(np.quantile(values, q, method="linear"))


def test_confounding_from_held_batches_equals_the_scan(any_run: Run, tmp_path: Path) -> None:
    scanned = design._per_seat_scan(any_run)
    batches.cached_batches(any_run, batches.strategies(any_run), taken_ids(any_run))
    held = design._per_seat_held(any_run.__dict__["_seat_batches"])
    a = scanned.select("players", "seat", "kinds").sort("players", "seat")
    assert_frame_equal(a, held.select(a.columns).sort("players", "seat"), check_dtypes=False)
    one = held.filter(pl.col("kinds") == 1).join(scanned, on=["players", "seat"])
    assert (one["one"] == one["one_right"]).all()


def test_confounded_run_from_held_batches(tmp_path: Path) -> None:
    out = tmp_path / "run"
    settings = Settings(games=24, players=2, strategies=("greedy", "random"), format="fixed", rotate_seats=False)
    run(settings, out, workers=1, chunk_size=7)
    r = open_run(out)
    batches.cached_batches(r, batches.strategies(r), taken_ids(r))
    assert design.confounded_player_counts(r) == [2]


@pytest.mark.parametrize("shared", [False, True])
def test_table_slopes_equal_cluster_slopes(shared: bool) -> None:
    """Slopes from per-value sums equal the cell-by-cell computation (and fall back to it when a cluster has several
    cells); a constant feature gets no slope, a non-integer one is handled."""
    from palais_sim.analytics import stats

    rng = np.random.default_rng(4)
    table = np.column_stack([rng.integers(0, 5, 50), rng.integers(0, 2, 50), np.zeros(50), rng.normal(size=50)])
    cells = 3000
    row = rng.integers(0, 50, cells)
    n = rng.integers(1, 6, cells).astype(float)
    y = rng.binomial(n.astype(int), 0.3 + 0.05 * table[row, 0]).astype(float)
    cluster = rng.integers(0, 1000, cells) if shared else rng.permutation(cells)
    got = stats.TableSlopes(table).slopes(row, n, y, cluster)
    want = stats.cluster_slopes(table[row], n, y, cluster)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert np.isnan(got[0][2]) and np.isnan(got[1][2])
