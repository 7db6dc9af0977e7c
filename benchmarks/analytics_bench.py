"""Benchmark: `palais report all` over a synthetic run of about 10 million seat rows (not a timed test).

    .venv/bin/python benchmarks/analytics_bench.py [--rows 10000000] [--dir /tmp/palais-bench] [--format html]

Generates the run once (kept in --dir for reruns; it is a tmp directory, never committed), then runs the report
command in a child process, on the code of the checkout this file is in (PYTHONPATH, not the environment's editable
install), and prints its wall time, its CPU time and peak resident memory (``ru_maxrss`` of the child), and the load
average before it started: on a machine whose cores are busy with other work the wall time grows with the load, the
CPU time much less. The target of issue 14: under 20 s and within 2 GB.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from palais_sim.games.palais_royal.analysis.synthetic import SynthSpec, synthetic_run


def generate(path: Path, rows: int) -> None:
    # groups of 3 and 4 players alternate by chunk: 9 and 16 seat rows per group
    groups = int(rows / 12.5)
    spec = SynthSpec(
        groups=groups, players=(3, 4), strategies=("greedy", "random", "heuristic", "lookahead"),
        skill={"greedy": 2.0, "lookahead": 3.0}, seat_bonus={1: 1.0}, noble_bonus={"N41": 10.0},
        chunk_groups=20_000, seed=7,
    )  # fmt: skip
    start = time.perf_counter()
    synthetic_run(path, spec)
    print(f"generated {path} in {time.perf_counter() - start:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/palais-bench/run"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/palais-bench/report"))
    parser.add_argument("--format", default="html", choices=("md", "html", "json"))
    parser.add_argument("--which", default="all")
    args = parser.parse_args()
    if not (args.dir / "manifest.json").exists():
        generate(args.dir, args.rows)
    import polars as pl

    seats = pl.scan_parquet(args.dir / "seats" / "*.parquet").select(pl.len()).collect().item()
    recruits = pl.scan_parquet(args.dir / "recruits" / "*.parquet").select(pl.len()).collect().item()
    print(f"run: {seats:,} seat rows, {recruits:,} recruit rows", flush=True)
    command = [str(Path(sys.executable).parent / "palais"), "report", args.which, str(args.dir), "--out", str(args.out),
               "--format", args.format]  # fmt: skip
    # the code of the checkout this file is in, not whichever the environment's editable install points at
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    load = os.getloadavg()[0]
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_gb = usage.ru_maxrss / 1024**2
    cpu = usage.ru_utime + usage.ru_stime
    verdict = "within" if wall < 20 and peak_gb < 2 else "OUTSIDE"
    print(
        f"report {args.which} --format {args.format}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak_gb:.2f} GB "
        f"(load average before: {load:.1f} on {os.cpu_count()} cores); {verdict} the target of 20 s and 2 GB"
    )


if __name__ == "__main__":
    main()
