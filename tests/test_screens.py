"""A model's screens (``strategies.common.distill``): cheaper policies on its first features that choose which
candidates it reads; what keeping fewer candidates costs (``benchmarks.screen_keeps``), on planted decisions."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from benchmarks.screen_keeps import study
from strategies.common.distill import LinearPolicy, load_screens

FEATURES = ("cheap", "dear")


def _model(tmp_path: Path, keep: int) -> Path:
    """A model that reads ``dear`` alone, screened by a policy that reads ``cheap`` alone."""
    screen = LinearPolicy(FEATURES[:1], {"": [1.0]}).to_json()
    model = {**LinearPolicy(FEATURES, {"": [0.0, 1.0]}).to_json(), "screens": [{"keep": keep, "policy": screen}]}
    path = tmp_path / f"model-{keep}.json"
    path.write_text(json.dumps(model), encoding="utf-8")
    return path


def _chunk(tmp_path: Path) -> Path:
    """Decisions of three candidates: the screen ranks them 0, 1, 2 (``cheap``), the model 2, 1, 0 (``dear``), and
    the teacher's values agree with the model (candidate 2 best by 0.3, candidate 1 by 0.1 over 0)."""
    rows = []
    for decision in range(4):
        for candidate, (cheap, dear, value) in enumerate(((3.0, 0.0, 0.2), (2.0, 1.0, 0.3), (1.0, 2.0, 0.5))):
            rows.append({"game": 0, "decision": decision, "candidate": candidate, "kind": "move",
                         "features": [cheap, dear], "value": value, "played": candidate == 2})  # fmt: skip
    path = tmp_path / "chunk.parquet"
    pl.DataFrame(rows).write_parquet(path)
    return path


def test_keeping_fewer_candidates_costs_what_the_screen_hides_from_the_model(tmp_path: Path) -> None:
    out = study(_model(tmp_path, 2), [_chunk(tmp_path)], [[1], [2], [3]])
    unscreened = out[("move", "unscreened")]
    assert unscreened["decisions"] == 4 and unscreened["regret"] == 0.0 and unscreened["same"] == 4
    # the screen keeps its best: candidate 0 alone (the teacher's worst), or 0 and 1 (the model takes 1), or all
    assert out[("move", "1")]["same"] == 0 and out[("move", "1")]["regret"] == pytest.approx(4 * 0.3)
    assert out[("move", "2")]["same"] == 0 and out[("move", "2")]["regret"] == pytest.approx(4 * 0.2)
    assert out[("move", "3")] == {**unscreened, "left": [12]}
    assert [out[("move", k)]["left"] for k in ("1", "2")] == [[4], [8]]


def test_a_models_screens_are_read_with_it_and_checked_against_its_features(tmp_path: Path) -> None:
    (screen, keep), *others = load_screens(_model(tmp_path, 2), FEATURES)
    assert not others and keep == 2 and screen.features == FEATURES[:1]
    assert screen.scores("move", [[3.0], [1.0]]) == [3.0, 1.0]
    bad = json.loads(_model(tmp_path, 2).read_text(encoding="utf-8"))
    bad["screens"][0]["policy"]["features"] = ["dear"]  # not the model's first feature
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ValueError, match="first features") as caught:
        load_screens(path, FEATURES)
    assert "\n" not in str(caught.value)


def test_a_sure_screen_chooses_its_best_where_it_leads_by_the_gap(tmp_path: Path) -> None:
    """The screen leads its second by 1.0 (``cheap`` 3 against 2) at every planted decision: a gap of 1.0 or less
    makes it choose its best at once (the teacher's worst, the model's last), a larger gap leaves the choice to the
    model among the candidates the screen keeps."""
    out = study(_model(tmp_path, 2), [_chunk(tmp_path)], [[2]], (0.5, 1.0, 1.5))
    keeps = out[("move", "2")]
    assert keeps["sure"] == 0 and keeps["as_screened"] == 4
    for gap in ("0.5", "1"):
        sure = out[("move", f"2 sure {gap}")]
        assert sure["sure"] == 4 and sure["as_screened"] == 0 and sure["same"] == 0
        assert sure["regret"] == pytest.approx(4 * 0.3) and sure["left"] == [4]
    assert out[("move", "2 sure 1.5")] == keeps
