"""`palais verify`: the committed evidence replayed with the installed code, arm by arm."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.cli.options import RECORDED_COMMAND
from palais_sim.study import compact, publish
from palais_sim.tournament import replay
from tests.cli_errors import one_error_line

STUDY = ["study", "seats", "--players", "2,3", "--strategy", "greedy", "--groups", "6", "--workers", "1"]


def palais(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny seats study (2 and 3 players) played, published with its evidence; its runs deleted."""
    root = tmp_path_factory.mktemp("verify")
    args = [*STUDY, "--out", str(root / "runs" / "seats")]
    token = RECORDED_COMMAND.set("palais " + " ".join(args))
    try:
        assert palais(*args).exit_code == 0
    finally:
        RECORDED_COMMAND.reset(token)
    publish.publish(root / "runs", root / "reports")
    shutil.rmtree(root / "runs")
    return root / "reports"


def arm_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("seats/")]


def test_untouched_evidence_holds_for_every_arm(published: Path) -> None:
    result = palais("verify", str(published), "--sample", "2", "--seed", "3")
    lines = arm_lines(result.output)
    assert result.exit_code == 0, result.output
    assert len(lines) == 2 and all(": holds (4 games of groups " in line for line in lines)  # first, last, 2 drawn
    assert result.output.splitlines()[-1] == "2 of 2 arms hold"


def test_a_planted_rule_change_fails_only_the_arms_it_affects(published: Path, monkeypatch) -> None:
    """Three-player games score one point more per seat today: the 3p arms differ, the 2p arms hold."""
    played = replay.play_one

    def changed(game):
        rows, other = played(game)
        if len(rows["seats"]) == 3:
            for row in rows["seats"]:
                row["total"] += 1
        return rows, other

    monkeypatch.setattr(replay, "play_one", changed)
    result = palais("verify", str(published / "seats"))
    lines = arm_lines(result.output)
    assert result.exit_code == 1, result.output
    two, three = lines
    assert "/2p/" in two and two.endswith(": holds (2 games of groups 0, 5 replayed)"), lines
    assert "/3p/" in three and "differs at group 0: seats.total of game 0:" in three, lines
    assert "recorded" in three and "today" in three
    assert result.output.splitlines()[-1] == "1 of 2 arms hold"


def test_record_writes_the_check_into_the_evidence_manifest(published: Path, tmp_path: Path) -> None:
    copy = tmp_path / "reports"
    shutil.copytree(published, copy)
    assert palais("verify", str(copy), "--record").exit_code == 0
    index = json.loads((copy / "seats" / "evidence" / "MANIFEST.json").read_text())
    assert all(arm["last_verified"]["holds"] for arm in index["arms"])
    assert index["last_verified"]["code_fingerprint"] == index["arms"][0]["code_fingerprint"]
    publish.publish(copy, copy)
    assert "last verified by replay" in (copy / "README.md").read_text()


def test_restored_evidence_is_kept_by_a_study_played_again(published: Path, tmp_path: Path) -> None:
    """make reports on a fresh clone: the published arms go back under runs/ and nothing is played again."""
    restored = compact.restore(published, tmp_path / "runs")
    assert len(restored) == 2
    args = [*STUDY, "--out", str(tmp_path / "runs" / "seats")]
    assert palais(*args).exit_code == 0
    page = json.loads((tmp_path / "runs" / "seats" / "study.json").read_text())
    assert page["games"]["greedy"]["played_now"] == 0


def test_a_directory_without_evidence_is_one_error_line(tmp_path: Path) -> None:
    result = palais("verify", str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    one_error_line(result)
    (tmp_path / "empty").mkdir()
    assert palais("verify", str(tmp_path / "empty")).exit_code == 2


def test_a_restored_arm_that_must_grow_is_played_again_whole(published: Path, tmp_path: Path) -> None:
    """A compact run holds its games in one file: a study asking for more groups plays the arm again from scratch."""
    compact.restore(published, tmp_path / "runs")
    args = [*STUDY[:-4], "--groups", "8", "--workers", "1", "--out", str(tmp_path / "runs" / "seats")]
    result = palais(*args)
    assert result.exit_code == 0, result.output
    games = json.loads((tmp_path / "runs" / "seats" / "study.json").read_text())["games"]["greedy"]
    assert games["played_now"] == games["games"] == 16


def test_an_arm_listed_but_not_on_disk_fails_and_none_at_all_is_no_proof(published: Path, tmp_path: Path) -> None:
    """A clone that lost its arms (an ignore rule dropped them from the commit) must not read as holding."""
    copy = tmp_path / "reports"
    shutil.copytree(published, copy)
    arms = compact.evidence_arms(copy / "seats")
    shutil.rmtree(arms[0])
    result = palais("verify", str(copy))
    assert result.exit_code == 1 and ": missing (listed in its MANIFEST.json, not on disk)" in result.output
    assert result.output.splitlines()[-1] == "1 of 2 arms hold"
    for arm in arms[1:]:
        shutil.rmtree(arm)
    index = copy / "seats" / "evidence" / "MANIFEST.json"
    index.write_text(json.dumps({**json.loads(index.read_text()), "arms": []}))
    empty = palais("verify", str(copy))
    assert empty.exit_code == 1 and empty.output.splitlines()[-1] == "0 of 0 arms hold"


def test_the_committed_evidence_is_not_ignored_by_git() -> None:
    """The standard set's arms live under evidence/.../runs/ and are Parquet: both patterns the repository ignores
    elsewhere (runs/, *.parquet); a clone without them could verify nothing."""
    git = shutil.which("git")
    root = Path(__file__).resolve().parents[1]
    if git is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    import subprocess

    evidence = "reports/standard/nobles/evidence/runs/greedy/base/forbid-N01/look-1"
    paths = [f"{evidence}/games/chunk-000000.parquet", f"{evidence}/manifest.json"]
    ignored = subprocess.run([git, "check-ignore", "--no-index", *paths], cwd=root, capture_output=True, text=True)
    assert ignored.stdout.strip() == "", f"ignored by .gitignore: {ignored.stdout}"
