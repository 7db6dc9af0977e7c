"""Ctrl-C at any moment ends `palais` with one line and status 130 (128+N), never a traceback; every playing command
says how to resume in one form, and its help promises --resume only where it takes it (issue 35)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from palais_sim.cli import app, errors
from palais_sim.tournament.runner import RunStopped
from tests.cli_tree import leaf_commands
from tests.run_dirs import interrupt_at

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).parent / "palais"  # the console script of this environment (palais_launch:main)


def _palais() -> list[str]:
    if SCRIPT.exists():
        return [str(SCRIPT)]
    return [sys.executable, "-c", "import sys, palais_launch; sys.argv[0] = 'palais'; palais_launch.main()"]


def _as_from_a_shell() -> None:
    """Ctrl-C at its default in the child, as a shell starts a command (a test runner may leave it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(out: Path, *extra: str) -> subprocess.Popen:
    args = ["simulate", "--out", str(out), "--games", "400", "--players", "2", "--chunk-size", "10", *extra]
    return subprocess.Popen(
        [*_palais(), *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_as_from_a_shell, start_new_session=True,
    )  # fmt: skip


def _finish(proc: subprocess.Popen) -> str:
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return err


@pytest.mark.parametrize("delay", [0.2, 0.5, 1.0])
def test_ctrl_c_soon_after_the_start_is_one_line_and_130(tmp_path: Path, delay: float) -> None:
    proc = _start(tmp_path / "run", "--workers", "1")
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    err = _finish(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "interrupted" in lines[0], err


def test_sigterm_while_starting_is_128_plus_n(tmp_path: Path) -> None:
    proc = _start(tmp_path / "run", "--workers", "1")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err


def test_a_terminal_ctrl_c_while_the_workers_start_is_one_line(tmp_path: Path) -> None:
    """A terminal sends Ctrl-C to the whole process group: the workers starting then must print nothing."""
    out = tmp_path / "run"
    proc = _start(out, "--workers", "2")
    deadline = time.monotonic() + 90
    while not (out / "manifest.json").exists():  # the run is set up: the workers are being spawned now
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be interrupted"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    err = _finish(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and ("resume with: palais simulate" in lines[0] or "start again with" in lines[0]), err


def test_the_resume_advice_is_the_command_line_that_resumes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    assert errors.resume_advice(["simulate", "--out", str(run_dir)]).startswith("nothing was played; start again")
    (run_dir / "manifest.json").write_text("{}")
    assert errors.resume_advice(["simulate", "-n", "8", "--out", str(run_dir)]) == (
        f"resume with: palais simulate -n 8 --out {run_dir} --resume"
    )
    assert errors.resume_advice(["simulate", f"--out={run_dir}", "--resume"]).endswith("--resume")
    assert "--resume --resume" not in errors.resume_advice(["simulate", f"--out={run_dir}", "--resume"])
    # a study stopped before any arm was kept has nothing to resume: it says to start again
    study = tmp_path / "s b"
    assert errors.resume_advice(["study", "nobles", "--out", str(study)]).startswith("nothing was kept yet; start")
    (study / "arm-1").mkdir(parents=True)
    (study / "arm-1" / "manifest.json").write_text("{}")
    assert errors.resume_advice(["study", "nobles", "--out", str(study)]) == (
        f"resume with: palais study nobles --out '{study}'"
    )
    assert errors.resume_advice(["ladder", "--games", "4"]).startswith("nothing was kept")
    assert errors.resume_advice(["match", "a", "b", "-o", "m"]) == "resume with: palais match a b -o m"
    assert errors.resume_advice(["report", "all", "x"]) == ""


def test_a_help_footer_promises_resume_only_where_the_command_takes_it() -> None:
    playing = 0
    for path, command in leaf_commands(typer.main.get_command(app)):
        epilog = command.epilog or ""
        takes = any("--resume" in p.opts for p in command.params)
        if "Exit status" in epilog:
            playing += 1
            assert "resume" in epilog, path
        assert ("--resume" in epilog) == takes, f"palais {' '.join(path)}: footer and options disagree"
    assert playing >= 8  # simulate, ladder, match, the four studies, balance nobles


def test_a_stopped_study_says_the_same_command_resumes_it(monkeypatch, tmp_path: Path) -> None:
    def stopped(*args, **kwargs):
        (out / "arm" / "manifest.json").parent.mkdir(parents=True)  # an arm was set up: it resumes
        (out / "arm" / "manifest.json").write_text("{}")
        raise RunStopped("interrupted: 1 of 4 chunks are safe in somewhere", 130, "finish with: palais simulate")

    monkeypatch.setattr("palais_sim.study.arms.run", stopped)
    out = tmp_path / "study"
    args = ["study", "seats", "--out", str(out), "--players", "2", "--groups", "4", "--strategy", "random"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130
    line = result.output.strip()
    assert "palais simulate" not in line and line.endswith(f"resume with: palais {' '.join(args)}"), line


def test_a_resumed_study_counts_only_the_games_it_played_now(monkeypatch, tmp_path: Path) -> None:
    out = tmp_path / "study"
    args = ["study", "seats", "--out", str(out), "--players", "2", "--groups", "40", "--strategy", "random"]
    interrupt_at(monkeypatch, 2)
    monkeypatch.setattr("palais_sim.tournament.runner.auto_chunk_size", lambda total, workers: 10)
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 130 and "resume with: palais study seats" in first.output, first.output
    monkeypatch.undo()
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    ledger = json.loads((out / "study.json").read_text())["games"]["random"]
    assert ledger["games"] == 40 and ledger["played_now"] == 30  # one chunk of 10 was played before the stop
