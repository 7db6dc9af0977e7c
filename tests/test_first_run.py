"""A newcomer's first run: `palais simulate --out DIR` on its defaults plays the built-in styles against each other
with seat rotation, its report has content in every section, and `make demo` does not install Ray."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.cli.simulate import game_defaults
from palais_sim.core.games import get_game

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_run_is_the_styles_round_robin_with_seat_rotation() -> None:
    DEFAULTS = game_defaults(get_game())  # the default game's demo run
    assert DEFAULTS.strategies == ("greedy", "economy", "seals", "park", "cards")
    assert "random" not in DEFAULTS.strategies
    assert (DEFAULTS.format, DEFAULTS.players, DEFAULTS.rotate_seats, DEFAULTS.games) == ("round-robin", 2, True, 1000)


def test_a_default_run_scaled_down_fills_every_report_section(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--games", "200", "--workers", "1"])
    assert result.exit_code == 0, result.output
    stored = json.loads((out / "manifest.json").read_text())["settings"]
    assert stored["strategies"] == list(game_defaults(get_game()).strategies) and stored["rotate_seats"]
    result = CliRunner().invoke(app, ["report", "all", str(out), "--out", str(tmp_path / "rep"), "--format", "html"])
    assert result.exit_code == 0, result.output
    assert not result.stderr.strip()  # no warning: nothing is missing
    page = (tmp_path / "rep" / "report.html").read_text()
    for heading in ("Run", "Summary", "Games", "Win rates", "Scores", "Head to head", "Ratings", "Nobles",
                    "Seat advantage", "Start gold", "Room layout"):  # fmt: skip
        assert f"<h2>{heading}" in page, heading
    assert page.count("data:image/png;base64,") == 7  # castle included: the layouts are random
    result = CliRunner().invoke(app, ["report", "all", str(out), "--out", str(tmp_path / "j"), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "j" / "report.json").read_text())
    assert len(data["strategies"]) == 5 and len(data["head_to_head"]) == 20 and len(data["summary"]) == 4
    assert len({round(r["win_rate"], 6) for r in data["strategies"]}) > 1  # the styles differ
    seat_shares = [r["win_rate"] for r in data["seats"]]
    assert len(seat_shares) == 2 and seat_shares[0] != seat_shares[1]  # the seat section is not all zeros
    assert len(data["layout_features"]) > 0 and any(r["taken"] > 0 for r in data["nobles"])


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_does_not_install_ray_and_make_test_does() -> None:
    def planned(target: str) -> str:
        done = subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    demo, test = planned("demo"), planned("test")
    assert "pip install" in demo and "ray" not in demo.lower()
    assert 'pip install --quiet -e ".[dev]"' in test and "['optional-dependencies']['ray']" in test
    # the Python source's tests run while the engine compiles, and every test runs after it on the compiled build
    assert test.index("PALAIS_PURE=1") < test.index("setup.py build_ext") < test.index("PALAIS_REQUIRE_COMPILED")
