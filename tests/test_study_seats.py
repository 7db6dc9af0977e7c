"""`palais study seats`: mirror play finds a planted seat edge (unequal start gold), and the gold factorial tells
the seat order from the gold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.analytics.paired import robust, verdict
from palais_sim.cli import app
from palais_sim.core.games import get_game
from palais_sim.study.common import StudySpec
from palais_sim.study.seats import SeatsPlan, compute

SKILLS = ("greedy", "seals")  # two cheap skill levels, so the tests run in seconds


def test_verdict_rule() -> None:
    assert verdict(2.5, 9.0, 2.0) == "favoured"
    assert verdict(-9.0, -2.1, 2.0) == "disfavoured"
    assert verdict(-1.9, 1.5, 2.0) == "balanced"
    assert verdict(0.5, 6.0, 2.0) == "undecided"  # significant, but it may still be within the margin
    assert verdict(-5.0, 5.0, 2.0) == "undecided"  # not significant is not balanced
    assert verdict(float("nan"), 1.0, 2.0) == "undecided"
    assert robust(["favoured", "favoured"]) and not robust(["favoured"]) and not robust(["undecided", "undecided"])
    assert not robust(["favoured", "balanced"])


@pytest.fixture(scope="module")
def rich_seat_two(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], Path]:
    out = tmp_path_factory.mktemp("seats")
    plan = SeatsPlan(StudySpec(strategies=SKILLS, groups=150, seed=3), players=(2,), values=(0, 9))
    rows, _ = compute(plan, out)
    return rows, out


def test_unequal_start_gold_makes_the_rich_seat_favoured_robustly(rich_seat_two) -> None:
    rows, _ = rich_seat_two
    by = {(r["key"], r["strategy"]): r for r in rows}
    for s in SKILLS:
        assert by[(2, s)]["verdict"] == "favoured" and by[(2, s)]["robust"]
        assert by[(1, s)]["verdict"] == "disfavoured"
        assert by[(2, s)]["start_gold"] == 9
        assert by[(2, s)]["n_groups"] == 150


def test_gold_factorial_separates_gold_from_seat(tmp_path: Path) -> None:
    plan = SeatsPlan(StudySpec(strategies=("greedy",), groups=120, seed=3), players=(2,), values=(0, 9),
                     factorial=True)  # fmt: skip
    rows, arms = compute(plan, tmp_path)
    assert arms["greedy"]["2"] == [[0, 9], [9, 0]]
    gold = {r["key"]: r for r in rows if r["subject"] == "start_gold"}
    seat = {r["key"]: r for r in rows if r["subject"] == "seat"}
    assert gold[9]["verdict"] == "favoured" and gold[0]["verdict"] == "disfavoured"
    # seat order alone: far smaller than the gold's effect (two players: the two seat rows mirror each other)
    assert abs(seat[2]["effect"]) < gold[9]["effect"] / 2
    assert seat[1]["effect"] == pytest.approx(-seat[2]["effect"], abs=1e-6)


def test_cli_writes_the_study_files_and_reuses_finished_arms(tmp_path: Path) -> None:
    args = ["study", "seats", "--out", str(tmp_path / "s"), "--players", "2", "--groups", "30", "--strategy",
            "greedy", "--strategy", "seals", "--start-gold", "0,9"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert data["study"] == "seats" and data["format"] == "palais-study/1"
    row = data["rows"][0]
    for key in ("subject", "strategy", "effect", "ci", "n_groups", "verdict", "robust"):
        assert key in row
    html = (tmp_path / "s" / "study.html").read_text()
    assert "data:image/png;base64," in html and "<img" in html and 'src="charts' not in html
    page = (tmp_path / "s" / "study.md").read_text()
    assert data["command"].startswith("palais ") and "```" in page
    # the page states each level's games, wall and CPU time and the machine (the core count its runs recorded)
    cpu = data["games"]["greedy"]["cpu_seconds"]
    assert "| wall time (s) | CPU time (s) | machine |" in page and cpu is not None
    level = data["games"]["greedy"]
    assert f"| `greedy` | {level['games']} | {level['seconds']:.0f} | {cpu:,.0f} | " in page and " cores |" in page
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0
    assert json.loads((tmp_path / "s" / "study.json").read_text())["games"]["greedy"]["played_now"] == 0
    from palais_sim.study.publish import publish

    index = publish(tmp_path, tmp_path / "published").read_text()
    assert "[s](s/study.md)" in index and "Robust verdicts" in index
    # Which code played the arms is recorded and published (`palais version` prints the current fingerprint).
    from palais_sim.tournament.fingerprint import code_fingerprint

    assert {g["code_fingerprint"] for g in data["games"].values()} == {code_fingerprint(get_game())}
    assert f"fingerprint `{code_fingerprint(get_game())}`" in index
    published = tmp_path / "published" / "s"
    copied = sorted(
        p.name for p in published.rglob("*") if p.is_file() and "evidence" not in p.relative_to(published).parts
    )
    assert copied == ["seats_0.png", "seats_1.png", "study.json", "study.md"]  # no runs, no html (the arms: evidence/)
    assert (published / "evidence" / "MANIFEST.json").is_file()


def test_more_groups_grow_the_arms_to_the_larger_studys_answer(tmp_path: Path) -> None:
    """More groups ("more groups would tell"): the same study with more groups into the same --out plays only the
    new groups, and answers exactly as a study played at the larger size from the start."""

    def seats(out: str, groups: int) -> dict:
        args = ["study", "seats", "--out", str(tmp_path / out), "--players", "2", "--groups", str(groups),
                "--strategy", "greedy", "--start-gold", "0,9"]  # fmt: skip
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        return json.loads((tmp_path / out / "study.json").read_text())

    seats("grown", 12)
    grown = seats("grown", 30)
    fresh = seats("fresh", 30)
    assert grown["games"]["greedy"]["played_now"] < fresh["games"]["greedy"]["played_now"]
    assert grown["rows"] == fresh["rows"] and grown["rows"][0]["n_groups"] == 30
    page = (tmp_path / "grown" / "study.md").read_text()
    assert "a larger `--groups` into the same `--out` plays only the new groups" in page  # the advice the page gives


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["study", "seats", "--out", str(tmp_path), "--players", "2,5"])
    assert res.exit_code == 2 and "--players" in res.output
    res = CliRunner().invoke(app, ["study", "seats", "--out", str(tmp_path), "--players", "4", "--start-gold", "0,1"])
    assert res.exit_code == 2 and "--start-gold" in res.output


def test_three_groups_call_no_seat(tmp_path: Path) -> None:
    """`study seats --groups 3` called seat 2 "favoured [+50, +50]": three games won by the same seat."""
    plan = SeatsPlan(StudySpec(strategies=SKILLS, groups=3, seed=1), players=(2, 3))
    rows, _ = compute(plan, tmp_path)
    assert {r["verdict"] for r in rows} == {"undecided"}, [(r["key"], r["ci"], r["verdict"]) for r in rows]
    assert all(r["differing_groups"] <= 3 < r["min_differing"] for r in rows)
    for r in rows:  # a seat's win share less 1/P: its interval within what that can be, however few the groups
        low, high, fair = *r["ci"], 100 / r["players"]  # the row's interval is rounded to 1e-4 pp
        assert -fair - 1e-4 <= low <= high <= 100 - fair + 1e-4, r
    assert any(abs(r["ci"][0] + 100 / r["players"]) < 1e-4 or abs(r["ci"][1] - 100 + 100 / r["players"]) < 1e-4
               for r in rows)  # fmt: skip


def test_no_verdict_without_evidence_on_any_row() -> None:
    """A zero-width interval never decides, nor do fewer differing groups than a unanimous sign test needs."""
    import numpy as np

    from palais_sim.analytics.paired import mean_interval
    from palais_sim.study import render
    from palais_sim.study.evidence import min_differing

    assert [min_differing(c) for c in (0.95, 1 - 0.05 / 3, 0.99)] == [6, 7, 8]
    flat = np.full(40, 0.5)  # every group the same: no spread
    assert render.row("seat", 2, "x", mean_interval(flat), 2.0, values=flat)["verdict"] == "undecided"
    few = np.array([0.5] * 5 + [0.0] * 995)  # 5 differing groups of 1000
    assert render.row("seat", 2, "x", mean_interval(few), 2.0, values=few)["verdict"] == "undecided"
    enough = np.array([0.5, -0.5] * 3 + [0.0] * 994)  # 6 that differ, both ways: balanced
    decided = render.row("seat", 2, "x", mean_interval(enough), 2.0, values=enough)
    assert decided["verdict"] == "balanced" and decided["evidence"] is None
    strong = np.array([0.5, 0.5, 0.5, -0.5] * 25)
    assert render.row("seat", 2, "x", mean_interval(strong), 2.0, values=strong)["verdict"] == "favoured"


@pytest.mark.parametrize("flag", ["--gold-factorial", "--factorial"])
def test_the_games_factorial_flag_and_the_generic_one_permute_its_seat_values(tmp_path: Path, flag: str) -> None:
    """The seats study's values and their factorial come from the game (``GAME.seat_values``): Palais Royal's
    ``--start-gold`` and ``--gold-factorial`` work as before, ``--factorial`` is the same flag for any game."""
    args = ["study", "seats", "--out", str(tmp_path / "s"), "--players", "2", "--groups", "6", "--strategy", "greedy",
            "--start-gold", "0,9", flag]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert data["factorial"] is True and data["arms"]["greedy"]["2"] == [[0, 9], [9, 0]]
    assert {r["key"] for r in data["rows"] if r["subject"] == "start_gold"} == {0, 9}
    assert sorted(p.name for p in (tmp_path / "s" / "runs" / "greedy" / "2p").iterdir()) == ["gold-0-9", "gold-9-0"]
    page = (tmp_path / "s" / "study.md").read_text()
    assert "Start golds permuted over the seats" in page


def test_a_game_whose_seats_start_alike_refuses_the_factorial_in_one_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["study", "seats", "--game", "palastgefluester", "--out", str(tmp_path),
                                   "--players", "3", "--groups", "2", "--factorial"])  # fmt: skip
    assert res.exit_code == 2 and "seats start alike" in res.output and len(res.output.strip().splitlines()) == 1
