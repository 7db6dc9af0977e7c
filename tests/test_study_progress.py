"""A study's progress on stderr: one timed line per arm played, the nobles study's verdict after each look and the
moment its budget runs out; nothing for arms read again, nothing on stdout."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.study.render import duration

TIMED = re.compile(r"^\d\d:\d\d:\d\d ")


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if TIMED.match(line)]


def test_a_seats_study_says_each_arm_it_plays_and_is_quiet_when_it_reuses_them(tmp_path: Path) -> None:
    out = tmp_path / "seats"
    args = ["study", "seats", "--out", str(out), "--players", "2,3", "--groups", "2", "--strategy", "random",
            "--workers", "1"]  # fmt: skip
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    lines = _lines(first.stderr)
    arms = sorted(p.parent.relative_to(out / "runs").as_posix() for p in (out / "runs").rglob("manifest.json"))
    assert len(arms) == 2
    assert sorted(re.sub(TIMED, "", line).split(" played: ")[0] for line in lines) == arms
    assert all(re.search(r" played: 2 games in \d+ s \(\d+ s of CPU in the workers\)$", line) for line in lines)
    assert not _lines(first.stdout)
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert _lines(again.stderr) == []  # every arm read again: nothing played, nothing said
    assert logging.getLogger("palais_sim.study").handlers == []  # the command's handler is gone with it


def test_the_nobles_study_gives_each_look_its_verdict_and_says_when_the_budget_is_spent(tmp_path: Path) -> None:
    out = tmp_path / "nobles"
    args = ["study", "nobles", "--out", str(out), "--players", "2", "--groups", "4", "--looks", "2", "--nobles",
            "N05,N18", "--strategy", "random", "--reprice", "none", "--budget", "12", "--workers", "1"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    said = [re.sub(TIMED, "", line) for line in _lines(res.stderr)]
    looks = [line for line in said if " after look " in line]
    # look 1 of both subjects (8 games), then N05's second look (4): the budget of 12 leaves N18's second look out
    assert [line.split(":")[1].split(" (")[0].strip() for line in looks] == [
        "N05 after look 1 of 2", "N18 after look 1 of 2", "N05 after look 2 of 2"]  # fmt: skip
    assert all(line.startswith("random: ") and re.search(r"pp \[.*\], undecided$", line) for line in looks)
    assert looks[2].split("(")[1].startswith("4 groups)")
    assert said[-1] == "the budget of 12 games is spent (12 played or read): the open arms stop undecided"


def test_durations_read_as_a_reader_counts_them() -> None:
    assert [duration(s) for s in (0.4, 38, 59.4, 59.6, 60, 86, 119.6, 599.4, 600, 840, 3599, 3600, 9840)] == [
        "0 s", "38 s", "59 s", "1 min", "1 min", "1 min 26 s", "2 min", "9 min 59 s", "10 min", "14 min",
        "1 h 00 min", "1 h 00 min", "2 h 44 min"]  # fmt: skip
