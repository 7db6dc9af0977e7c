"""Helpers for the tests of run directories (any game): the chunks a run records, a chunk's ledger lines taken out
as if the parent had been killed before it wrote them, and a run interrupted at a given chunk."""

from __future__ import annotations

import json
from pathlib import Path


def chunk_states(out: Path) -> list[dict]:
    """Every chunk of the run in ``out`` with its state (and counts when done): manifest and ledger together."""
    from palais_sim.tournament.manifest import Manifest

    manifest = Manifest.load(out)
    assert manifest is not None, f"no run in {out}"
    return manifest.chunks()


def unmark_chunk(out: Path, chunk: int) -> None:
    """Take ``chunk``'s lines out of the run's ledger, as if the parent had been killed before it wrote them."""
    from palais_sim.tournament.ledger import LEDGER

    ledger = out / LEDGER
    kept = [line for line in ledger.read_text().splitlines() if json.loads(line)["chunk"] != chunk]
    ledger.write_text("".join(line + "\n" for line in kept))


def interrupt_at(monkeypatch, call: int) -> None:
    """Make the runner's ``call``-th chunk raise KeyboardInterrupt (as Ctrl-C would); ``monkeypatch.undo()`` ends it."""
    from palais_sim.tournament import worker

    real = worker.run_chunk
    calls = {"n": 0}

    def interrupted(task):
        calls["n"] += 1
        if calls["n"] == call:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr("palais_sim.tournament.runner.run_chunk", interrupted)
