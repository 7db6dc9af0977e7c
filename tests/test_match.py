"""`palais match`: the GSPRT against a direct constrained fit, the Elo scale, and real sequential matches."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize
from typer.testing import CliRunner

from palais_sim.analytics import sprt
from palais_sim.cli import app
from palais_sim.study.match import MatchPlan, play_match
from palais_sim.tournament.schedule import Settings


def _direct_llr(scores: np.ndarray, s0: float, s1: float) -> float:
    """The same LLR by a general-purpose constrained maximum likelihood fit (SLSQP), as a cross-check."""
    support, probs, n = sprt.distribution(scores)

    def fit(s: float) -> np.ndarray:
        cons = [{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": lambda p: p @ support - s}]
        res = optimize.minimize(
            lambda p: -(probs * np.log(np.maximum(p, 1e-300))).sum(), probs, method="SLSQP",
            bounds=[(1e-12, 1)] * len(probs), constraints=cons, options={"ftol": 1e-15},
        )  # fmt: skip
        return res.x

    return float(n * (probs * np.log(fit(s1) / fit(s0))).sum())


def test_llr_matches_a_direct_constrained_fit() -> None:
    rng = np.random.default_rng(3)
    scores = rng.choice([0, 0.25, 0.5, 0.75, 1], size=400, p=[0.1, 0.2, 0.35, 0.2, 0.15])
    s0, s1 = sprt.elo_to_score(0), sprt.elo_to_score(10)
    assert sprt.llr(scores, 0, 10) == pytest.approx(_direct_llr(scores, s0, s1), rel=1e-4, abs=1e-6)


def test_llr_agrees_with_the_normal_approximation() -> None:
    rng = np.random.default_rng(4)
    scores = rng.choice([0, 0.25, 0.5, 0.75, 1], size=5000, p=[0.1, 0.2, 0.3, 0.22, 0.18])
    s0, s1 = sprt.elo_to_score(0), sprt.elo_to_score(5)
    approx = len(scores) * (s1 - s0) * (2 * scores.mean() - s0 - s1) / (2 * scores.var())
    assert sprt.llr(scores, 0, 5) == pytest.approx(approx, rel=0.02)


def test_elo_scale_round_trips() -> None:
    assert sprt.elo_to_score(0) == 0.5
    assert sprt.score_to_elo(sprt.elo_to_score(37.5)) == pytest.approx(37.5)
    assert sprt.score_to_elo(0.75) == pytest.approx(190.85, abs=0.01)


def test_wald_bounds_and_decisions() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(-np.log(19)) and upper == pytest.approx(np.log(19))
    assert sprt.decide(np.ones(2000), 0, 5, 0.05, 0.05).result == "H1"
    assert sprt.decide(np.full(2000, 0.5), 0, 5, 0.05, 0.05).result == "H0"
    assert sprt.decide(np.array([0.5, 1.0]), 0, 5, 0.05, 0.05).result == "undecided"
    assert sprt.pentanomial(np.array([0, 0.25, 0.25, 1])) == [1, 2, 0, 0, 1]


def test_a_strong_strategy_is_accepted_within_a_few_hundred_games(tmp_path: Path) -> None:
    plan = MatchPlan("greedy", "random", batch_groups=25, max_games=2000, base=Settings(seed=5))
    result = play_match(plan, tmp_path)
    assert result.result == "H1"
    assert result.games <= 600 and result.games < plan.max_games  # it stopped: it did not play the whole budget
    assert result.score.mean > 0.9
    # it stopped at the first look past the bound: one batch fewer had not decided
    earlier = sprt.decide(np.ones(result.groups - plan.batch_groups) * result.score.mean, 0, 5, 0.05, 0.05)
    assert earlier.result == "undecided" or result.batches == 1


def test_a_mirror_match_accepts_h0_and_resumes_from_its_batches(tmp_path: Path) -> None:
    plan = MatchPlan("greedy", "greedy", batch_groups=50, max_games=2000, base=Settings(seed=2))
    first = play_match(plan, tmp_path)
    assert first.result == "H0" and first.score.mean == 0.5
    again = play_match(plan, tmp_path)  # the batches are read back, not played again
    assert again.games == first.games and again.seconds < first.seconds + 5
    assert sorted(p.name for p in tmp_path.iterdir())[0] == "batch-0000"


def test_batches_use_the_seeds_of_an_unbroken_run(tmp_path: Path) -> None:
    import polars as pl

    plan = MatchPlan("greedy", "random", batch_groups=3, max_games=12, sprt=False, base=Settings(seed=8))
    play_match(plan, tmp_path)
    seeds = pl.read_parquet(tmp_path / "batch-0001" / "games" / "*.parquet").sort("game")
    assert seeds["group"].to_list() == [3, 3, 4, 4, 5, 5]
    from palais_sim.tournament.schedule import group_seed

    assert seeds["seed"][0] == group_seed(8, 3)


def test_cli_json(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["match", "greedy", "random", "--json", "--batch", "25", "--seed", "5",
                                   "--out", str(tmp_path / "m")])  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    for key in ("result", "games", "score", "score_ci", "elo", "elo_ci"):
        assert key in data
    assert data["result"] == "H1" and data["games"] <= 600


def test_cli_three_players_and_errors(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["match", "greedy", "random", "-p", "3", "--no-sprt", "-n", "30", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["games"] == 30 and data["score"] > 0.5 and "group_scores" in data["distribution"]
    bad = CliRunner().invoke(app, ["match", "greedy", "random", "--elo0", "5", "--elo1", "0"])
    assert bad.exit_code == 2 and "elo1" in bad.output


def test_after_an_sprt_the_elo_is_the_stopped_one_and_says_so() -> None:
    """A match the SPRT ran reports the stopping-rule-aware Elo (labelled, with the sample's own in the JSON as
    ``fixed_length_elo``); a fixed-length match reports the plain one."""
    from palais_sim.analytics.paired import mean_interval
    from palais_sim.study.match import MatchResult, stopped_estimate

    scores = np.repeat([0, 0.25, 0.5, 0.75, 1], [10, 40, 100, 45, 12])
    for on in (True, False):
        plan = MatchPlan("a", "b", elo0=0, elo1=20, sprt=on, batch_groups=1)
        state = sprt.decide(scores, 0, 20, 0.05, 0.05)
        result = MatchResult(plan, state.result, 2 * len(scores), len(scores), 0, mean_interval(scores), state.llr,
                             state.lower, state.upper, 1.0, {}, 1, stopped_estimate(plan, scores))  # fmt: skip
        data = result.to_dict()
        plain = sprt.score_to_elo(float(scores.mean()))
        assert data["fixed_length_elo"] == pytest.approx(plain)
        if on:
            assert data["elo_method"].startswith("sprt-stopped") and "SPRT_elo" in result.text()
            assert data["elo"] == pytest.approx(7.579, abs=0.01)  # fishtest's SPRT_elo on these counts
        else:
            assert data["elo_method"] == "fixed-length" and data["elo"] == pytest.approx(plain)
            assert result.stopped is None and "fixed)" in result.text()


def test_the_verdict_says_what_accepting_means_not_a_bound_the_interval_may_deny(tmp_path: Path) -> None:
    """The line "H1 accepted: A is stronger by at least about 10 Elo" stood beside "+7.6 [-0.5, +15.1]": accepting H1
    says which of elo0 and elo1 the games favour, with the error rate, not that the difference is elo1 or more."""
    plan = MatchPlan("greedy", "random", batch_groups=25, max_games=2000, base=Settings(seed=5))
    first = play_match(plan, tmp_path).text().splitlines()[0]
    assert "H1 accepted" in first and "at least" not in first
    assert "+5 Elo over A +0 Elo" in first and "5% of matches where A is +0 Elo" in first and "Elo line" in first


def _two_matches(rng: np.random.Generator, groups: int, shares: tuple[float, float]) -> tuple[object, object]:
    """Two fixed-length 2-player matches of the same seeds against one opponent, as the anchored gate plays them:
    each group's setup moves both arms alike (a shared effect of -0.15, 0 or +0.15 on each game's win chance), each
    game is then won or lost at the arm's own chance."""
    from types import SimpleNamespace

    import polars as pl

    setup = rng.choice([-0.15, 0.0, 0.15], size=groups)
    made = []
    for share in shares:
        games = rng.random((groups, 2)) < (share + setup)[:, None]
        scores = pl.DataFrame({"group": np.arange(groups), "score": games.mean(axis=1)})
        made.append(SimpleNamespace(group_scores=scores, plan=SimpleNamespace(confidence=0.95)))
    return made[0], made[1]


def test_the_gates_paired_difference_covers_95_percent_and_agrees_with_scipy() -> None:
    """The anchored gate's interval (``score_difference``) on its own path: two fixed-length matches of 200 groups
    on the same seeds. Over 2,000 such gates the interval holds the true difference (0.05: the arms' win chances
    0.40 and 0.35, the shared setup effect cancelling) in 93.5% to 96.5% of them, and each interval is scipy's
    paired t interval (``ttest_rel``)."""
    from scipy import stats

    from palais_sim.study.match import score_difference

    rng = np.random.default_rng(52)
    covered = 0
    runs = 2000
    for i in range(runs):
        first, second = _two_matches(rng, 200, (0.40, 0.35))
        d = score_difference(first, second)  # type: ignore[arg-type]
        covered += d.low <= 0.05 <= d.high
        if i < 5:
            a, b = first.group_scores["score"].to_numpy(), second.group_scores["score"].to_numpy()  # type: ignore[attr-defined]
            ci = stats.ttest_rel(a, b).confidence_interval(0.95)
            assert (d.low, d.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert 0.935 <= covered / runs <= 0.965, covered / runs


def test_a_short_matchs_score_interval_stays_within_0_and_1() -> None:
    """Three groups' t interval reaches beyond anything possible (-55% here); it is cut to the range of a score
    share, where the mean lies, so it covers whenever the uncut one does."""
    result = CliRunner().invoke(app, ["match", "greedy", "lookahead", "--no-sprt", "--max-games", "6", "--seed", "1",
                                      "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    low, high = figures["score_ci"]
    assert figures["score"] == pytest.approx(1 / 6) and low == 0.0 and 0.5 < high < 1.0
