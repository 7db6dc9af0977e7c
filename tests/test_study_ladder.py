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
    """Per-setup values that vary at both rungs (win shares of -0.5, 0, +0.5): the same edge settles, one 10 pp
    higher on average (varying setup by setup) moves, 20 noisy setups are not settled yet."""
    rng = np.random.default_rng(3)
    base = rng.choice([-0.5, 0.0, 0.5], 4000)
    same = np.where(rng.random(4000) < 0.1, rng.choice([-0.5, 0.5], 4000), 0.0)  # 10% of setups differ, either way
    assert settled(base + same, base, 2.0)[0] == "settled"
    higher = np.where(rng.random(4000) < 0.2, 0.5, 0.0)  # +10 pp on average
    assert settled(base + higher, base, 2.0)[0] == "moving"
    noisy = settled(rng.random(20) - 0.5, rng.random(20) - 0.5, 2.0)
    assert noisy[0] == "not settled" and noisy[1]["ci"][0] < -2 < 2 < noisy[1]["ci"][1]
    # two values within +-50 pp differ by at most 100 pp: three setups' interval is cut there (uncut +-180 pp)
    few = settled(np.array([0.5, -0.5, 0.5]), np.array([-0.5, 0.5, -0.5]), 2.0)
    assert few[0] == "not settled" and few[1]["ci"] == [-100.0, 100.0]


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
    # 12 setups: fewer differing setups than a settling needs, or an interval far wider than the margin; on a
    # ladder whose 6 setups do not show the top rung surely stronger, "no climb" (tests/test_ladder_climb.py)
    climbs = data["ladder"]["climbs"]
    assert climbs is (second["score_ci"][0] > 0.5)
    assert [r["state"] for r in data["ladder"]["settling"]] == ["not settled" if climbs else "no climb"] * 2
    assert ("does not climb" in res.stderr) is not climbs
    assert (out / "charts" / "ladder.png").exists() and "Strength ladder" in (out / "study.md").read_text()
    # the page's games table counts the top rung's rating games (6 setups in both seatings), as study.json does
    games = {level: data["games"][level]["games"] for level in data["strategies"]}
    assert games["lookahead:budget=2"] == games["lookahead:budget=1"] + 6 * 2
    assert all(f"| `{level}` | {n:,} |" in (out / "study.md").read_text() for level, n in games.items())
    both = CliRunner().invoke(app, [*args, "--strategy", "greedy"])
    assert both.exit_code == 2 and "give one of them" in both.output


def test_subjects_settle_move_or_not_on_their_common_setups() -> None:
    """Per subject, the top two rungs' effects are paired on the setups both played (groups 1..n-2 of 0..n-2 and
    1..n-1): the same effect (differing both ways on a tenth of the setups) settles, one 10 pp higher on average
    moves, a noisy one over 39 setups is not settled yet."""
    from palais_sim.study.common import StudySpec
    from palais_sim.study.ladder import subject_settling

    rng = np.random.default_rng(3)
    n = 601
    base = rng.choice([-0.5, 0.0, 0.5], n)
    same = np.where(rng.random(n) < 0.1, rng.choice([-0.5, 0.5], n), 0.0)  # differs both ways on 10% of setups
    up = np.where(rng.random(n) < 0.2, 0.5, 0.0)  # +10 pp on average, setup by setup 0 or +50
    noise = rng.normal(0.0, 0.3, n)
    effects = {
        ("top", "same"): base + same, ("second", "same"): base,
        ("top", "up"): base + up, ("second", "up"): base,
        ("top", "noisy"): base + noise, ("second", "noisy"): base,
    }  # fmt: skip

    def values(rung: str, key: str) -> pl.DataFrame:
        groups = range(0, 40) if key == "noisy" else range(0, n - 1)
        groups = groups if rung == "top" else range(groups.start + 1, groups.stop + 1)
        return pl.DataFrame({"group": list(groups), "value": [effects[(rung, key)][g] for g in groups]})

    spec = StudySpec(strategies=("second", "top"), margin=2.0)
    found = {r["key"]: r for r in subject_settling([("x", k) for k in ("same", "up", "noisy")], values, spec)}
    assert {k: r["state"] for k, r in found.items()} == {"same": "settled", "up": "moving", "noisy": "not settled"}
    assert [r["setups"] for r in found.values()] == [n - 2, n - 2, 39]
    assert found["up"]["difference"] == pytest.approx(100 * up[1 : n - 1].mean(), abs=1e-3)


def test_three_equal_setups_do_not_settle() -> None:
    """A ladder at 3 setups called N05 "settled [0, 0]" while each rung was undecided."""
    state, diff = settled(np.zeros(3), np.zeros(3), 2.0)
    assert state == "not settled" and diff["ci"] == [0.0, 0.0]
    assert settled(np.full(60, 0.25), np.full(60, 0.25), 2.0)[0] == "not settled"  # no setup differs at all


def test_settled_on_differences_that_vary() -> None:
    """Settling read from noisy paired differences, not only constant ones: small ones both ways settle, ones that
    vary around +10 pp move, and the same sample halved to 30 setups is not settled."""
    rng = np.random.default_rng(11)
    second = rng.choice([-0.5, 0.0, 0.5], 2000)
    flips = rng.choice([-0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5], 2000)  # 20% of setups differ, both ways
    state, diff = settled(second + flips, second, 2.0)
    assert state == "settled" and diff["ci"][0] < 0 < diff["ci"][1], diff
    up = rng.choice([0.0, 0.5], 2000, p=[0.6, 0.4])  # +20 pp on average, varying
    assert settled(second + up, second, 2.0)[0] == "moving"
    assert settled(second[:30] + flips[:30], second[:30], 2.0)[0] == "not settled"
