"""A run played in parts (``palais simulate --shard K/N``) is the run played whole: the same games in the same chunk
files, reported as one run with the same report; parts that do not make one run are refused in one line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.analytics.runs import RunError, open_run
from palais_sim.cli import app
from palais_sim.tournament.manifest import Manifest, RunDirError
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.shards import Shard, ShardError, schedule_hash
from tests.cli_errors import one_error_line as one_line
from tests.run_dirs import unmark_chunk

# 42 games in chunks of 8: 6 chunks, the last of 2 games; rotation groups of 2 span chunks (and parts)
SETTINGS = Settings(games=42, players=2, strategies=("greedy", "economy", "seals"), seed=5, max_rounds=30)
CHUNK = 7


def play(out: Path, shard: Shard | None = None, settings: Settings = SETTINGS, **kw) -> Path:
    run(settings, out, workers=1, chunk_size=kw.pop("chunk_size", CHUNK), progress=False, shard=shard, **kw)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("shards")
    made = {"whole": play(base / "whole")}
    for k in (1, 2, 3):
        made[f"part{k}"] = play(base / f"part{k}", Shard(k, 3))
    return made


def parts(runs: dict[str, Path]) -> list[Path]:
    return [runs["part1"], runs["part2"], runs["part3"]]


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


# ---------------------------------------------------------------------------------------------------- the parts


def test_shard_parses_and_splits_the_plan_into_contiguous_blocks() -> None:
    assert Shard.parse("2/3") == Shard(2, 3)
    blocks = [Shard(k, 3).chunks(7) for k in (1, 2, 3)]
    assert [list(b) for b in blocks] == [[0, 1], [2, 3], [4, 5, 6]]
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2"):
        with pytest.raises(ShardError):
            Shard.parse(bad)
    with pytest.raises(ShardError, match="only 2 chunk"):
        Shard(1, 3).check(2, 10)


def test_parts_play_exactly_the_whole_runs_games_in_its_chunk_files(runs: dict[str, Path]) -> None:
    whole = {p.name: p for p in (runs["whole"] / "games").glob("*.parquet")}
    held = {p.name: p for d in parts(runs) for p in (d / "games").glob("*.parquet")}
    assert sorted(held) == sorted(whole) and len(whole) == 6
    for table in ("games", "seats", "recruits"):
        for name in whole:
            a = pl.read_parquet(runs["whole"] / table / name).drop("engine", strict=False)
            part = next(d for d in parts(runs) if (d / table / name).exists())
            b = pl.read_parquet(part / table / name).drop("engine", strict=False)
            assert a.equals(b), (table, name)


def test_a_parts_manifest_records_its_part_and_the_schedule_hash(runs: dict[str, Path]) -> None:
    manifests = [Manifest.load(d) for d in parts(runs)]
    whole = Manifest.load(runs["whole"])
    assert whole is not None and whole.shard is None
    hashes = {m.data["schedule_hash"] for m in manifests if m is not None} | {whole.data["schedule_hash"]}
    assert hashes == {schedule_hash(whole.data)}
    shards = [m.data["shard"] for m in manifests if m is not None]
    assert [(s["index"], s["first_chunk"], s["chunks"], s["games"]) for s in shards] == [
        (1, 0, 2, 14), (2, 2, 2, 14), (3, 4, 2, 14)
    ]  # fmt: skip
    assert all(m is not None and m.data["state"] == "done" for m in manifests)


def test_a_part_resumes_as_the_part_it_is(runs: dict[str, Path], tmp_path: Path) -> None:
    part = shutil.copytree(runs["part2"], tmp_path / "part2")
    for table in ("games", "seats", "recruits"):
        (part / table / "chunk-000003.parquet").unlink()
    unmark_chunk(part, 3)
    summary = run(SETTINGS, part, workers=1, resume=True, progress=False)  # no shard given: the stored one
    assert summary.played_now == 7 and summary.games == 14 and summary.shard == Shard(2, 3)
    a = pl.read_parquet(part / "seats" / "chunk-000003.parquet").drop("strategy_notes")
    b = pl.read_parquet(runs["whole"] / "seats" / "chunk-000003.parquet").drop("strategy_notes")
    assert a.equals(b)
    with pytest.raises(RunDirError, match="shard"):
        run(SETTINGS, part, workers=1, resume=True, progress=False, shard=Shard(1, 3))


def test_bad_shard_is_one_line(tmp_path: Path) -> None:
    for bad, says in (("4/3", "K must be 1 to N"), ("x", "must be K/N"), ("5/5", "too few for 5 parts")):
        line = one_line(
            cli("simulate", "--out", str(tmp_path / "r"), "--games", "20", "--chunk-size", "10", "--shard", bad,
                "--workers", "1"),
        )  # fmt: skip
        assert says in line, line
    assert not (tmp_path / "r").exists()


def test_automatic_chunk_size_of_a_part_does_not_depend_on_the_workers(tmp_path: Path) -> None:
    settings = Settings(games=400, players=2, strategies=("random", "random"), seed=1, max_rounds=5)
    run(settings, tmp_path / "a", workers=1, progress=False, shard=Shard(3, 3))
    manifest = Manifest.load(tmp_path / "a")
    assert manifest is not None and manifest.data["chunk_size"] == 17  # 400 games / (8 chunks * 3 parts)


# ------------------------------------------------------------------------------------------- reported as one


def normalised(text: str, runs: dict[str, Path]) -> str:
    """A report's text without what says where and when each run was played (paths, names, times, sessions)."""
    for d in sorted(runs.values(), key=lambda p: -len(str(p))):
        text = text.replace(str(d.resolve()), "DIR").replace(str(d), "DIR")
    text = re.sub(r"DIR(`?, `?DIR)+", "DIR", text)
    text = re.sub(r"part1\+part2\+part3|whole", "NAME", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:+.]+", "TIME", text)
    return re.sub(r"(sessions\W+)\d+", r"\1N", text)


def rounded(value: object) -> object:
    """JSON with every float to 10 significant digits: the report's sums run in an order that varies from one
    report to the next (the same run reported twice differs in the last bits), never beyond that."""
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_three_parts_report_as_the_run_played_whole(runs: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    texts = []
    for name, dirs in (("whole", [runs["whole"]]), ("parts", parts(runs))):
        result = cli("report", "all", *map(str, dirs), "--out", str(tmp_path / name), "--format", fmt)
        assert result.exit_code == 0, result.output
        text = (tmp_path / name / f"report.{fmt}").read_text()
        if fmt == "json":
            data = json.loads(text)
            listed = data["run"].pop("parts", None)
            assert listed == (None if name == "whole" else [str(d) for d in parts(runs)])
            text = json.dumps(rounded(data), indent=1)
        texts.append(normalised(text, runs))
    assert texts[0] == texts[1]
    assert ("## Head to head" if fmt == "md" else '"head_to_head": [') in texts[1]  # the sections are there


def test_parts_in_any_order_open_as_the_same_run(runs: dict[str, Path]) -> None:
    a = open_run(parts(runs))
    b = open_run(parts(runs)[::-1])
    assert a.files("seats") == b.files("seats")
    assert [p.name for p in a.files("games")] == sorted(p.name for p in (runs["whole"] / "games").glob("*"))
    assert a.manifest["state"] == "done" and a.check is not None and a.check.games_read == 42
    assert a.summary["games"] == open_run(runs["whole"]).summary["games"]


def test_parts_that_do_not_make_one_run_are_refused_in_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    other = play(tmp_path / "other", Shard(2, 3), Settings(**{**SETTINGS.to_dict(), "seed": 6}))
    halves = play(tmp_path / "half", Shard(2, 2))
    p1, p2, p3 = parts(runs)
    cases = [
        ([p1, other, p3], "parts of different schedules (seed: 5 vs 6)"),
        ([p1, p2, p2], "is given twice"),
        ([p1, p2, shutil.copytree(p2, tmp_path / "copy"), p3], "are both part 2/3"),
        ([p1, p3], "part 2 of 3 of this schedule is missing"),
        ([p2], "parts 1 and 3 of 3 of this schedule are missing"),
        ([p1, halves], "another number of parts"),
        ([runs["whole"], p1], "a run played whole, not a part"),
    ]
    for dirs, says in cases:
        with pytest.raises(RunError, match=re.escape(says)):
            open_run(dirs)
    line = one_line(cli("report", "winrates", str(p1), str(p3), "--out", str(tmp_path / "rep")))
    assert "part 2 of 3" in line and str(p1) in line
