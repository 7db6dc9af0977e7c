"""The README's tour, timed: every command of it that states a time, run in order in a scratch directory, with its
wall time and the CPU time of everything it started (workers included), written to benchmarks/readme_times.json.

    nice python benchmarks/readme_times.py [--out benchmarks/readme_times.json] [--only TEXT]

`--only TEXT` measures the commands that contain TEXT, each after the earlier commands that write a file or
directory it reads (``palais balance ... --components my-set.toml`` after ``palais components show --out
my-set.toml``, a ``--resume`` after the run it resumes), which are run but not recorded.

Run it on an idle machine with the compiled engine (`make build` first): the README's times are that machine's, and
tests/test_readme_times.py fails when a stated time is not within 1.5x of the recorded wall time, a timed command
of the README has no recorded figure, or a study of the tour decided no row at its size (each study's verdict
line, ``verdicts: N of M rows decided``, is recorded). A time is stated as a comment at the start of a command's comment
(``# 30 s``, ``# 13 s: ...``) or in a comment line of its own before the command (``# the seat edge (65 s)``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
RECORD = Path(__file__).with_name("readme_times.json")
TOLERANCE = 1.5  # a stated time may be this many times the measured one, or this many times less
_FENCE = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
_TRAILING = re.compile(r"^\s*(\d+(?:\.\d+)?) ?(s|min)\b")  # "# 30 s", "# 13 s: ..."
_OWN_LINE = re.compile(r"\((\d+(?:\.\d+)?) ?(s|min)\b")  # "# the seat edge and the start gold (65 s)"


class TimedCommand(NamedTuple):
    command: str  # as the README writes it, continuation lines joined
    seconds: float  # the time the README states


def _seconds(number: str, unit: str) -> float:
    return float(number) * (60 if unit == "min" else 1)


def readme_times(text: str) -> list[TimedCommand]:
    """Every command of the README's shell blocks that states a time, in order."""
    found = []
    for block in _FENCE.findall(text):
        pending: float | None = None  # a time from a comment line of its own, for the next command
        for line in block.replace("\\\n", " ").splitlines():
            code, _, comment = line.partition("#")
            if not code.strip():
                own = _OWN_LINE.search(comment)
                pending = _seconds(*own.groups()) if own else pending
                continue
            trailing = _TRAILING.match(comment)
            seconds = _seconds(*trailing.groups()) if trailing else pending
            pending = None
            if seconds is not None:
                found.append(TimedCommand(" ".join(code.split()), seconds))
    return found


_VERDICTS = re.compile(r"verdicts: (\d+) of (\d+) rows decided")  # a study's summary line on the terminal
_WRITES = ("--out", "-o", "--log", "--positions")  # the options whose value a README command writes


def written(command: str) -> set[str]:
    """The paths a README command writes (its output options' values, without a trailing slash)."""
    tokens = shlex.split(command)
    return {value.rstrip("/") for option, value in zip(tokens, tokens[1:], strict=False) if option in _WRITES}


def reads(command: str, path: str) -> bool:
    """Whether a README command names ``path`` or a file under it (its own --out too: a resumed run reads it)."""
    return any(token.rstrip("/") == path or token.startswith(path + "/") for token in shlex.split(command))


def with_dependencies(chosen: list[TimedCommand], every: list[TimedCommand]) -> list[tuple[TimedCommand, bool]]:
    """The chosen commands in the README's order, each after the earlier commands that write a path it reads (and
    what those read in turn): ``(command, chosen)`` pairs, a dependency's ``chosen`` False."""
    needed: set[int] = set()

    def need(index: int) -> None:
        for earlier in range(index):
            if earlier not in needed and any(
                reads(every[index].command, path) for path in written(every[earlier].command)
            ):
                needed.add(earlier)
                need(earlier)

    picked = {k for k, timed in enumerate(every) if timed in chosen}
    for index in sorted(picked):
        need(index)
    return [(every[k], k in picked) for k in sorted(needed | picked)]


def run(command: str, cwd: Path) -> dict:
    """Run one README command with `bash`, ``palais`` being the one beside this interpreter."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["PYTHONPATH"] = str(REPO)  # examples.my_strategy, as from the repository's top directory
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    figures = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_before": round(load, 2), "rc": done.returncode,
               "measured": _now()}  # fmt: skip
    verdicts = _VERDICTS.findall(done.stdout)
    if verdicts:  # a study's verdict line (a balance search's two): what the tour's size decides
        figures["decided_rows"] = sum(int(decided) for decided, _ in verdicts)
        figures["rows"] = sum(int(rows) for _, rows in verdicts)
    return figures


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RECORD, help="where the figures go (JSON)")
    parser.add_argument("--only", default="", help="run only the commands that contain this text (and record them)")
    args = parser.parse_args()
    every = readme_times(README.read_text(encoding="utf-8"))
    commands = with_dependencies([c for c in every if args.only in c.command], every)
    if not any(chosen for _, chosen in commands):
        sys.exit(f"error: no timed command of the README contains {args.only!r}")
    version = subprocess.run(
        [sys.executable, "-m", "palais_sim.cli", "version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    record = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {"commands": {}}
    current = {timed.command for timed in every}  # a command the README no longer has loses its figure
    record["commands"] = {command: figures for command, figures in record["commands"].items() if command in current}
    with tempfile.TemporaryDirectory(prefix="palais-readme-") as scratch:
        for timed, chosen in commands:
            figures = run(timed.command, Path(scratch))
            print(f"{figures['wall_s']:7.1f} s wall {figures['cpu_s']:7.1f} CPU-s (README {timed.seconds:g} s, "
                  f"load {figures['load_before']}, rc {figures['rc']})  {timed.command}"
                  + ("" if chosen else "  [needed by a later one: not recorded]"), flush=True)  # fmt: skip
            if chosen:
                record["commands"][timed.command] = {"readme_s": timed.seconds, **figures}
    order = {timed.command: k for k, timed in enumerate(every)}  # the README's order, whatever was measured last
    record["commands"] = dict(sorted(record["commands"].items(), key=lambda item: order[item[0]]))
    record["machine"] = {"cores": os.cpu_count(), "engine": version, "python": sys.version.split()[0]}
    record["measured"] = _now()  # the last run; a command measured alone has its own time
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
