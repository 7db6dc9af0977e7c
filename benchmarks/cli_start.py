"""How long `palais` takes to answer when it plays nothing: `palais --help` and `palais games`, each in a fresh
interpreter, CPU time (user + system) and wall time, the best of ``--repeat`` runs.

    nice python benchmarks/cli_start.py [--repeat 5]

The goal is under 0.5 s on an idle machine. The commands import Typer, the games and the engine only; the heavy
libraries (polars, numpy, scipy, matplotlib) load in the commands that use them, which
tests/test_cli_imports.py checks without timing anything.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = (("--help",), ("games",))


def palais() -> list[str]:
    """The `palais` beside this interpreter (the virtual environment's), or the module run by this interpreter."""
    script = Path(sys.executable).with_name("palais")
    return [str(script)] if script.exists() else [sys.executable, "-m", "palais_sim.cli"]


def timed(command: list[str]) -> tuple[float, float]:
    """(CPU seconds of the child, wall seconds) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=os.environ)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command; the best is printed")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    base = palais()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for arguments in COMMANDS:
        runs = [timed([*base, *arguments]) for _ in range(args.repeat)]
        cpu, wall = min(r[0] for r in runs), min(r[1] for r in runs)
        print(f"palais {' '.join(arguments):8}  {cpu:.2f} CPU-s  {wall:.2f} s wall  (best of {args.repeat})")


if __name__ == "__main__":
    main()
