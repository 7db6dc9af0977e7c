"""Pool workers' memory over a long run: each worker's RSS at given chunks must stay flat (within 10%).

    python benchmarks/worker_rss.py [--chunks 20000] [--chunk-size 100] [--workers 2] [--at 1000,20000]

Plays ``--chunks`` chunks of ``--chunk-size`` two-player ``greedy`` mirror games (the ten-million-game note's
workload) through the runner's local process pool and the worker's own code (``run_chunk``: every game played and its
chunk's Parquet files written, then deleted here so the disk does not fill), and prints every worker's resident set
size (VmRSS from /proc, Linux) when the parent has received chunk 1,000 and chunk 20,000 (``--at``), then the growth
from the first mark to the last. The workers are real pool workers (spawned, their log records through their pipes),
so the figure is the one a ``palais simulate`` worker shows. Run it with ``nice`` on a shared machine; it takes about
as long as the games (2 million by default: some 40 minutes of 2 cores, compiled).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from palais_sim.tournament import records
from palais_sim.tournament.pools import ProcessExecutor
from palais_sim.tournament.runner import validate
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.worker import ChunkTask, chunk_name, init_worker, run_chunk


def rss_mb(pid: int) -> float:
    """A process's resident set size in MB (VmRSS)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--chunk-size", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--at", default="1000,20000", help="the chunks (received by the parent) to print RSS at")
    parser.add_argument("--strategies", default="greedy,greedy")
    args = parser.parse_args()
    marks = sorted({int(x) for x in args.at.split(",")} | {args.chunks})
    settings = Settings(
        games=args.chunks * args.chunk_size, players=2, strategies=tuple(args.strategies.split(",")), seed=1
    )
    context = validate(settings).context
    tables = list(records.columns(settings.game))
    out = Path(tempfile.mkdtemp(prefix="worker-rss-"))
    for table in tables:
        (out / table).mkdir()
    executor = ProcessExecutor(args.workers, init_worker, (settings, context))
    tasks = (ChunkTask(c, c * args.chunk_size, args.chunk_size, str(out)) for c in range(args.chunks))
    seen: dict[int, list[float]] = {}
    start = time.perf_counter()
    try:
        for received, report in enumerate(executor.imap_unordered(run_chunk, tasks), 1):
            for table in tables:
                (out / table / chunk_name(report.chunk)).unlink(missing_ok=True)
            if received in marks:
                seen[received] = [rss_mb(pid) for pid in executor.pids()]
                shown = ", ".join(f"{mb:.1f}" for mb in seen[received])
                games = received * args.chunk_size
                elapsed = time.perf_counter() - start
                print(f"chunk {received:,} ({games:,} games, {elapsed:.0f} s): worker RSS {shown} MB", flush=True)
        executor.close()
    finally:
        executor.terminate()
        shutil.rmtree(out, ignore_errors=True)
    first, last = min(seen), max(seen)
    for i, (a, b) in enumerate(zip(seen[first], seen[last], strict=True), 1):
        per_chunk = (b - a) * 1024 / (last - first) * args.workers
        print(
            f"worker {i}: {a:.1f} MB at chunk {first:,}, {b:.1f} MB at chunk {last:,}: {100 * (b / a - 1):+.1f}% "
            f"({per_chunk:+.2f} KB per chunk it played)"
        )


if __name__ == "__main__":
    main()
