"""A pool's workers run the engine their parent runs: a worker that would run the pure Python engine for a compiled
parent (a compiled module's source edited since ``make build``) stops the run with one clear line and exit status 1,
keeping what was written, and the same command resumes; a pure parent imposes nothing (``pools.EngineMismatch``).

The tests run on the pure engine, so the mismatch is planted: the parent is made to believe it runs compiled
(``pools.parent_engine_compiled``), and ``PALAIS_PURE=1``, which the spawned workers inherit, keeps them pure.
"""

from __future__ import annotations

import json
import re

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.tournament import exits, pools
from palais_sim.tournament.runner import RunStopped, run
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.worker import ChunkTask, init_worker, run_chunk


@pytest.fixture
def compiled_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process acts as a compiled parent; the workers it spawns run pure (``PALAIS_PURE is set``)."""
    monkeypatch.setenv("PALAIS_PURE", "1")
    monkeypatch.setattr(pools, "parent_engine_compiled", lambda: True)


# The worker's reason (``build_info``): PALAIS_PURE where a compiled build lies in the checkout, else none is there.
WORKER_PURE = r"\((PALAIS_PURE is set|not compiled \(pure Python install\)); rebuild with `make build`\)"


def simulate(out, *extra: str):
    args = ["simulate", "--out", str(out), "--games", "8", "--chunk-size", "2", "--workers", "2"]
    args += ["--strategies", "greedy,random", *extra]
    return CliRunner().invoke(app, args)


def test_a_pure_worker_for_a_compiled_parent_stops_the_run_with_one_line(tmp_path, compiled_parent):
    out = tmp_path / "run"
    result = simulate(out)
    assert result.exit_code == exits.STOPPED, result.output
    lines = result.output.strip().splitlines()
    assert "Traceback" not in result.output
    error = [line for line in lines if line.startswith("error:")]
    assert len(error) == 1, result.output
    assert re.search("a worker would run the pure Python engine while this run is compiled " + WORKER_PURE, error[0])
    assert "0 of 4 chunks are safe in" in error[0]
    assert error[0].endswith("--resume")  # how to finish the run once rebuilt
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "interrupted"  # the run is kept for --resume, not failed


def test_the_stopped_run_resumes_once_the_engines_match(tmp_path, monkeypatch, compiled_parent):
    out = tmp_path / "run"
    assert simulate(out).exit_code == exits.STOPPED
    monkeypatch.setattr(pools, "parent_engine_compiled", lambda: False)  # rebuilt: parent and workers agree
    result = simulate(out, "--resume")
    assert result.exit_code == exits.OK, result.output
    assert "8 games" in result.output


def test_a_pure_parent_imposes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PALAIS_PURE", "1")
    assert not pools.parent_engine_compiled()  # the tests' own parent: pure
    result = simulate(tmp_path / "run")
    assert result.exit_code == exits.OK, result.output
    assert "error:" not in result.output


def test_the_error_reaches_the_parent_after_the_worker_has_ended(compiled_parent):
    """The worker sends its error and ends: a task sent to its closed pipe raises that error, not a bare lost
    worker."""
    settings = Settings(games=2, strategies=("greedy", "random"))
    executor = pools.ProcessExecutor(1, init_worker, (settings, None))
    try:
        executor._procs[0].join(timeout=60)
        assert executor._procs[0].exitcode == 0  # it ended by itself, after the check
        with pytest.raises(pools.EngineMismatch, match=WORKER_PURE):
            list(executor.imap_unordered(run_chunk, [ChunkTask(0, 0, 1, None)]))
    finally:
        executor.terminate()


def test_the_check_compares_the_engines(monkeypatch):
    monkeypatch.setattr(pools, "build_info", lambda: {"compiled": False, "reason": "source changed: x.py"})
    assert pools.engine_mismatch(False) is None  # a pure parent: any worker will do
    why = pools.engine_mismatch(True)
    assert why is not None and "compiled (source changed: x.py; rebuild" in why
    monkeypatch.setattr(pools, "build_info", lambda: {"compiled": True, "reason": "compiled with mypyc"})
    assert pools.engine_mismatch(True) is None  # both compiled: as before


def test_a_compiled_parent_that_asks_for_pure_workers_imposes_nothing(monkeypatch):
    """``palais bench --compare-pure`` starts pure workers from a compiled parent on purpose (``PALAIS_PURE``)."""
    monkeypatch.setattr(pools, "build_info", lambda: {"compiled": True, "reason": "compiled with mypyc"})
    monkeypatch.delenv("PALAIS_PURE", raising=False)
    assert pools.parent_engine_compiled()
    monkeypatch.setenv("PALAIS_PURE", "1")
    assert not pools.parent_engine_compiled()


def test_a_kept_pool_restarted_mid_study_stops_and_keeps_the_finished_runs(tmp_path, monkeypatch):
    """A study's first arm runs in the kept pool; the pool is lost and restarted after the checkout changed: the
    new workers would run pure, the next arm stops, and the first arm's tables stay as written."""
    monkeypatch.setenv("PALAIS_PURE", "1")
    first, second = tmp_path / "arm1", tmp_path / "arm2"
    settings = Settings(games=4, strategies=("greedy", "random"), max_rounds=4)
    with pools.kept():
        run(settings, first, 2, chunk_size=2, progress=False)
        written = {p.relative_to(first): p.read_bytes() for p in sorted(first.rglob("*.parquet"))}
        assert written
        pools._KEPT.drop()  # its workers lost: the next run starts new ones
        monkeypatch.setattr(pools, "parent_engine_compiled", lambda: True)
        with pytest.raises(RunStopped) as stop:
            run(settings, second, 2, chunk_size=2, progress=False)
    assert stop.value.code == exits.STOPPED
    assert "would run the pure Python engine" in stop.value.stopped
    assert {p.relative_to(first): p.read_bytes() for p in sorted(first.rglob("*.parquet"))} == written
    assert pl.read_parquet(sorted((first / "games").glob("*.parquet"))).height == 4
    assert json.loads((second / "manifest.json").read_text())["state"] == "interrupted"
