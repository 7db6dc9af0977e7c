"""`palais ladder`: a seat-rotated round robin played by the tournament runner and reported with the analytics'
win-rate tables; the run is temporary unless --out keeps it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.analytics import winrates
from palais_sim.analytics.runs import open_run
from palais_sim.cli import app
from tests.run_dirs import chunk_states

runner = CliRunner()
STANDARD = Path(__file__).resolve().parent.parent / "palais_sim" / "games" / "palais_royal" / "data" / "standard.toml"


def ladder(*args: str):
    return runner.invoke(app, ["ladder", "--workers", "1", *args])


def test_ladder_json_has_intervals_and_a_head_to_head() -> None:
    result = ladder("--games", "4", "--strategies", "greedy,random", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["games"] == 4 and data["matchups"] == 1 and data["games_per_matchup"] == 4 and data["run"] is None
    rows = {r["strategy"]: r for r in data["table"]}
    assert set(rows) == {"greedy", "random"}
    for r in rows.values():
        assert r["games"] == 4
        assert 0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1
        assert r["score_ci_low"] <= r["mean_score"] <= r["score_ci_high"]
    assert data["head_to_head"]["greedy"]["random"] == 1.0 and data["head_to_head"]["random"]["greedy"] == 0.0
    assert data["head_to_head"]["greedy"]["greedy"] is None
    pair = next(r for r in data["head_to_head_table"] if (r["strategy"], r["opponent"]) == ("greedy", "random"))
    assert pair["pairs"] == 4 and pair["ci_low"] <= pair["ahead"] <= pair["ci_high"]


def test_ladder_rates_every_strategy_and_times_its_decisions(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    result = ladder("--games", "6", "--strategies", "greedy,random,economy", "--seed", "5", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    rows = {r["strategy"]: r for r in json.loads(result.output)["table"]}
    for r in rows.values():
        if r["rating"] is not None:
            assert r["rating_ci_low"] is None or r["rating_ci_low"] <= r["rating"]
            assert r["rating_ci_high"] is None or r["rating"] <= r["rating_ci_high"]
        assert r["decisions_timed"] > 0 and r["cpu_seconds"] > 0
        assert r["decisions_per_cpu_second"] == pytest.approx(r["decisions_timed"] / r["cpu_seconds"], rel=1e-2)
    # random never beat the others in these games: no finite rating, below all (issue 35)
    assert rows["greedy"]["rating"] is not None and rows["random"]["rating"] is None
    assert rows["random"]["rating_status"] == "below"
    # Every decision of the games is timed, once, for the strategy that made it.
    assert sum(r["decisions_timed"] for r in rows.values()) == sum(c["decisions"] for c in chunk_states(out))
    text = ladder("--games", "6", "--strategies", "greedy,random,economy", "--seed", "5").output
    assert "rating" in text and "dec/CPU-s" in text


def test_ladder_text_shows_the_table_and_the_matrix() -> None:
    result = ladder("--games", "2", "--strategies", "greedy,random")
    assert result.exit_code == 0, result.output
    assert "95% intervals clustered on the rotation" in result.output and "head to head" in result.output
    assert "kept in" not in result.output


def test_ladder_with_out_keeps_a_round_robin_run_with_the_rule_options(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    result = ladder(
        "--games", "3", "--strategies", "greedy,random,economy", "--seed", "5", "--layout", "first-game",
        "--gold-limit", "57", "--max-rounds", "60", "--components", str(STANDARD), "--out", str(out), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    manifest = json.loads((out / "manifest.json").read_text())
    settings = manifest["settings"]
    # 3 matchups, 3 games each rounded up to 2 whole rotation groups of 2: 12 games
    assert settings["format"] == "round-robin" and settings["rotate_seats"] is True and settings["games"] == 12
    assert settings["rules"] == {"layout": "first-game", "gold_limit": 57} and settings["max_rounds"] == 60
    assert settings["components"] == str(STANDARD) and settings["seed"] == 5
    assert data["games"] == 12 and data["games_per_matchup"] == 4 and data["run"] == str(out)
    seats = pl.read_parquet(out / "seats" / "*.parquet").sort("game", "seat")
    matchups = seats.group_by("game").agg(pl.col("strategy").sort().str.join(" v ").alias("matchup"))
    assert sorted(matchups.group_by("matchup").len()["len"].to_list()) == [4, 4, 4]
    # every matchup played with both seatings
    first_seat = seats.filter(pl.col("seat") == 1).join(matchups, on="game")
    assert first_seat.group_by("matchup", "strategy").len()["len"].to_list() == [2] * 6
    # the ladder prints the analytics' own numbers for its run
    rates = winrates.compute(open_run(out))
    expected = {r["strategy"]: r["win_rate"] for r in rates.strategies.to_dicts()}
    assert {r["strategy"]: r["win_rate"] for r in data["table"]} == pytest.approx(expected)
    report = runner.invoke(app, ["report", "winrates", str(out), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    again = ladder("--games", "3", "--strategies", "greedy,random", "--out", str(out))
    assert again.exit_code == 2 and "holds a different run" in again.output


def test_ladder_removes_its_temporary_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = ladder("--games", "2", "--strategies", "greedy,random")
    assert result.exit_code == 0, result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--strategies", "greedy,nope"), "built-ins"),
        (("--strategies", "greedy"), "at least 2 strategies"),
        (("--strategies", "greedy,random", "--layout", "XYZ"), "XYZ"),
        (("--strategies", "greedy,random", "--games", "0"), "--games"),
        (("--strategies", "greedy,random,economy,seals,park", "--players", "5"), "--players"),
        (("--strategies", "greedy,random", "--workers", "0"), "--workers must be at least 1"),
        (("--strategies", "greedy,greedy"), "greedy more than once"),
        (("--strategies", "greedy,random,greedy"), "greedy more than once"),
        (("--strategies", "greedy,random", "--seed", "-1"), "--seed"),
    ],
)
def test_ladder_bad_input_gives_one_line_and_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = ladder(*args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in result.output


def test_a_head_to_head_interval_stays_within_0_and_1() -> None:
    """A pair one side won in 99 of 100 groups: the clustered normal interval reaches past 1 (and the other side's
    below 0); the table cuts it at the bounds of a share, as the strategy table does."""
    import numpy as np
    import polars as pl

    from palais_sim.analytics import stats, winrates

    n, wins = 100, 99  # one pair per group, so the sums of squares are the sums
    raw = stats.cluster_mean(*(np.array([x]) for x in (n, wins, wins, wins, n, n)))
    assert raw.high[0] > 1.0  # the situation the cut is for
    df = pl.DataFrame(
        {"strategy": ["a", "b"], "opponent": ["b", "a"], "n": [n, n], "groups": [n, n], "nn": [n, n],
         "ahead_sum": [wins, n - wins], "ahead_sq": [wins, n - wins], "ahead_tn": [wins, n - wins]}
    )  # fmt: skip
    table = winrates.finish_head_to_head(df)
    rows = {r["strategy"]: r for r in table.iter_rows(named=True)}
    assert rows["a"]["ahead"] == 0.99 and rows["a"]["ci_high"] == 1.0 and 0.9 < rows["a"]["ci_low"] < 0.99
    assert rows["b"]["ci_low"] == 0.0 and 0.01 < rows["b"]["ci_high"] < 0.1


def test_the_ladder_shows_a_long_strategy_name_whole() -> None:
    """A user's strategy was cut to "examples.m" in the head-to-head columns and at 28 characters in the rows."""
    spec = "examples.my_strategy:MyStrategy:min_points=5"
    result = ladder("--games", "2", "--strategies", f"{spec},greedy")
    assert result.exit_code == 0, result.output
    table, matrix = result.output.split("head to head")
    assert spec in table and f"1. {spec}" in matrix
