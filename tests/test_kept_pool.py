"""A kept local pool (``pools.kept``): a study's arms and looks, a match's batches share one start of the workers,
and every run plays and records exactly as in a pool of its own; the pool stops with the block, a failed or
interrupted run drops it, and its workers never outlive the parent."""

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
from palais_sim.tournament import pools
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings

ROOT = Path(__file__).resolve().parents[1]
SORT = {"games": ["game"], "seats": ["game", "seat"], "recruits": ["game", "order"]}


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[pools.ProcessExecutor]:
    """Every process pool started (its workers spawned), in order."""
    made: list[pools.ProcessExecutor] = []

    class Counted(pools.ProcessExecutor):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(pools, "ProcessExecutor", Counted)
    return made


def small(seed: int, strategies: tuple[str, ...] = ("greedy", "random")) -> Settings:
    return Settings(games=24, players=2, strategies=strategies, seed=seed, max_rounds=6)


def tables(out: Path) -> dict[str, pl.DataFrame]:
    return {t: pl.read_parquet(out / t / "*.parquet").sort(SORT[t]) for t in SORT}


def assert_same(a: Path, b: Path) -> None:
    ta, tb = tables(a), tables(b)
    for t in SORT:
        assert ta[t].equals(tb[t]), t


def fails_to_start(*args: object) -> None:
    raise ValueError("no such component set here")


def test_runs_in_a_kept_pool_share_its_workers_and_play_the_same_games(tmp_path: Path, started) -> None:
    runs = [small(3), small(4, ("random", "greedy")), small(3, ("greedy", "greedy"))]
    for i, settings in enumerate(runs):
        run(settings, tmp_path / f"own-{i}", 2, progress=False)
    assert len(started) == 3  # without the block: a pool of its own per run
    assert not any(p.alive() for p in started)
    with pools.kept():
        for i, settings in enumerate(runs):
            run(settings, tmp_path / f"kept-{i}", 2, progress=False)
            assert pools._KEPT.pool is started[3] and started[3].alive()  # up between runs, idle
        pids = started[3].pids()
    assert len(started) == 4  # one start for the three runs
    assert not started[3].alive() and pools._KEPT.pool is None  # stopped with the block
    assert len(pids) == 2
    for i in range(len(runs)):
        assert_same(tmp_path / f"own-{i}", tmp_path / f"kept-{i}")


def test_another_size_a_nested_run_and_one_worker_do_not_take_the_kept_pool(tmp_path: Path, started) -> None:
    with pools.kept():
        run(small(1), tmp_path / "two", 2, progress=False)
        run(small(1), tmp_path / "one", 1, progress=False)  # in-process: no pool
        assert len(started) == 1 and started[0].alive()
        run(small(1), tmp_path / "three", 3, progress=False)
        assert len(started) == 2 and not started[0].alive() and pools._KEPT.pool is started[1]
        lease = pools.make_executor(3, _noop, ())  # the kept pool, initialised again
        nested = pools.make_executor(3, _noop, ())  # while the kept pool is leased: a pool of its own
        assert len(started) == 3 and pools._KEPT.pool is started[1]
        nested.close()
        lease.close()
    assert not any(p.alive() for p in started)
    assert_same(tmp_path / "two", tmp_path / "three")
    assert_same(tmp_path / "two", tmp_path / "one")


def _noop(*args: object) -> None:
    return None


def test_a_failed_start_of_a_run_drops_the_kept_pool(tmp_path: Path, started) -> None:
    with pools.kept():
        run(small(1), tmp_path / "a", 2, progress=False)
        first = started[0]
        with pytest.raises(ValueError, match="no such component set"):
            pools.make_executor(2, fails_to_start, ())
        assert pools._KEPT.pool is None and not first.alive()
        run(small(1), tmp_path / "b", 2, progress=False)  # the next run starts a new pool
        assert len(started) == 2
    assert_same(tmp_path / "a", tmp_path / "b")


def test_a_worker_lost_between_runs_gives_the_next_run_a_new_pool(tmp_path: Path, started) -> None:
    with pools.kept():
        run(small(1), tmp_path / "a", 2, progress=False)
        os.kill(started[0].pids()[0], signal.SIGKILL)  # killed while idle (out of memory, by hand)
        deadline = time.monotonic() + 30
        while started[0].alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        run(small(1), tmp_path / "b", 2, progress=False)
        assert len(started) == 2 and not any(started[0]._procs[i].is_alive() for i in range(2))
    assert_same(tmp_path / "a", tmp_path / "b")


def test_an_interrupted_run_stops_the_kept_pool(tmp_path: Path, started, monkeypatch) -> None:
    from palais_sim.tournament import runner
    from palais_sim.tournament.runner import RunStopped

    real = runner.Manifest.mark_done
    once: list[bool] = []

    def interrupted(self, *args, **kwargs):  # Ctrl-C after the run's first chunk
        real(self, *args, **kwargs)
        if not once:
            once.append(True)
            raise KeyboardInterrupt

    with pools.kept():
        run(small(1), tmp_path / "a", 2, progress=False)
        monkeypatch.setattr(runner.Manifest, "mark_done", interrupted)
        with pytest.raises(RunStopped):
            run(small(2), tmp_path / "b", 2, progress=False)
        assert pools._KEPT.pool is None and not started[0].alive()
        monkeypatch.setattr(runner.Manifest, "mark_done", real)
        run(small(2), tmp_path / "b", 2, resume=True, progress=False)
        assert len(started) == 2
    run(small(2), tmp_path / "own", 2, progress=False)
    assert_same(tmp_path / "b", tmp_path / "own")


def test_a_study_starts_one_pool_for_all_its_arms_and_looks(tmp_path: Path, started) -> None:
    args = ["study", "nobles", "--strategy", "greedy", "--nobles", "N17,N30,king_plus1", "--groups", "6",
            "--looks", "2", "--reprice", "none", "--workers", "2"]  # fmt: skip
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "kept")])
    assert res.exit_code == 0, res.output
    looks = sorted((tmp_path / "kept").rglob("look-*/manifest.json"))
    assert len(looks) >= 4  # three subjects, one or two looks each
    assert len(started) == 1 and not started[0].alive()

    from palais_sim.games.palais_royal.studies.nobles import NoblesPlan, run_study
    from palais_sim.study.common import StudySpec

    spec = StudySpec(strategies=("greedy",), groups=6, workers=2)
    plan = NoblesPlan(spec, subjects=("N17", "N30", "king_plus1"), reprice="none", looks=2)
    run_study(plan, tmp_path / "own")  # outside a block: a pool per arm-look
    assert len(started) == 1 + len(looks)
    kept_doc, own_doc = (json.loads((tmp_path / d / "study.json").read_text()) for d in ("kept", "own"))
    assert kept_doc["rows"] == own_doc["rows"]
    for manifest in looks:
        arm = manifest.parent.relative_to(tmp_path / "kept")
        assert_same(manifest.parent, tmp_path / "own" / arm)


KILLED = """
import os, sys, time
from pathlib import Path
from palais_sim.tournament import pools
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings
with pools.kept():
    run(Settings(games=8, players=2, strategies=("greedy", "random"), seed=1, max_rounds=4), Path(sys.argv[1]), 2,
        progress=False)
    print(" ".join(map(str, pools._KEPT.pool.pids())), flush=True)
    time.sleep(600)  # the pool idle between runs, when the parent is killed
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
def test_an_idle_kept_pool_dies_with_a_killed_parent(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path / "run")], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        pids = [int(x) for x in line.split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids), proc.stderr.read()  # type: ignore[union-attr]
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in pids)
    finally:
        if proc.poll() is None:
            proc.kill()
