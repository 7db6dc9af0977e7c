"""A `palais` command line whose chunks hang after their files are written, for the interrupt and kill tests.

``python -m tests.runner_hooks simulate ...`` runs the real CLI with the runner's chunk function replaced by
:func:`run_chunk_then_hang`: chunk numbers from ``PALAIS_TEST_HANG_FROM`` on play and write their files as usual,
then never return; with ``PALAIS_TEST_CHUNK_DELAY`` every chunk starts that many seconds late. That is the race of a
real interruption made certain: a chunk complete on disk whose report the parent has not received. The workers import
this module by name (it is on the path they inherit), so the hang happens inside the real worker processes.
"""

from __future__ import annotations

import os
import time

from palais_sim.tournament import runner, worker


def run_chunk_then_hang(task: worker.ChunkTask) -> worker.ChunkReport:
    # PALAIS_TEST_CHUNK_DELAY: seconds before each chunk, so that a signal surely lands while the run is going on
    time.sleep(float(os.environ.get("PALAIS_TEST_CHUNK_DELAY", "0")))
    report = worker.run_chunk(task)
    if task.chunk >= int(os.environ.get("PALAIS_TEST_HANG_FROM", "1000000000")):
        while True:  # files written and renamed; the report never leaves
            time.sleep(0.1)
    return report


def main() -> None:
    from palais_sim.cli import app
    from tests.runner_hooks import run_chunk_then_hang as by_name  # pickled as tests.runner_hooks, not __main__

    runner.run_chunk = by_name

    app(prog_name="palais")


if __name__ == "__main__":
    main()
