"""The summaries taken from the seat batches and from chunks equal their plain computation over the rows: the setup
tables, the score table, the game length and the confounding check (the report sums them batch by batch, so its
memory does not grow with the run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from palais_sim.analytics import batches, design, sections_common
from palais_sim.analytics.runs import Run, open_run
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


SEAT_KEYS = ["players", "group", "layout", "seat", "start_gold"]
STRATEGY_KEYS = ["players", "group", "layout", "strategy"]


def plain_setup_cells(r: Run) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The setup cells by a group-by over the joined seat rows: a few rows per group."""
    rows = r.seats().collect()
    values = [pl.len().alias("n"), pl.col("win").sum(), pl.col("total").cast(pl.Int64).sum(),
              pl.col("rounds").cast(pl.Int64).sum()]  # fmt: skip
    seat = rows.group_by(SEAT_KEYS).agg(values)
    strategy = rows.group_by(STRATEGY_KEYS).agg(values)
    return seat, strategy


def plain_setup(r: Run, min_effect: float = 0.01, min_layout_games: int = 3) -> dict[str, pl.DataFrame]:
    """The setup tables as they were computed from the rows per group (the definition the sums must meet)."""
    sb = setup_balance
    first_game = r.components.first_game_layout if r.components else sb.FIRST_GAME_DEFAULT
    by_seat, by_strategy = plain_setup_cells(r)
    base = by_seat.lazy()
    seats, gold, gold_groups, pos, lay, fg = pl.collect_all(
        [sb.seat_table(base), sb.start_gold_table(base), sb.start_gold_by_group(base), sb.position_table(base),
         sb.layout_table(base), sb.first_game_table(base, first_game)]
    )  # fmt: skip
    confounded = design.confounded_player_counts(r)
    seat_df, balance = sb.finish_seats(seats, min_effect, by_seat.select("players", "group", "seat", "n", "win"),
                                       confounded)  # fmt: skip
    cells = {"seat": by_seat.select("players", "seat", "group", "layout", "n", "win")}
    if by_strategy["strategy"].n_unique() > 1:
        cells["strategy"] = by_strategy.select("players", "strategy", "group", "layout", "n", "win")
    return {
        "seats": seat_df, "balance": balance, "start_gold": sb.finish_start_gold(gold, gold_groups)[0],
        "features": sb.feature_effects(cells, min_effect), "positions": sb.finish_positions(pos, first_game),
        "layouts": sb.finish_layouts(lay, min_layout_games, first_game), "first_game": sb.finish_first_game(fg),
    }  # fmt: skip


def same_rows(a: pl.DataFrame, b: pl.DataFrame, keys: list[str]) -> None:
    if not len(a.columns):  # a table with nothing to show
        assert not len(b.columns)
        return
    a, b = a.sort(keys), b.select(a.columns).sort(keys)
    assert_frame_equal(a, b, check_dtypes=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("target_rows", [batches.TARGET_ROWS, 25])
def test_setup_from_sums_equals_the_tables_of_the_rows(
    any_run: Run, target_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every setup table from the summed batches (cut every 25 rows too) equals its computation from the rows."""
    real = batches.seat_batches
    monkeypatch.setattr(setup_balance, "seat_batches", lambda *a, **k: real(*a, **{**k, "target_rows": target_rows}))
    got = setup_balance.compute(any_run, min_layout_games=3)
    want = plain_setup(open_run(any_run.path))
    same_rows(got.seats, want["seats"], ["players", "seat"])
    same_rows(got.balance, want["balance"], ["players"])
    same_rows(got.start_gold, want["start_gold"], ["players", "start_gold"])
    same_rows(got.features, want["features"], ["players", "subject", "feature"])
    same_rows(got.positions, want["positions"], ["room", "cell"])
    same_rows(got.layouts, want["layouts"], ["players", "layout"])
    same_rows(got.first_game, want["first_game"], ["players"])
    assert len(got.features) and got.features["p"].is_not_nan().any()


def test_layout_codes_round_trip() -> None:
    from palais_sim.games.palais_royal.analysis.setup_sums import LAYOUTS, layout_codes, layout_strings

    layouts = ["PMS/KGD/COB", "BOC/DGK/SMP", "GBC/DKM/OPS", "SPO/MKD/CBG"]
    codes = layout_codes(pl.Series(layouts))
    assert len(set(codes.tolist())) == 4 and codes.min() >= 0 and codes.max() < LAYOUTS
    assert layout_strings(codes) == layouts
    every = np.array([0, 1, 2, LAYOUTS // 2, LAYOUTS - 1])
    assert layout_codes(pl.Series(layout_strings(every))).tolist() == every.tolist()
    with pytest.raises(ValueError, match="not a 3 x 3 castle"):
        layout_codes(pl.Series(["PMS/KGD/COO"]))


def test_sum_over_chunks_equals_the_whole(any_run: Run) -> None:
    """Counts summed a few chunks at a time equal the same counts over the whole run."""

    def query(tables: dict[str, pl.LazyFrame]) -> pl.LazyFrame:
        return tables["games"].group_by("players", "rounds").agg(pl.len().alias("games"), pl.col("finished").sum())

    whole = query({"games": any_run.scan("games")}).collect().sort("players", "rounds")
    for target in (batches.TARGET_ROWS, 20):
        got = batches.sum_over_chunks(any_run, query, ["players", "rounds"], target_rows=target)
        assert_frame_equal(got, whole, check_dtypes=False)


def test_game_tables_equal_the_scan(any_run: Run) -> None:
    """The game length's statistics from its histogram equal polars' over the games."""
    played = pl.col("error").is_null()
    rounds = pl.col("rounds").filter(played)
    want = (
        any_run.scan("games")
        .group_by("players")
        .agg(pl.len().alias("games"), (~played).sum().alias("failed"),
             (played & ~pl.col("finished")).sum().alias("unfinished"), rounds.mean().alias("mean_rounds"),
             rounds.min().alias("min_rounds"), rounds.quantile(0.1, "nearest").alias("p10_rounds"),
             rounds.median().alias("median_rounds"), rounds.quantile(0.9, "nearest").alias("p90_rounds"),
             rounds.max().alias("max_rounds"))
        .sort("players")
        .collect()
    )  # fmt: skip
    per, hist = sections_common.game_tables(any_run)
    assert_frame_equal(per.select(want.columns), want, check_dtypes=False, rel_tol=1e-12)
    assert int(hist["finished"].sum() + hist["unfinished"].sum()) == int((want["games"] - want["failed"]).sum())


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


def test_confounding_from_the_seat_batches_equals_the_scan(any_run: Run) -> None:
    scanned = design._per_seat_scan(any_run)
    names = batches.strategies(any_run)
    seen = design.SeatStrategies(len(names))
    for b in batches.seat_batches(any_run, names, target_rows=30):
        seen.add(b)
    held = seen.table(names)
    a = scanned.select("players", "seat", "kinds").sort("players", "seat")
    assert_frame_equal(a, held.select(a.columns).sort("players", "seat"), check_dtypes=False)
    one = held.filter(pl.col("kinds") == 1).join(scanned, on=["players", "seat"])
    assert (one["one"] == one["one_right"]).all()


@pytest.mark.parametrize("first", ["winrates", "setup", "design"])
def test_confounded_run_whichever_pass_finds_it(tmp_path: Path, first: str) -> None:
    """The design check from the pass of the win rates, of the setup report or its own gives the same answer."""
    from palais_sim.analytics import winrates

    out = tmp_path / "run"
    settings = Settings(games=24, players=2, strategies=("greedy", "random"), format="fixed", rotate_seats=False)
    run(settings, out, workers=1, chunk_size=7)
    r = open_run(out)
    if first == "winrates":
        winrates.seat_tables(r)
    elif first == "setup":
        setup_balance.setup_sums(r, setup_balance.FIRST_GAME_DEFAULT)
    assert ("_confounded" in r.__dict__) == (first != "design")
    assert design.confounded_player_counts(r) == [2]
    rotated = tmp_path / "rotated"
    run(Settings(games=24, players=2, strategies=("greedy", "random")), rotated, workers=1, chunk_size=7)
    assert design.confounded_player_counts(open_run(rotated)) == []


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


def test_played_groups_counted_a_few_files_at_a_time(any_run: Run) -> None:
    """The summary's group count, read a chunk file at a time (groups cut by chunks, failed games left out), equals
    the distinct groups of the played games."""
    want = any_run.games().select(pl.col("group").n_unique()).collect().item()
    assert any_run.summary["groups"] == want
    assert any_run._played_groups(games_at_once=1) == want
