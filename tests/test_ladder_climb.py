"""A strength ladder must climb before anything settles on it: the rule on the rungs' measured strengths, the study
page and study.json of a ladder whose top rung is weaker (strengths planted), a climbing ladder unchanged, the
command's warning line and the index's cell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.games.palais_royal.studies.pages import subject_table
from palais_sim.study import ladder
from palais_sim.study.common import StudySpec
from palais_sim.study.index_page import Source
from palais_sim.study.ladder import NO_CLIMB, RungStrength, climb, judged
from palais_sim.study.seats import SeatsPlan, compute, run_study

FIRST = RungStrength("expert:budget=2", 0.5, (0.5, 0.5), 0)


def rung(name: str, score: float, low: float, high: float, groups: int = 100) -> RungStrength:
    return RungStrength(name, score, (low, high), groups)


def test_a_ladder_whose_rungs_get_surely_stronger_climbs() -> None:
    found = climb([FIRST, rung("b4", 0.56, 0.51, 0.61), rung("b8", 0.64, 0.59, 0.69)])
    assert found.climbs and found.reason is None
    # a middle rung not surely above the first is no objection: only the top rung must be, and none surely weaker
    assert climb([FIRST, rung("b4", 0.49, 0.44, 0.54), rung("b8", 0.6, 0.55, 0.65)]).climbs


def test_the_measured_expert_ladder_goes_down() -> None:
    """expert:budget=8 scored 41.4% [36.8, 45.9] (-60 Elo [-94, -28]) against expert at budget 2."""
    found = climb([FIRST, rung("expert:budget=4", 0.47, 0.42, 0.52), rung("expert:budget=8", 0.414, 0.368, 0.4595)])
    assert not found.climbs
    assert "`expert:budget=8`" in found.reason and "-60 [-94, -28]" in found.reason


def test_a_rung_surely_weaker_than_the_one_below_breaks_the_climb() -> None:
    """The top rung is surely stronger than the first, but surely weaker than the rung below it."""
    found = climb([FIRST, rung("b4", 0.8, 0.76, 0.84), rung("b8", 0.6, 0.55, 0.65)])
    assert not found.climbs and "`b8` is surely weaker than `b4`" in found.reason
    # overlapping intervals are no evidence of a step down
    assert climb([FIRST, rung("b4", 0.66, 0.6, 0.72), rung("b8", 0.62, 0.56, 0.68)]).climbs


@pytest.mark.parametrize(
    ("top", "climbs"),
    [
        (rung("b4", 0.55, 0.48, 0.62), False),  # not surely stronger: the interval reaches below 0.5
        (rung("b4", 1.0, 1.0, 1.0, groups=3), False),  # every setup won, but three setups are no proof
        (rung("b4", 1.0, 1.0, 1.0, groups=6), True),  # every one of six setups won: a sign test's 1.6%
        (rung("b4", 0.7, float("nan"), float("nan"), groups=1), False),  # one setup: no interval
    ],
)
def test_the_top_rung_must_be_surely_stronger(top: RungStrength, climbs: bool) -> None:
    assert climb([FIRST, top]).climbs is climbs


def test_judged_keeps_a_climbing_ladders_states_and_rewrites_the_others() -> None:
    rows = [{"key": "N01", "state": "settled", "difference": 0.3, "ci": [-1.0, 1.6]},
            {"key": "N02", "state": "moving", "difference": 6.0, "ci": [3.0, 9.0]}]  # fmt: skip
    assert judged(rows, ladder.Climb(True)) == rows
    down = judged(rows, ladder.Climb(False, "why"))
    assert [r["state"] for r in down] == [NO_CLIMB, NO_CLIMB]
    assert [r["difference"] for r in down] == [0.3, 6.0] and rows[0]["state"] == "settled"


def _planted(strengths: list[RungStrength]):
    def fake(spec, ladder_, groups, players, out, ledger):
        assert list(ladder_) == [s.strategy for s in strengths]
        return strengths

    return fake


PLAN = SeatsPlan(StudySpec(strategies=("random", "greedy"), groups=20, seed=5), players=(2,), ladder=True)


def test_a_seats_study_on_a_ladder_that_goes_down_settles_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ladder, "strengths", _planted([RungStrength("random", 0.5, (0.5, 0.5), 0),
                                                       rung("greedy", 0.414, 0.368, 0.4595)]))  # fmt: skip
    paths = run_study(PLAN, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["ladder"]["climbs"] is False and "-60 [-94, -28]" in data["ladder"]["climb_reason"]
    assert [r["state"] for r in data["ladder"]["settling"]] == [NO_CLIMB, NO_CLIMB]
    assert [r["state"] for r in data["arms"]["ladder"]] == [NO_CLIMB, NO_CLIMB]
    page = paths["md"].read_text()
    assert "This ladder does not climb: the top rung `greedy` is not surely stronger" in page
    assert "ismcts:budget=25,horizon=2" in page and "**no climb**" in page
    assert "the right is not the stronger players" in page
    assert ladder.warning_line(data).startswith("warning: the strength ladder does not climb: the top rung")


def test_a_climbing_ladder_reads_as_before(tmp_path: Path, monkeypatch) -> None:
    _rows, arms = compute(PLAN, tmp_path)  # the top two rungs' reading with no climb check
    before = [r["state"] for r in arms["ladder"]]
    assert NO_CLIMB not in before
    monkeypatch.setattr(ladder, "strengths", _planted([RungStrength("random", 0.5, (0.5, 0.5), 0),
                                                       rung("greedy", 0.9, 0.85, 0.95)]))  # fmt: skip
    paths = run_study(PLAN, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["ladder"]["climbs"] is True and data["ladder"]["climb_reason"] is None
    assert [r["state"] for r in data["ladder"]["settling"]] == before
    page = paths["md"].read_text()
    assert "does not climb" not in page and "Flat at the right: the verdict holds for stronger players" in page
    assert ladder.warning_line(data) is None


def test_the_command_warns_on_stderr_and_still_writes_the_study(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ladder, "strengths", _planted([RungStrength("lookahead:budget=1", 0.5, (0.5, 0.5), 0),
                                                       rung("lookahead:budget=2", 0.3, 0.2, 0.4)]))  # fmt: skip
    out = tmp_path / "s"
    args = ["study", "seats", "--out", str(out), "--players", "2", "--groups", "2", "--ladder", "lookahead:budget=1",
            "--rungs", "2", "--workers", "1"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "does not climb" in warnings[0] and "lookahead:budget=2" in warnings[0]
    assert "warning" not in res.stdout and (out / "study.json").exists()


def _nobles(name: str, climbs: bool | None, state: str, setups: int) -> Source:
    ladder_doc: dict = {
        "rungs": [{"strategy": "expert:budget=2", "elo": 0.0, "groups": 0},
                  {"strategy": "expert:budget=4", "elo": -60.2, "groups": 100}],
        "settling": [{"subject": "noble", "key": "N01", "state": state, "setups": setups}],
    }  # fmt: skip
    if climbs is not None:
        ladder_doc["climbs"] = climbs
    rows = [{"subject": "noble", "key": "N01", "strategy": s, "effect": 0.1, "ci": [-1.0, 1.2], "n_groups": setups,
             "verdict": "balanced"} for s in ("expert:budget=2", "expert:budget=4")]  # fmt: skip
    data = {"study": "nobles", "players": 2, "strategies": ["expert:budget=2", "expert:budget=4"],
            "rules": {"components": None}, "rows": rows, "ladder": ladder_doc}  # fmt: skip
    return Source(name, data)


def _settled_cell(lines: list[str]) -> str:
    row = next(line for line in lines if line.startswith("| N01"))
    return [c.strip() for c in row.strip().strip("|").split(" | ")][3]


def test_the_index_shows_no_climb_and_prefers_a_ladder_that_climbs() -> None:
    lines = subject_table([_nobles("down", False, NO_CLIMB, 900)], [])
    assert _settled_cell(lines) == f"{NO_CLIMB} ¹"
    text = "\n".join(lines)
    assert "**no climb**" in text
    assert "`expert:budget=4` -60 Elo (does not climb)" in text
    # a ladder that climbs reads before one that does not, even with fewer setups; an old study (no record) climbs
    both = subject_table([_nobles("down", False, NO_CLIMB, 900), _nobles("up", True, "settled", 300)], [])
    assert _settled_cell(both).startswith("settled")
    old = subject_table([_nobles("old", None, "moving", 300)], [])
    assert _settled_cell(old) == "moving ¹" and "does not climb" not in "\n".join(old)
