"""`palais study persons`, Palastgeflüster's own study (its ``GAME.studies``): a verdict per person and skill level,
and a study of another game's is refused in one line naming the studies each game has."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from palais_sim.cli import app

runner = CliRunner()


def test_the_persons_study_writes_a_verdict_per_person_and_skill_level(tmp_path: Path) -> None:
    args = ["study", "persons", "--out", str(tmp_path / "s"), "--groups", "4", "--players", "3",
            "--persons", "zofe,hofnarr", "--strategy", "heuristic"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "s" / "study.json").read_text())["rows"]
    assert [(r["key"], r["strategy"]) for r in rows] == [("zofe", "heuristic"), ("hofnarr", "heuristic")]
    for r in rows:
        assert r["verdict"] in ("favoured", "disfavoured", "balanced", "undecided") and r["n_groups"] == 4
        assert r["ci"][0] <= r["effect"] <= r["ci"][1]


def test_a_study_the_game_has_not_is_one_line_naming_its_studies(tmp_path: Path) -> None:
    """`palais study nobles --game palastgefluester` names the studies Palastgeflüster has, and the game the nobles
    study is of; `palais study --help` lists every game's studies beside the seats study."""
    wrong = runner.invoke(app, ["study", "nobles", "--game", "palastgefluester", "--out", str(tmp_path / "n")])
    assert wrong.exit_code == 2 and len(wrong.output.strip().splitlines()) == 1, wrong.output
    assert "its studies: seats, persons" in wrong.output and "Palais Royal (--game palais-royal)" in wrong.output
    other = runner.invoke(app, ["study", "persons", "--game", "palais-royal", "--out", str(tmp_path / "p")])
    assert other.exit_code == 2 and "its studies: seats, nobles, layouts" in other.output, other.output
    listed = runner.invoke(app, ["study", "--help"], env={"COLUMNS": "200"}).output
    assert all(f" {name} " in listed for name in ("seats", "nobles", "layouts", "persons")), listed
    assert not (tmp_path / "n").exists() and not (tmp_path / "p").exists()
