"""The README's times hold: every command of its tour that states a time has a figure in benchmarks/readme_times.json
(measured by benchmarks/readme_times.py on the developers' idle machine), and the stated time is within 1.5x of it.
A benchmark read by a test, not a timed test: the suite compares two files and plays nothing."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCHMARK = runpy.run_path(str(REPO / "benchmarks" / "readme_times.py"))
RECORD: Path = BENCHMARK["RECORD"]
TOLERANCE: float = BENCHMARK["TOLERANCE"]
STATED = BENCHMARK["readme_times"]((REPO / "README.md").read_text(encoding="utf-8"))
STUDIES = [timed for timed in STATED if timed.command.startswith(("palais study ", "palais balance "))]
MEASURE = "nice .venv/bin/python benchmarks/readme_times.py"


SAMPLE = """
```bash
palais ladder        # 13 s: the built-ins
palais simulate --out runs/w \\
    --games 20000    # 1.5 min
# the seat edge (65 s)
palais study seats --out s
palais games         # lists them
```
"""


def test_the_readme_states_a_time_for_each_command_of_its_tour() -> None:
    """The reader of the time format: trailing (``# 13 s``, continuation lines joined, minutes) and on a line of its
    own (``# the seat edge (65 s)``); a command with no time is not timed. The README itself times its whole tour."""
    found = {timed.command: timed.seconds for timed in BENCHMARK["readme_times"](SAMPLE)}
    assert found == {
        "palais ladder": 13,
        "palais simulate --out runs/w --games 20000": 90,
        "palais study seats --out s": 65,
    }
    assert len(STATED) >= 15 and any(timed.command.startswith("palais balance nobles") for timed in STATED)
    assert len(STUDIES) == 6  # seats, nobles twice, balance, layouts, persons


def test_only_runs_first_the_commands_that_make_what_it_reads() -> None:
    """`readme_times.py --only "balance nobles"` ran the balance line alone, and it failed: my-set.toml is made by
    `palais components show`, an earlier line. A selected command comes after the earlier ones that write a path it
    reads (run, not recorded), a resumed run after the run it resumes; an unrelated command alone."""
    every = BENCHMARK["readme_times"](SAMPLE_CHAIN)
    plan = BENCHMARK["with_dependencies"]

    def only(text: str) -> list[tuple[str, bool]]:
        return [(timed.command, chosen) for timed, chosen in plan([t for t in every if text in t.command], every)]

    assert only("balance") == [("palais components show --out my-set.toml", False),
                               ("palais balance nobles --out b --components my-set.toml", True)]  # fmt: skip
    assert only("score") == [("palais play --log g.jsonl --positions positions/", False),
                             ("palais score positions/turn-0020.json", True)]  # fmt: skip
    assert only("--games 24000") == [("palais simulate --out runs/w --games 100", False),
                                     ("palais simulate --out runs/w --resume", False),
                                     ("palais simulate --out runs/w --resume --games 24000", True)]  # fmt: skip
    assert only("ladder") == [("palais ladder", True)]
    # the README itself: its balance line reads the component set its components line writes
    readme = [(t.command.split(" --")[0], chosen) for t, chosen in plan([t for t in STATED if "balance" in t.command],
                                                                          STATED)]  # fmt: skip
    assert readme == [("palais components show", False), ("palais balance nobles", True)]


SAMPLE_CHAIN = """
```bash
palais play --log g.jsonl --positions positions/   # 1 s
palais score positions/turn-0020.json              # 1 s
palais simulate --out runs/w --games 100           # 1 s
palais simulate --out runs/w --resume              # 1 s
palais ladder                                      # 1 s
palais simulate --out runs/w --resume --games 24000  # 1 s
palais components show --out my-set.toml           # 1 s
palais balance nobles --out b --components my-set.toml  # 1 s
```
"""


def test_every_readme_time_has_a_recorded_measurement() -> None:
    assert RECORD.exists(), f"no {RECORD.relative_to(REPO)}: measure on an idle machine with `{MEASURE}`"
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))["commands"]
    missing = [timed.command for timed in STATED if timed.command not in recorded]
    assert missing == [], f"README commands without a measurement (`{MEASURE} --only TEXT`): {missing}"


@pytest.mark.parametrize("timed", STATED, ids=lambda timed: timed.command[:60])
def test_each_readme_time_is_within_the_tolerance_of_its_measurement(timed) -> None:  # noqa: ANN001
    if not RECORD.exists():
        pytest.skip("no measurement recorded (test_every_readme_time_has_a_recorded_measurement fails)")
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))["commands"]
    figures = recorded.get(timed.command)
    assert figures is not None, f"not measured: `{MEASURE}`"
    assert figures["rc"] == 0, f"the command failed when measured (rc {figures['rc']})"
    measured = max(figures["wall_s"], 1.0)  # a second is the README's smallest unit
    assert measured / TOLERANCE <= timed.seconds <= measured * TOLERANCE, (
        f"README says {timed.seconds:g} s, measured {figures['wall_s']:g} s wall ({figures['cpu_s']:g} CPU-s, "
        f"load {figures['load_before']}) on "
        f"{figures.get('measured') or json.loads(RECORD.read_text(encoding='utf-8')).get('measured')}"
    )


@pytest.mark.parametrize("timed", STUDIES, ids=lambda timed: timed.command[:60])
def test_each_study_of_the_tour_decides_a_row_at_its_size(timed) -> None:  # noqa: ANN001
    """The tour's studies decided nothing at their sizes ("0 of 6 rows decided"): each is sized to show a verdict
    within its time, as its terminal said when measured (the recorded count of its "verdicts: N of M" lines)."""
    figures = json.loads(RECORD.read_text(encoding="utf-8"))["commands"].get(timed.command)
    assert figures is not None, f"not measured: `{MEASURE}`"
    assert figures.get("rows"), f"no verdict line recorded: measure it again (`{MEASURE} --only TEXT`)"
    assert figures["decided_rows"] >= 1, f"0 of {figures['rows']} rows decided at the tour's size"
