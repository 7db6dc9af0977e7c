"""The tournament runner: same tables for any workers and chunking, resume after a kill, failing strategies,
refusing a directory that holds another run, and the CLI's user errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.games import GAMES, get_game
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.tournament.manifest import RunDirError
from palais_sim.tournament.runner import RunStopped, run
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.shards import Shard
from strategies.palais_royal.greedy import GreedyStrategy
from tests.run_dirs import chunk_states, interrupt_at, unmark_chunk

ROOT = Path(__file__).resolve().parents[1]
SORT = {"games": ["game"], "seats": ["game", "seat"], "recruits": ["game", "order"]}


class Exploding(GreedyStrategy):
    """Greedy, but raises at its first decision in games whose layout has the Gate, the Mint or the Office in the top
    left cell (a third of the random layouts: a property of the seed a strategy may see)."""

    name = "exploding"

    def choose(self, view, decision):
        if view.layout.room_at[0] % 3 == 0:
            raise RuntimeError("boom")
        return super().choose(view, decision)


EXPLODING = f"{__name__}:Exploding"


def small(**kw) -> Settings:
    base = {"games": 24, "players": 2, "strategies": ("greedy", "random"), "seed": 11, "max_rounds": 6}
    return Settings(**{**base, **kw})


def tables(out: Path) -> dict[str, pl.DataFrame]:
    return {t: pl.read_parquet(out / t / "*.parquet").sort(SORT[t]) for t in SORT}


def assert_same_tables(a: Path, b: Path) -> None:
    ta, tb = tables(a), tables(b)
    for t in SORT:
        assert ta[t].shape == tb[t].shape, t
        differ = [c for c in ta[t].columns if not ta[t][c].equals(tb[t][c])]
        assert not differ, f"{t}: columns {differ} differ"


def test_tables_identical_for_any_workers_and_chunk_size(tmp_path):
    s = small(games=30, players=3, strategies=("greedy", "random", "greedy:edge_bonus=2"))
    run(s, tmp_path / "w1", workers=1, chunk_size=30)
    run(s, tmp_path / "w1c4", workers=1, chunk_size=4)
    summary = run(s, tmp_path / "w2c7", workers=2, chunk_size=7)
    assert summary.games == 30 and summary.errors == 0
    for other in ("w1c4", "w2c7"):
        assert_same_tables(tmp_path / "w1", tmp_path / other)
    t = tables(tmp_path / "w1")
    assert t["games"]["game"].to_list() == list(range(30))
    assert t["seats"].height == 90
    assert len(list((tmp_path / "w2c7" / "games").glob("chunk-*.parquet"))) == 5
    manifest = json.loads((tmp_path / "w2c7" / "manifest.json").read_text())
    assert manifest["state"] == "done" and manifest["total_games"] == 30
    assert all(c["state"] == "done" for c in chunk_states(tmp_path / "w2c7"))


def test_a_failing_strategy_fails_only_its_game(tmp_path):
    s = small(strategies=(EXPLODING, "greedy"), games=20)
    summary = run(s, tmp_path / "r", workers=1, chunk_size=6)
    games = tables(tmp_path / "r")["games"]
    failed = games.filter(pl.col("error").is_not_null())
    assert summary.games == 20 and summary.errors == failed.height > 0
    comps = load_components()

    def explodes(seed: int) -> bool:
        return new_game(comps, RuleOptions(players=2), seed).layout.room_at[0] % 3 == 0

    assert all(explodes(seed) for seed in failed["seed"])
    assert not any(explodes(seed) for seed in games.filter(pl.col("error").is_null())["seed"])
    assert failed["error"].str.contains("boom").all() and failed["error"].str.contains("Exploding").all()
    seats = tables(tmp_path / "r")["seats"]
    assert set(seats["game"]) == set(games.filter(pl.col("error").is_null())["game"])
    assert "failed" in summary.text()


@pytest.mark.parametrize("workers", [1, 2])
def test_fail_fast_stops_at_the_first_failed_game_inside_the_chunk(tmp_path, workers):
    # one chunk of 40 games of which about a third fail: the worker must stop at the first, not finish the chunk
    s = small(strategies=(EXPLODING, "greedy"), games=80)
    out = tmp_path / "r"
    with pytest.raises(RunStopped, match=r"fail-fast at game \d+ \(seed \d+\): .*boom") as info:
        run(s, out, workers=workers, chunk_size=40, fail_fast=True)
    assert info.value.code == 1 and "--resume" in str(info.value)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "failed"
    assert all(c["state"] == "pending" for c in chunk_states(out))
    assert not list((out / "games").glob("*.parquet"))  # a stopped chunk writes nothing
    failures = [line for line in (out / "run.log").read_text().splitlines() if "failed:" in line]
    assert 1 <= len(failures) <= workers  # one per chunk in flight, not a third of 40 games
    # without --fail-fast the same run records the failures and finishes
    summary = run(s, out, workers=1, resume=True)
    assert summary.games == 80 and summary.errors > 10


def test_refuses_a_directory_holding_another_run(tmp_path):
    out = tmp_path / "r"
    run(small(), out, workers=1, chunk_size=8)
    with pytest.raises(RunDirError, match="first 24 games of this run; add --resume to extend it to 48"):
        run(small(games=48), out, workers=1, chunk_size=8)
    with pytest.raises(RunDirError, match="different run.*games"):  # a run never shrinks
        run(small(games=16), out, workers=1, chunk_size=8, resume=True)
    with pytest.raises(RunDirError, match="different run.*seed"):
        run(small(seed=12), out, workers=1, chunk_size=8, resume=True)
    with pytest.raises(RunDirError, match="already holds this run"):
        run(small(), out, workers=1, chunk_size=8)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(RunDirError, match="not empty"):
        run(small(), tmp_path / "other", workers=1)
    with pytest.raises(RunDirError, match="nothing to resume"):
        run(small(), tmp_path / "new", workers=1, resume=True)


def test_interrupted_in_process_run_resumes_to_identical_tables(tmp_path, monkeypatch):
    s = small(games=40)
    run(s, tmp_path / "whole", workers=1, chunk_size=5)
    interrupt_at(monkeypatch, 4)
    with pytest.raises(RunStopped, match="3 of 8 chunks") as info:
        run(s, tmp_path / "cut", workers=1, chunk_size=5)
    assert info.value.code == 130
    monkeypatch.undo()
    summary = run(s, tmp_path / "cut", workers=2, resume=True)
    assert summary.played_now == 25
    assert_same_tables(tmp_path / "whole", tmp_path / "cut")


def test_a_chunk_reported_twice_is_counted_once(tmp_path, monkeypatch):
    """A backend that plays a chunk again (a retry whose first attempt had finished) reports it twice: the ledger,
    the totals and the games played now count it once."""
    from palais_sim.tournament import runner

    real = runner.make_executor

    def reporting_twice(*args, **kwargs):
        executor = real(*args, **kwargs)
        imap = executor.imap_unordered
        executor.imap_unordered = lambda fn, tasks: (rep for rep in imap(fn, tasks) for _ in range(2))
        return executor

    monkeypatch.setattr(runner, "make_executor", reporting_twice)
    summary = run(small(games=20), tmp_path / "twice", workers=1, chunk_size=5)
    assert summary.games == summary.played_now == 20
    ledger = [json.loads(line)["chunk"] for line in (tmp_path / "twice" / "ledger.jsonl").read_text().splitlines()]
    assert sorted(ledger) == [0, 1, 2, 3]


@pytest.mark.parametrize("first", [24, 20])  # a run of whole chunks; one whose last chunk is short
def test_a_run_resumed_with_more_games_grows_to_the_longer_runs_tables(tmp_path, first):
    s = small(games=40)
    run(s, tmp_path / "whole", workers=1, chunk_size=8)
    out = tmp_path / "grown"
    run(small(games=first), out, workers=1, chunk_size=8)
    kept = {c["chunk"] for c in chunk_states(out) if c["count"] == 8}  # chunks of the full size
    stamps = {c: (out / "games" / f"chunk-{c:06d}.parquet").stat().st_mtime_ns for c in kept}
    summary = run(s, out, workers=2, resume=True)
    short = first % 8  # the short last chunk is played again at its full size
    assert summary.games == 40 and summary.played_now == 40 - first + short
    assert {c: (out / "games" / f"chunk-{c:06d}.parquet").stat().st_mtime_ns for c in kept} == stamps
    assert_same_tables(tmp_path / "whole", out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "done" and manifest["total_games"] == 40 and manifest["settings"]["games"] == 40
    assert [(e["from_games"], e["to_games"]) for e in manifest["extended"]] == [(first, 40)]
    assert f"extended from {first} to 40 games" in (out / "run.log").read_text()
    assert manifest["schedule_hash"] == json.loads((tmp_path / "whole" / "manifest.json").read_text())["schedule_hash"]


def test_what_a_resume_repairs_is_said_in_the_runs_log_and_on_the_console(tmp_path, capsys):
    """A chunk marked done whose file was lost is played again, one finished but never marked is counted: the
    session's log says both (they are found before the log is open)."""
    run(small(), tmp_path / "whole", workers=1, chunk_size=8)
    out = tmp_path / "r"
    run(small(), out, workers=1, chunk_size=8)
    (out / "seats" / "chunk-000001.parquet").unlink()
    unmark_chunk(out, 2)  # a killed parent never marked it
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, "state": "interrupted"}))
    summary = run(small(), out, workers=1, resume=True)
    assert summary.played_now == 8  # chunk 1 again; chunk 2 counted from disk
    log = (out / "run.log").read_text()
    assert "chunk(s) 1 were marked done but their files are missing or damaged: they are played again" in log
    assert "1 chunk(s) finished before the run stopped were found complete on disk" in log
    assert "chunk(s) 1 were marked done" in capsys.readouterr().err  # a warning reaches the console too
    assert_same_tables(tmp_path / "whole", out)


def test_an_interrupted_run_grows_too_and_a_part_never_does(tmp_path, monkeypatch):
    interrupt_at(monkeypatch, 2)
    with pytest.raises(RunStopped):
        run(small(), tmp_path / "cut", workers=1, chunk_size=8)
    monkeypatch.undo()
    summary = run(small(games=32), tmp_path / "cut", workers=1, resume=True)
    assert summary.games == 32 and summary.played_now == 24
    run(small(games=32), tmp_path / "whole", workers=1, chunk_size=8)
    assert_same_tables(tmp_path / "whole", tmp_path / "cut")
    part = tmp_path / "part"
    run(small(), part, workers=1, chunk_size=8, shard=Shard(1, 2))
    with pytest.raises(RunDirError, match="different run"):
        run(small(games=48), part, workers=1, chunk_size=8, resume=True, shard=Shard(1, 2))


def _as_from_a_shell() -> None:
    """Ctrl-C at its default in the child, as a shell starts a command: a test process may have inherited or left
    SIGINT ignored (an ignored signal stays ignored across exec, and Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_chunks(out: Path, proc: subprocess.Popen, wanted: int, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        try:
            done = sum(c["state"] == "done" for c in chunk_states(out))
            if done >= wanted:
                return done
        except (OSError, json.JSONDecodeError, AssertionError, RunDirError):
            pass  # not written yet, or caught mid-write
        time.sleep(0.05)
    raise AssertionError("no chunk finished in time")


@pytest.mark.parametrize(("sig", "workers"), [(signal.SIGKILL, "1"), (signal.SIGINT, "2")])
def test_killed_run_resumes_to_identical_tables(tmp_path, sig, workers):
    args = ["simulate", "--games", "400", "--players", "2", "--seed", "5", "--chunk-size", "10", "--max-rounds", "30"]
    out = tmp_path / "cut"
    # the real CLI with each chunk 0.5 s late (tests/runner_hooks.py): 400 games would otherwise end before the signal
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PALAIS_TEST_CHUNK_DELAY": "0.5"}
    command = [sys.executable, "-m", "tests.runner_hooks", *args, "--out", str(out), "--workers", workers]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_shell)  # fmt: skip
    try:
        _wait_for_chunks(out, proc, 2)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    manifest = json.loads((out / "manifest.json").read_text())
    pending = sum(c["state"] != "done" for c in chunk_states(out))
    assert pending > 0, f"the run finished before the signal (exit {proc.returncode}): {err[-400:]}"
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "--resume" in err and manifest["state"] == "interrupted"
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--resume", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["state"] == "done"
    whole = tmp_path / "whole"
    result = CliRunner().invoke(app, [*args, "--out", str(whole), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert_same_tables(whole, out)


def test_cli_user_errors_are_one_line_exit_2(tmp_path):
    runner = CliRunner()
    cases = [
        ["simulate", "--out", str(tmp_path / "a"), "--strategies", "nonesuch"],
        ["simulate", "--out", str(tmp_path / "b"), "--format", "swiss"],
        ["simulate", "--out", str(tmp_path / "c"), "--players", "4", "--strategies", "greedy,random"],
        ["simulate", "--out", str(tmp_path / "d"), "--resume"],
        ["simulate", "--out", str(tmp_path / "e"), "--workers", "0"],
        ["simulate", "--out", str(tmp_path / "f"), "--chunk-size", "0"],
        ["bench", "--workers", "0"],
        ["bench", "--games", "0"],
    ]
    for args in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    assert not any(tmp_path.iterdir())  # nothing refused left a directory behind


def test_a_negative_seed_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "x"
    args = ["simulate", "--out", str(out), "--games", "4", "--workers", "1", "--max-rounds", "5"]
    result = CliRunner().invoke(app, [*args, "--seed", "-1"])
    assert result.exit_code == 2 and "--seed must be a whole number >= 0, got -1" in result.output
    assert not out.exists()
    result = CliRunner().invoke(app, [*args, "--seed", "1"])
    assert result.exit_code == 0, result.output


def test_a_run_directory_with_nothing_written_takes_a_new_run(tmp_path):
    # a run that stopped before its first chunk (e.g. refused by an older version after writing its manifest)
    out = tmp_path / "x"
    with pytest.raises(RunStopped):
        run(small(strategies=(EXPLODING, "greedy")), out, workers=1, chunk_size=4, fail_fast=True)
    assert json.loads((out / "manifest.json").read_text())["totals"]["chunks_done"] == 0
    summary = run(small(seed=99), out, workers=1, chunk_size=4)  # other settings: nothing to lose, so it may
    assert summary.games == 24
    with pytest.raises(RunDirError, match="different run"):  # but never over chunks already written
        run(small(seed=100), out, workers=1, chunk_size=4)


def test_out_that_cannot_be_a_run_directory_is_one_line(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    cases = [
        (a_file, "is a file, not a directory"),
        (a_file / "sub", "cannot use"),
        (Path("/proc/no/such/run"), "cannot use"),
    ]
    for out, needle in cases:
        result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--games", "2", "--workers", "1"])
        assert result.exit_code == 2, result.output
        assert needle in result.output and "[Errno" not in result.output and result.output.count("\n") == 1
    assert a_file.read_text() == "mine"


def test_cli_simulate_and_resume_keep_the_stored_settings(tmp_path):
    out = tmp_path / "r"
    args = ["simulate", "--out", str(out), "--games", "8", "--max-rounds", "5", "--workers", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Played 8 games" in result.output and str(out) in result.output
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--resume"])
    assert result.exit_code == 0 and "0 of them in this session" in result.output
    assert "the run was complete" in result.output and "0 games/s" not in result.output  # not a stalled pool
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--resume", "--games", "6"])
    assert result.exit_code == 2 and "different run" in result.output  # fewer games: another run
    result = CliRunner().invoke(app, [*args[:4], "14", *args[5:]])  # the same settings, more games
    assert result.exit_code == 2 and "add --resume to extend it to 14" in result.output
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--resume", "--games", "14"])
    assert result.exit_code == 0, result.output
    assert "Played 14 games" in result.output  # its only chunk was short: played again at its full size


def test_bench_json(tmp_path):
    result = CliRunner().invoke(app, ["bench", "--players", "2", "--games", "6", "--workers", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for key in ("games_per_s_per_core", "games_per_s", "workers", "scaling", "decisions_per_s"):
        assert key in data
    assert data["workers"] == 2 and data["games"] == 6


# ------------------------------------------------------------------------------ interrupts and kills, real signals

HANG_ARGS = ["--games", "400", "--players", "2", "--strategies", "greedy,random", "--seed", "5", "--chunk-size", "10",
             "--max-rounds", "30"]  # fmt: skip


def _proc_stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # state, ppid, ...


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _proc_stat(int(entry.name))
            if stat is not None and int(stat[1]) == pid and stat[0] != "Z":
                kids.append(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    stat = _proc_stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")  # a zombie has exited (an orphan may not be reaped)


def _complete_on_disk(out: Path) -> set[int]:
    names = [{p.name for p in (out / t).glob("chunk-*.parquet")} for t in ("games", "seats", "recruits")]
    return {int(n[6:12]) for n in set.intersection(*names)}


def _done_in_manifest(out: Path) -> set[int]:
    return {c["chunk"] for c in chunk_states(out) if c["state"] == "done"}


def _wait(condition, proc: subprocess.Popen | None, what: str, timeout: float = 120) -> None:
    """Poll ``condition``; the timeout only bounds a hang."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended (code {proc.returncode}) before {what}: {proc.stderr.read()}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting until {what}")


def _start_hanging_run(tmp_path: Path, workers: int) -> tuple[Path, subprocess.Popen, set[int]]:
    """A run whose chunks from 2 on write their files and then hang in the worker; returns once they have."""
    out = tmp_path / "cut"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PALAIS_TEST_HANG_FROM": "2"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.runner_hooks", "simulate", *HANG_ARGS, "--out", str(out), "--workers",
         str(workers)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_as_from_a_shell,
    )  # fmt: skip
    hung = set(range(2, 2 + workers))  # every worker is stuck on one chunk, its files complete on disk
    try:
        _wait(lambda: hung <= _complete_on_disk(out), proc, f"chunks {sorted(hung)} were written")
        _wait(lambda: (out / "manifest.json").exists() and _done_in_manifest(out) == {0, 1}, proc, "2 chunks done")
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return out, proc, hung


@pytest.fixture(scope="module")
def whole_hang_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "whole"
    result = CliRunner().invoke(app, ["simulate", *HANG_ARGS, "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("workers", [1, 2])
def test_interrupt_stops_at_once_counts_finished_chunks_and_resumes(tmp_path, whole_hang_run, sig, code, workers):
    out, proc, hung = _start_hanging_run(tmp_path, workers)
    kids = _children(proc.pid) if workers > 1 else []
    assert len(kids) >= workers if workers > 1 else True
    try:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)  # the hung chunks never end: only a prompt stop gets here
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--resume" in lines[0], err
    assert f"{2 + workers} of 40 chunks are safe" in lines[0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "interrupted"
    # the chunks finished before the signal count, their reports never came: the manifest and the disk agree
    assert _done_in_manifest(out) == _complete_on_disk(out) == {0, 1} | hung
    _wait(lambda: not any(_alive(k) for k in kids), None, "the workers are gone", timeout=30)
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--resume", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert f"({400 - 10 * (2 + workers)} of them in this session)" in result.output
    assert_same_tables(whole_hang_run, out)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
def test_workers_die_with_a_killed_parent_and_the_run_resumes(tmp_path, whole_hang_run):
    out, proc, hung = _start_hanging_run(tmp_path, 2)
    kids = _children(proc.pid)
    assert len(kids) >= 2 and all(_alive(k) for k in kids)
    try:
        proc.kill()  # kill -9: no handler runs in the parent
        proc.communicate(timeout=30)
        _wait(lambda: not any(_alive(k) for k in kids), None, "the orphaned workers are gone", timeout=30)
    finally:
        for k in kids:
            if _alive(k):
                os.kill(k, signal.SIGKILL)
    assert json.loads((out / "manifest.json").read_text())["state"] == "running"  # nobody could say otherwise
    assert _done_in_manifest(out) == {0, 1} and _complete_on_disk(out) == {0, 1} | hung
    # the resume finds the chunks finished on disk and plays only the rest
    result = CliRunner().invoke(app, ["simulate", "--out", str(out), "--resume", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert f"({400 - 10 * (2 + len(hung))} of them in this session)" in result.output
    assert_same_tables(whole_hang_run, out)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_run_played_by_other_code_is_not_resumed(tmp_path, game):
    """Each game's fingerprint covers its own rules and built-in strategies, with the model files they read (and not
    another game's), every file of it exists, and a run whose stored fingerprint differs is refused on resume, with
    what differs."""
    from palais_sim.tournament.fingerprint import code_fingerprint, sources

    the_game = get_game(game)
    package = Path(sys.modules[type(the_game).__module__].__file__).parent
    mine = {str(p) for p in sources(the_game)}
    assert all(Path(p).is_file() for p in mine), "a source of the fingerprint is missing (it would be skipped)"
    assert str(package / "rules.py") in mine
    assert any(f"/strategies/{package.name}/" in p for p in mine)
    for other in (name for name in GAMES if name != game):
        shared = {str(p) for p in sources(get_game(other))} & mine
        assert shared and all("/palais_sim/core/" in p or "/strategies/common/" in p for p in shared)
    strategies, players = (the_game.default_strategy, "random"), the_game.min_players
    s = small(
        game=the_game, strategies=strategies, players=players, games=2 * players, max_rounds=20, format="gauntlet"
    )
    out = tmp_path / "r"
    run(s, out, workers=1, chunk_size=players)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["code_fingerprint"] == code_fingerprint(the_game)
    manifest["code_fingerprint"] = "0" * 12
    manifest["state"] = "interrupted"
    (out / "manifest.json").write_text(json.dumps(manifest))
    unmark_chunk(out, len(chunk_states(out)) - 1)
    with pytest.raises(RunDirError, match="code_fingerprint"):
        run(s, out, workers=1, chunk_size=players, resume=True)
