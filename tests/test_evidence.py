"""A published study's evidence: compact runs beside the page, from which the page re-renders byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.cli.options import RECORDED_COMMAND
from palais_sim.study import compact, publish

# the start gold permuted over the seats: the study reads each seat's start gold, a column the evidence must keep
STUDY = [
    "study",
    "seats",
    "--players",
    "2",
    "--strategy",
    "greedy",
    "--groups",
    "6",
    "--workers",
    "1",
    "--gold-factorial",
]


def play_study(runs: Path, extra: tuple[str, ...] = ()) -> Path:
    """A tiny seats study played into ``runs/seats``, recording its command as the shell would."""
    out = runs / "seats"
    args = [*STUDY, "--out", str(out), *extra]
    token = RECORDED_COMMAND.set("palais " + " ".join(args))
    try:
        result = CliRunner().invoke(app, args)
    finally:
        RECORDED_COMMAND.reset(token)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny study played, then published (its evidence exported, its page rendered from it); runs/ deleted."""
    root = tmp_path_factory.mktemp("evidence")
    play_study(root / "runs")
    publish.publish(root / "runs", root / "reports")
    shutil.rmtree(root / "runs")
    return root / "reports"


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_pages_re_render_byte_identically_from_the_evidence_alone(published: Path, tmp_path: Path) -> None:
    copy = tmp_path / "reports"
    shutil.copytree(published, copy)
    assert compact.main(["render", str(copy)]) == 0
    publish.publish(copy, copy)
    before, after = files(published), files(copy)
    assert sorted(before) == sorted(after)
    assert {"seats/study.md", "seats/study.json", "README.md"} <= set(after)
    assert any(name.startswith("seats/charts/") and name.endswith(".png") for name in after)
    assert before == after  # pages, study.json, index and the PNG charts (matplotlib writes them deterministically)


def test_evidence_is_one_compact_file_per_table_with_the_read_columns(published: Path) -> None:
    evidence = published / "seats" / "evidence"
    index = json.loads((evidence / "MANIFEST.json").read_text())
    assert index["command"].startswith("palais study seats") and len(index["arms"]) == 2  # the two start golds' arms
    arm = evidence / index["arms"][0]["path"]
    assert index["arms"][0]["code_fingerprint"] and index["arms"][0]["components_hash"]
    assert index["arms"][0]["games"] == 6
    for table in ("games", "seats", "recruits"):
        assert [p.name for p in (arm / table).iterdir()] == ["chunk-000000.parquet"]
    games = pl.read_parquet(arm / "games" / "chunk-000000.parquet")
    assert games.height == 6 and "seed" not in games.columns and "error" in games.columns
    assert "`total`" in (evidence / "COLUMNS.md").read_text()


def test_rendering_refuses_a_missing_arm_in_one_line(published: Path, tmp_path: Path, capfd) -> None:
    copy = tmp_path / "reports"
    shutil.copytree(published, copy)
    shutil.rmtree(copy / "seats" / "evidence" / "runs")
    assert compact.main(["render", str(copy)]) != 0
    err = [line for line in capfd.readouterr().err.splitlines() if line]
    assert len(err) == 1 and err[0].startswith("error:") and "no finished arm" in err[0]
    assert compact.main(["render", str(tmp_path / "nowhere")]) == 1
