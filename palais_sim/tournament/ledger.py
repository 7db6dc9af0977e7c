"""The run ledger, DIR/ledger.jsonl: one JSON line per finished chunk (``{"chunk": 7, "games": 500, "errors": 0,
"decisions": 60512}``), appended and fsynced as each chunk finishes, so a run's bookkeeping costs the same per
chunk at any size. A chunk is done when its last line says so; ``{"chunk": 7, "state": "pending"}`` undoes it (its
files were lost). A torn last line (a kill mid-write) is ignored: that chunk's files are found on disk at resume.
Part of the run directory's format, with :mod:`.records`: the analytics read it to know which chunks are done.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

LEDGER = "ledger.jsonl"
COUNTS = ("games", "errors", "decisions")


class LedgerError(ValueError):
    """A ledger line that is not an entry (anywhere but a torn last line)."""


def read_ledger(path: Path) -> dict[int, dict[str, int]]:
    """The done chunks and their counts; empty when there is no ledger yet."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:  # not readable, or not text at all
        raise LedgerError(f"{path} cannot be read ({exc})") from None
    done: dict[int, dict[str, int]] = {}
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
            chunk = int(entry["chunk"])
            counts = None if entry.get("state") == "pending" else {k: int(entry[k]) for k in COUNTS}
        except (ValueError, KeyError, TypeError):
            if number == len(lines):
                break  # torn by a kill mid-write
            raise LedgerError(f"{path}: line {number} is not a ledger entry: {line[:80]!r}") from None
        if counts is None:
            done.pop(chunk, None)
        else:
            done[chunk] = counts
    return done


def ledger_torn(path: Path) -> bool:
    """Whether the ledger's last line was cut short (it must be rewritten whole before anything is appended)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return False
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except FileNotFoundError:
        return False


def append_entry(path: Path, entry: dict) -> None:
    """One line at the end of the ledger, on disk before this returns."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, separators=(",", ":")) + "\n")
        f.flush()
        os.fsync(f.fileno())


def write_ledger(path: Path, done: dict[int, dict[str, int]]) -> None:
    """The ledger whole (a new run's first save; a run directory of the earlier format), atomically."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"chunk": c, **done[c]}, separators=(",", ":")) + "\n" for c in sorted(done))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def chunk_plan(total: int, size: int, done: dict[int, dict[str, int]]) -> list[dict]:
    """Every chunk of a run (chunk i holds games i * size, ...) with its state, and its counts when done."""
    return [
        {"chunk": i, "first": first, "count": min(size, total - first),
         **({"state": "done", **done[i]} if i in done else {"state": "pending"})}
        for i, first in enumerate(range(0, total, size))
    ]  # fmt: skip
