"""The run's bookkeeping per chunk, early and late in a large run: the ledger's cost must be flat.

    python benchmarks/ledger_cost.py [CHUNKS]

Marks CHUNKS chunks done one by one (as the runner does after each chunk: one fsynced ledger line) and prints the
mean CPU and wall time per chunk over the first and the last 1,000, and the bytes written: the ledger grows by one
line a chunk and the manifest is not rewritten.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from palais_sim.tournament.ledger import LEDGER
from palais_sim.tournament.manifest import MANIFEST, Manifest
from palais_sim.tournament.schedule import Settings


def main(chunks: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        manifest = Manifest.new(Settings(games=chunks * 500), chunks * 500, 2, 500, "bench", "0" * 12, 3)
        manifest.save(out)
        window = min(1000, chunks // 2)
        timings = []
        for chunk in range(chunks):
            cpu, wall = time.process_time(), time.perf_counter()
            manifest.mark_done(chunk, 500, 0, 60_000)
            timings.append((time.process_time() - cpu, time.perf_counter() - wall))
        for name, part in (("first", timings[:window]), ("last", timings[-window:])):
            cpu = sum(t[0] for t in part) / len(part) * 1e6
            wall = sum(t[1] for t in part) / len(part) * 1e6
            print(f"{name} {window:,} chunks: {cpu:.0f} us CPU, {wall:.0f} us wall per chunk")
        print(f"{chunks:,} chunks: ledger {(out / LEDGER).stat().st_size:,} bytes, manifest "
              f"{(out / MANIFEST).stat().st_size:,} bytes (written once)")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
