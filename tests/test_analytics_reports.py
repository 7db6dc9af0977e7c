"""Reports on runs with known answers: a planted strong seat, strategy, noble or layout feature is flagged, a fair
run flags nothing, and the command writes md / html / json of the promised shape."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from PIL import Image
from typer.testing import CliRunner

from palais_sim.analytics import charts, winrates
from palais_sim.analytics.runs import open_run
from palais_sim.cli import app
from palais_sim.games.palais_royal.analysis import nobles, setup_balance
from palais_sim.games.palais_royal.analysis.synthetic import SynthSpec, synthetic_run
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings


@pytest.fixture(scope="module")
def rigged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = SynthSpec(
        groups=3000, players=(3, 4), chunk_groups=700, seat_bonus={2: 3.0}, skill={"alpha": 3.0},
        noble_bonus={"N41": 15.0}, stairway_office_bonus=5.0, fail_share=0.01, seed=11,
    )  # fmt: skip
    return synthetic_run(tmp_path_factory.mktemp("rigged") / "rigged", spec)


@pytest.fixture(scope="module")
def fair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = SynthSpec(groups=2000, players=(3,), chunk_groups=500, seed=12)
    return synthetic_run(tmp_path_factory.mktemp("fair") / "fair", spec)


def test_planted_seat_is_flagged(rigged: Path) -> None:
    report = setup_balance.compute(open_run(rigged))
    flagged = report.seats.filter(pl.col("flagged") & (pl.col("edge") > 0))
    assert sorted(flagged["seat"].to_list()) == [2, 2]  # seat 2 at 3 and at 4 players
    assert (report.balance["p_holm"] < 1e-6).all()
    assert report.balance["best_seat"].to_list() == [2, 2]


def test_planted_layout_feature_is_flagged(rigged: Path) -> None:
    features = setup_balance.compute(open_run(rigged)).features
    top = features.filter(pl.col("flagged") & (pl.col("effect") > 0)).head(2)
    assert set(top["subject"].to_list()) == {"seat 1"}
    assert set(top["feature"].to_list()) == {"office_next_to_stairway"}


def test_planted_strategy_is_flagged(rigged: Path) -> None:
    w = winrates.compute(open_run(rigged))
    alpha = w.strategies.filter(pl.col("strategy") == "alpha")
    assert (alpha["edge"] > 0.02).all() and (alpha["p_holm"] < 1e-6).all()
    assert (alpha["ci_low"] > alpha["fair_share"]).all()
    pair = w.head_to_head.filter((pl.col("strategy") == "alpha") & (pl.col("opponent") == "beta"))
    assert pair["ahead"][0] > 0.5 and pair["p_holm"][0] < 1e-6
    assert w.ratings["strategy"][0] == "alpha"


def test_planted_noble_is_described_not_judged(rigged: Path) -> None:
    report = nobles.compute(open_run(rigged))
    table = report.nobles
    assert "flag" not in table.columns and "value_points" not in table.columns  # no verdicts from an association
    n41 = table.filter(pl.col("noble") == "N41").row(0, named=True)
    # the synthetic score is points of nobles + 15 for N41: the regression recovers 1 + 15 points associated
    assert n41["points_ci_low"] < 16 < n41["points_ci_high"]
    n17 = table.filter(pl.col("noble") == "N17").row(0, named=True)
    assert n17["points_ci_low"] < 9 < n17["points_ci_high"]
    assert n41["lift_ci_low"] > 0.2
    assert any("not the noble's value" in note for note in report.notes)


def test_fair_run_flags_nothing(fair: Path) -> None:
    run = open_run(fair)
    setup = setup_balance.compute(run)
    assert not setup.seats["flagged"].any()
    assert not setup.features["flagged"].any()
    assert (winrates.compute(run).strategies["p_holm"] > 0.05).all()


def test_failed_games_are_left_out(rigged: Path) -> None:
    summary = open_run(rigged).summary
    assert summary["failed"] > 0
    seats = setup_balance.compute(open_run(rigged)).seats
    played = summary["games"] - summary["failed"]
    assert seats.group_by("players").agg(pl.col("games").first())["games"].sum() == played


def test_json_shape(rigged: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "all", str(rigged), "--out", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "report.json" in result.output
    data = json.loads((tmp_path / "report.json").read_text())
    for key in ("strategies", "nobles", "seats"):
        assert isinstance(data[key], list) and data[key]
    assert {"strategy", "players", "games", "win_rate", "ci_low", "ci_high"} <= set(data["strategies"][0])
    assert {"noble", "taken", "points_associated", "points_ci_low", "points_ci_high"} <= set(data["nobles"][0])
    assert {"players", "seat", "win_rate", "ci_low", "ci_high"} <= set(data["seats"][0])
    assert len(data["nobles"]) == 42
    assert {"settings", "summary", "games", "game_length", "scores", "problems"} <= set(data)
    assert data["charts"] == {} and not (tmp_path / "charts").exists()  # JSON is for scripts: no charts drawn


@pytest.mark.parametrize("which", ["winrates", "nobles", "setup"])
def test_single_reports_json(rigged: Path, tmp_path: Path, which: str) -> None:
    result = CliRunner().invoke(app, ["report", which, str(rigged), "--out", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / f"{which}.json").read_text())
    key = {"winrates": "strategies", "nobles": "nobles", "setup": "seats"}[which]
    assert data[key]


CHARTS = ("game_length", "winrates_forest", "scores", "head_to_head", "nobles_value", "seats", "castle")


def test_html_is_self_contained(fair: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "all", str(fair), "--out", str(tmp_path), "--format", "html"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(CHARTS)
    assert 'src="charts/' not in page and "<table>" in page
    for chart in CHARTS:
        assert (tmp_path / "charts" / f"{chart}.svg").exists()
        with Image.open(tmp_path / "charts" / f"{chart}.png") as png:  # print resolution
            assert round(png.info["dpi"][0]) == charts.PNG_DPI >= 200
            assert png.size[0] >= 1200


def test_markdown_on_a_real_run(tmp_path: Path) -> None:
    # 4 rotation groups of real games, played by the tournament runner (the one play loop, the one seed function)
    settings = Settings(games=12, players=3, strategies=("greedy", "random", "greedy"), format="fixed", seed=1)
    run_dir = tmp_path / "real"
    run(settings, run_dir, workers=1, progress=False)
    result = CliRunner().invoke(app, ["report", "all", str(run_dir), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "report.md").read_text()
    assert "## Win rates" in text and "## Nobles" in text and "## Seat advantage" in text
    assert "](charts/winrates_forest.png)" in text


def test_default_out_is_reports_run_name(fair: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["report", "setup", str(fair)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "reports" / "fair" / "setup.md").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "all", "/nonexistent/run"], "is not a directory"),
        (["report", "everything", "."], "is not one of 'winrates', 'nobles', 'setup', 'all'"),
        (["report", "all", ".", "--format", "pdf"], "unknown format"),
    ],
)
def test_user_errors_are_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1


def test_not_a_run_directory(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "all", str(tmp_path)])
    assert result.exit_code == 2
    assert "no manifest.json" in result.stderr


def test_newer_schema_is_refused(fair: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(fair, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["schema_version"] = 999
    (copy / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(app, ["report", "all", str(copy)])
    assert result.exit_code == 2 and "schema version 999" in result.stderr
