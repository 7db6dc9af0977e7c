"""Ratings the games cannot bound are not numbers (issue 35): a strategy that never lost (or never won) a meeting has
no maximum-likelihood Bradley-Terry rating, decided from the win/loss graph; the same for an Elo from a score of 0
or 1 in a match or a study's strength ladder."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from palais_sim.analytics.synthetic import SynthSpec, synthetic_run
from typer.testing import CliRunner

from palais_sim.analytics import bradley_terry, sprt, winrates
from palais_sim.analytics.paired import Estimate
from palais_sim.analytics.runs import open_run
from palais_sim.cli import app
from palais_sim.study.ladder import RungStrength, strength_columns
from palais_sim.study.match import MatchPlan, MatchResult

NAMES = ["a", "b", "c"]


def _status(comp: list[list[float]]) -> list[str]:
    found, _ = bradley_terry.standings(np.array(comp, dtype=float), NAMES[: len(comp)])
    return [s.status for s in found]


def test_a_connected_graph_rates_everyone() -> None:
    comp = [[0, 3, 5], [1, 0, 2], [0.5, 1, 0]]  # c beat nobody outright but tied a: a tie links both ways
    found, core = bradley_terry.standings(np.array(comp), NAMES)
    assert [s.status for s in found] == ["rated"] * 3
    assert core.tolist() == [0, 1, 2]
    assert bradley_terry.strongly_connected(np.array(comp))


def test_all_wins_and_all_losses_are_unbounded() -> None:
    assert _status([[0, 20], [0, 0]]) == ["above", "below"]
    # b and c beat each other (the rated core); a never lost to them; nobody is below
    assert _status([[0, 4, 6], [0, 0, 3], [0, 2, 0]]) == ["above", "rated", "rated"]
    # c never beat a or b
    assert _status([[0, 4, 6], [3, 0, 3], [0, 0, 0]]) == ["rated", "rated", "below"]
    # a chain of complete wins: a above all, c below all, b between them
    assert _status([[0, 4, 6], [0, 0, 3], [0, 0, 0]]) == ["above", "between", "below"]


def test_the_reason_names_the_strategies_it_never_lost_to_or_never_beat() -> None:
    found, _ = bradley_terry.standings(np.array([[0, 4, 6], [3, 0, 3], [0, 0, 0]], dtype=float), NAMES)
    assert "never beat a, b" in found[2].reason and found[0].reason == ""


def test_a_bootstrap_draw_that_separates_the_core_gives_unbounded_ends() -> None:
    assert bradley_terry.draw_bounds(np.array([[0, 2.0], [1.0, 0]])) is None
    low, high = bradley_terry.draw_bounds(np.array([[0, 2.0], [0.0, 0]]))
    assert low.tolist() == [math.inf, -math.inf] and high.tolist() == [math.inf, -math.inf]
    lows = np.array([[1.0], [2.0], [-math.inf]] * 10)
    q_low, q_high = bradley_terry.quantiles(lows, lows + 1)
    assert math.isinf(q_low[0]) and q_low[0] < 0 and math.isfinite(q_high[0])


@pytest.mark.parametrize(
    ("skill", "expected"),
    [
        ({"alpha": 200.0}, {"alpha": "above", "beta": "rated", "gamma": "rated"}),
        ({"alpha": 200.0, "beta": 200.0}, {"alpha": "rated", "beta": "rated", "gamma": "below"}),
        ({"alpha": 2.0}, {"alpha": "rated", "beta": "rated", "gamma": "rated"}),
    ],
)
def test_planted_runs(tmp_path: Path, skill: dict[str, float], expected: dict[str, str]) -> None:
    played = open_run(synthetic_run(tmp_path / "run", SynthSpec(groups=150, players=(3,), skill=skill, seed=4)))
    rated, _ = winrates.ratings(played)
    rows = {r["strategy"]: r for r in rated.to_dicts()}
    assert {s: r["status"] for s, r in rows.items()} == expected
    for r in rows.values():
        if r["status"] == "rated":
            assert r["rating"] is not None and math.isfinite(r["rating"])
        else:
            assert r["rating"] is None and r["ci_low"] is None and r["ci_high"] is None and r["reason"]
    finite = [r["rating"] for r in rows.values() if r["rating"] is not None]
    assert abs(sum(finite)) < 1e-6  # mean 0 over the rated ones only
    if "above" in expected.values():
        assert rated["status"][0] == "above"  # listed first
    if "below" in expected.values():
        assert rated["status"][-1] == "below"


def test_ladder_json_has_null_and_a_reason_and_the_text_says_unbounded() -> None:
    runner = CliRunner()
    args = ["ladder", "--strategies", "random,greedy", "--games", "40"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    rows = {r["strategy"]: r for r in data["table"]}
    assert rows["greedy"]["rating"] is None and rows["random"]["rating"] is None
    assert rows["greedy"]["rating_status"] == "above" and rows["random"]["rating_status"] == "below"
    assert "never lost a meeting to random" in rows["greedy"]["rating_reason"]
    assert {r["strategy"]: r["reason"] is not None for r in data["ratings"]} == {"greedy": True, "random": True}
    text = runner.invoke(app, args).output
    assert "above all, unbounded" in text and "below all, unbounded" in text


def _match(scores: list[float]) -> MatchResult:
    x = np.array(scores)
    n = len(x)
    se = float(x.std(ddof=1) / np.sqrt(n))
    est = Estimate(float(x.mean()), se, float(x.mean() - 2 * se), float(x.mean() + 2 * se), n)
    return MatchResult(MatchPlan("a", "b"), "undecided", 2 * n, n, 0, est, 0.0, -2.9, 2.9, 1.0, {}, 1)


def test_a_match_at_a_score_of_one_or_zero_has_no_elo_number() -> None:
    won = _match([1.0] * 8)
    assert won.to_dict()["elo"] is None and "won every game" in won.to_dict()["elo_reason"]
    assert "A above B, unbounded" in won.text()
    lost = _match([0.0] * 8)
    assert "A below B, unbounded" in lost.text() and lost.to_dict()["elo"] is None
    near = _match([1.0] * 7 + [0.75])  # the interval reaches past 1: its upper Elo end is unbounded
    assert near.to_dict()["elo"] is not None and near.to_dict()["elo_ci"][1] is None
    assert "unbounded" in near.text()
    even = _match([0.5, 0.75, 0.25, 0.5, 0.5, 0.75])
    assert even.to_dict()["elo_reason"] is None and "unbounded" not in even.text()


def test_a_rung_that_won_every_game_is_above_the_first_unbounded() -> None:
    row = RungStrength("ismcts:budget=16", 1.0, (1.0, 1.0), 5).to_dict()
    assert row["elo"] is None and row["elo_reason"]
    cells = {name: f(row) for name, f in strength_columns()}
    assert cells["Elo [95%]"] == "above the first rung, unbounded"
    assert "beyond measure" not in " ".join(cells.values()) and "[1.000, 1.000]" not in cells.values()
    assert sprt.unbounded_elo(0.6) is None


def test_a_rung_whose_every_setup_scored_the_same_has_no_interval() -> None:
    row = RungStrength("lookahead:budget=2", 0.5, (0.5, 0.5), 5).to_dict()
    cells = {name: f(row) for name, f in strength_columns()}
    assert cells["Elo [95%]"] == "+0 (no interval)" and "[0.500, 0.500]" not in cells["score against the first rung"]
    spread = RungStrength("lookahead:budget=2", 0.6, (0.45, 0.75), 5).to_dict()
    assert {name: f(spread) for name, f in strength_columns()}["Elo [95%]"] == "+70 [-35, +191]"
