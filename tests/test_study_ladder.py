"""The strength ladder of a study: rungs from a search spec, each rung's Elo from its own match, and whether a seat
edge settled between the top two rungs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.study.ladder import rungs, settled


def test_rungs_double_the_budget_and_keep_the_other_parameters() -> None:
    assert rungs("ismcts:budget=8", 4) == tuple(f"ismcts:budget={b}" for b in (8, 16, 32, 64))
    assert rungs("lookahead:horizon=2,budget=3", 2) == ("lookahead:horizon=2,budget=3", "lookahead:horizon=2,budget=6")


@pytest.mark.parametrize(
    ("spec", "count", "message"),
    [("greedy", 3, "budget"), ("ismcts:budget=8", 1, "--rungs"), ("ismcts:budget=0", 2, "at least 1")],
)
def test_a_ladder_without_a_budget_or_rungs_is_refused(spec: str, count: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rungs(spec, count)


def test_settled_moving_and_not_yet() -> None:
    rng = np.random.default_rng(3)
    base = rng.random(4000) - 0.5
    assert settled(base + 0.001, base, 2.0)[0] == "settled"  # the same edge at both rungs
    assert settled(base + 0.10, base, 2.0)[0] == "moving"  # 10 pp apart on every setup
    noisy = settled(rng.random(20) - 0.5, rng.random(20) - 0.5, 2.0)
    assert noisy[0] == "not settled" and noisy[1]["ci"][0] < -2 < 2 < noisy[1]["ci"][1]


def test_cli_seats_ladder_writes_rungs_elos_and_settling(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    args = ["study", "seats", "--out", str(out), "--players", "2", "--groups", "12", "--ladder", "lookahead:budget=1",
            "--rungs", "2", "--elo-groups", "6", "--workers", "1"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((out / "study.json").read_text())
    assert data["strategies"] == ["lookahead:budget=1", "lookahead:budget=2"]
    first, second = data["ladder"]["rungs"]
    assert first["elo"] == 0 and second["groups"] == 6 and second["score_ci"][0] <= second["score"]
    assert {(r["players"], r["seat"]) for r in data["ladder"]["settling"]} == {(2, 1), (2, 2)}
    assert all(r["state"] in ("settled", "moving", "not settled") for r in data["ladder"]["settling"])
    assert (out / "charts" / "ladder.png").exists() and "Strength ladder" in (out / "study.md").read_text()
    both = CliRunner().invoke(app, [*args, "--strategy", "greedy"])
    assert both.exit_code == 2 and "give one of them" in both.output


def test_subjects_settle_move_or_not_on_their_common_setups() -> None:
    """Per subject, the top two rungs' effects are paired on the setups both played (here groups 1..39 of 0..39 and
    1..40): the same effect settles, one 10 pp higher on every setup moves, a noisy one is not settled yet."""
    from palais_sim.study.common import StudySpec
    from palais_sim.study.ladder import subject_settling

    rng = np.random.default_rng(3)
    base = rng.normal(0.0, 0.05, 41)
    noise = rng.normal(0.0, 0.3, 41)
    effects = {
        ("top", "same"): base, ("second", "same"): base,
        ("top", "up"): base + 0.10, ("second", "up"): base,
        ("top", "noisy"): base + noise, ("second", "noisy"): base,
    }  # fmt: skip

    def values(rung: str, key: str) -> pl.DataFrame:
        groups = range(0, 40) if rung == "top" else range(1, 41)
        return pl.DataFrame({"group": list(groups), "value": [effects[(rung, key)][g] for g in groups]})

    spec = StudySpec(strategies=("second", "top"), margin=2.0)
    found = {r["key"]: r for r in subject_settling([("x", k) for k in ("same", "up", "noisy")], values, spec)}
    assert {k: r["state"] for k, r in found.items()} == {"same": "settled", "up": "moving", "noisy": "not settled"}
    assert all(r["setups"] == 39 for r in found.values())
    assert found["up"]["difference"] == pytest.approx(10.0)
