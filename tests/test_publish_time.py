"""The time a study records for the index: each arm's run summary names its workers' CPU seconds and the machine's
cores beside the wall time, and the study's ledger sums them per skill level, also for an arm played earlier."""

from __future__ import annotations

import os
from pathlib import Path

from palais_sim.study.common import Ledger, StudySpec, recorded_cpu
from palais_sim.tournament.schedule import Settings

SETTINGS = Settings(games=12, players=2, strategies=("greedy", "random"), format="fixed", seed=3, max_rounds=8)


def test_an_arms_cpu_and_cores_reach_the_studys_ledger(tmp_path: Path) -> None:
    ledger = Ledger()
    spec = StudySpec(strategies=("x",))
    ledger.play(spec, "x", SETTINGS, tmp_path / "arm")
    log = (tmp_path / "arm" / "run.log").read_text()
    assert "s in the workers) with 1 worker on" in log
    cpu, cores = recorded_cpu(tmp_path / "arm")
    # 12 short games: the compiled build plays them in well under 0.05 CPU-seconds, which the summary prints as 0.0
    assert cpu is not None and cpu >= 0 and cores == {os.cpu_count()}
    level = ledger.to_dict()["x"]
    assert level["cpu_seconds"] == round(cpu, 1) and level["cores"] == [os.cpu_count()]
    # read again (an arm a later round reuses): counted again from its run.log, as the wall time is
    again = Ledger()
    again.play(spec, "x", SETTINGS, tmp_path / "arm")
    again.play(spec, "x", SETTINGS, tmp_path / "arm")
    assert again.to_dict()["x"]["played_now"] == 0
    assert again.to_dict()["x"]["cpu_seconds"] == round(2 * cpu, 1)


def test_cpu_is_unknown_when_a_session_did_not_record_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    new = "Played 10 games ...: no game failed. Wall time 4.0 s (CPU 7.5 s in the workers) with 2 workers on 8 cores, "
    old = "Played 10 games ...: no game failed. Wall time 3.0 s with 2 workers, 3 games/s. Results in x"
    (run / "run.log").write_text(new + "\n" + new.replace("7.5", "1.5") + "\n")
    assert recorded_cpu(run) == (9.0, {8})
    (run / "run.log").write_text(new + "\n" + old + "\n")
    assert recorded_cpu(run)[0] is None  # one session of two: not the arm's CPU time
    assert recorded_cpu(tmp_path / "none") == (None, set())
    ledger = Ledger()
    ledger.cpu["x"] = None
    ledger.games["x"] = 10
    assert ledger.to_dict()["x"]["cpu_seconds"] is None
