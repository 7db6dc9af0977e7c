"""The run manifest (DIR/manifest.json: settings, versions, the chunk plan, state; written atomically) and the
run ledger (DIR/ledger.jsonl: one JSON line per finished chunk, appended and fsynced).

The manifest is written when a session starts and when the run's state changes, never per chunk: a run's
bookkeeping costs the same per chunk at any size (the ledger's one line), where a manifest listing every chunk,
rewritten after each, grew with the run (28 MB rewritten 200,000 times at 100 million games). The chunk plan is
derived (chunk i holds games i * chunk_size ...), the chunks' states are the ledger's (:mod:`.ledger`). A run
directory of the earlier format (the chunk list inside manifest.json) is read as it is and gets its ledger when it
is saved or a chunk is added.

A run's identity is what decides its tables: settings, chunk size, engine version, component-set hash and schema
version. ``--resume`` continues only a run with the same identity; a different run in the directory is refused. One
difference is not a different run: more games. Every game depends only on the settings and its index, so a run of N
games is the first N games of the same run at M > N, and ``--resume`` with a larger game count extends it in place
(:meth:`Manifest.extend`): its finished chunks are kept, a short last chunk is played again at its full size.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from palais_sim.tournament.ledger import (
    COUNTS,
    LEDGER,
    append_entry,
    chunk_plan,
    ledger_torn,
    read_ledger,
    write_ledger,
)
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.shards import Shard, normalised_settings, plan_range, schedule_hash

MANIFEST = "manifest.json"
KIND = "palais-sim run"


class RunDirError(ValueError):
    """The output directory cannot take this run (holds another run, nothing to resume, ...)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Manifest:
    data: dict
    done: dict[int, dict[str, int]] = field(default_factory=dict)  # chunk -> its games, errors, decisions
    folder: Path | None = None  # the run directory, once saved or loaded: where the ledger is appended
    _sums: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    _ledger_ready: bool = False  # the ledger file holds every done chunk (else it is written whole first)
    # what preparing this session did to the run (extended it, found or lost chunks), as (logging level, message):
    # logged once the session's run.log is open (``runner.prepare`` runs before it is)
    session_notes: list[tuple[int, str]] = field(default_factory=list)

    @classmethod
    def new(
        cls, settings: Settings, total: int, group_size: int, chunk_size: int, engine: str, components_hash: str,
        schema_version: int, code: str = "", shard: Shard | None = None,
    ) -> Manifest:  # fmt: skip
        """A new run's manifest; with ``shard``, of that part of the schedule (``palais simulate --shard``)."""
        manifest = cls(
            {
                "kind": KIND,
                "schema_version": schema_version,
                "engine_version": engine,
                "components_hash": components_hash,
                "code_fingerprint": code,
                "root_seed": settings.seed,
                "settings": settings.to_dict(),
                "total_games": total,
                "group_size": group_size,
                "chunk_size": chunk_size,
                "chunk_count": -(-total // chunk_size),
                "state": "running",
                "created": now(),
                "updated": now(),
            }
        )
        manifest.data["schedule_hash"] = schedule_hash(manifest.data)
        if shard is not None:
            count = manifest.data["chunk_count"]
            shard.check(count, chunk_size)
            manifest.data["shard"] = shard.to_dict(count, chunk_size, total)
        return manifest

    @classmethod
    def load(cls, out: Path) -> Manifest | None:
        path = out / MANIFEST
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8 text at all
            raise RunDirError(f"{path} cannot be read ({exc}); not a palais-sim run directory?") from None
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise RunDirError(f"{path} is not a palais-sim run manifest")
        return cls.from_data(data, out)

    @classmethod
    def from_data(cls, data: dict, out: Path) -> Manifest:
        """The manifest of the run in ``out`` from its manifest.json's contents, with its ledger read."""
        manifest = cls(data, folder=out)
        listed = data.pop("chunks", None)  # the earlier format: every chunk in the manifest
        if listed is not None:
            data.setdefault("chunk_count", len(listed))
            for entry in listed:
                if entry.get("state") == "done":
                    manifest._set(entry["chunk"], {k: int(entry[k]) for k in COUNTS})
        else:
            manifest._read_ledger(out / LEDGER)
        return manifest

    def _read_ledger(self, path: Path) -> None:
        try:
            done = read_ledger(path)
        except ValueError as exc:
            raise RunDirError(str(exc)) from None
        for chunk, counts in done.items():
            self._set(chunk, counts)
        self._ledger_ready = not ledger_torn(path)  # a torn last line: the next write rewrites the ledger whole

    def _set(self, chunk: int, counts: dict[str, int]) -> None:
        self._unset(chunk)
        self.done[chunk] = counts
        for k in COUNTS:
            self._sums[k] += counts[k]

    def _unset(self, chunk: int) -> None:
        old = self.done.pop(chunk, None)
        if old is not None:
            for k in COUNTS:
                self._sums[k] -= old[k]

    def _append(self, entry: dict) -> None:
        """One line at the end of the ledger, on disk before this returns (the run's only per-chunk write)."""
        if self.folder is None:
            return  # not saved yet: the first save writes the ledger whole
        if not self._ledger_ready:
            self._write_ledger()
            return
        append_entry(self.folder / LEDGER, entry)

    def _write_ledger(self) -> None:
        """The ledger whole, from the done chunks (a new run's first save; a run of the earlier format)."""
        assert self.folder is not None
        write_ledger(self.folder / LEDGER, self.done)
        self._ledger_ready = True

    def identity(self) -> dict:
        d = self.data
        keys = ("schema_version", "engine_version", "code_fingerprint", "components_hash", "settings", "chunk_size")
        shard = Shard.of(d)
        return {**{k: d.get(k) for k in keys}, "shard": None if shard is None else str(shard)}

    def differences(self, other: Manifest) -> list[str]:
        """What differs between two runs' identities, as ``name: this vs other`` strings."""
        mine, theirs = self.identity(), other.identity()
        a_set, b_set = normalised_settings(mine["settings"]), normalised_settings(theirs["settings"] or {})
        out = [f"{k}: {a_set.get(k)!r} vs {b_set.get(k)!r}" for k in sorted(set(a_set) | set(b_set))
               if a_set.get(k) != b_set.get(k)]  # fmt: skip
        if out:  # derived fields (an automatic chunk size) would only repeat the settings' difference
            return out
        return [f"{k}: {mine[k]!r} vs {theirs[k]!r}" for k in mine if k != "settings" and mine[k] != theirs[k]]

    def grows(self, stored: Manifest) -> bool:
        """Whether this (new) run is ``stored`` with more games and nothing else changed: the same identity but for
        the game count, larger here, and neither a part of a schedule (a part's chunks depend on the whole's size)."""
        if self.shard is not None or stored.shard is not None:
            return False
        if int(self.data["total_games"]) <= int(stored.data.get("total_games") or 0):
            return False
        mine, theirs = self.identity(), stored.identity()
        mine["settings"] = {**normalised_settings(mine["settings"]), "games": None}
        theirs["settings"] = {**normalised_settings(theirs["settings"] or {}), "games": None}
        return mine == theirs

    def extend(self, grown: Manifest) -> int | None:
        """Make this stored run the longer run ``grown`` (see :meth:`grows`): its settings, games and chunk plan,
        the finished chunks kept, the extension recorded under ``extended``. Returns the number of a finished last
        chunk that was short (it holds fewer games than the same chunk of the longer plan): it is marked pending
        here, and its files must be removed by the caller before it is played again; None when there is none."""
        old_total, size = int(self.data["total_games"]), int(self.data["chunk_size"])
        total = int(grown.data["total_games"])
        short = old_total // size if old_total % size else None
        self.data["settings"] = grown.data["settings"]
        self.data["total_games"] = total
        self.data["chunk_count"] = -(-total // size)
        self.data["schedule_hash"] = schedule_hash(self.data)
        self.data.setdefault("extended", []).append({"from_games": old_total, "to_games": total, "at": now()})
        self.data["state"] = "running"
        note = f"extended from {old_total} to {total} games"
        if short is None or short not in self.done:
            self.session_notes.append((logging.INFO, note))
            return None
        self.mark_pending(short)
        self.session_notes.append(
            (logging.INFO, f"{note} (its short last chunk {short} is played again at its full size)")
        )
        return short

    @property
    def settings(self) -> Settings:
        """The run's settings (its game looked up once, here; a manifest of the earlier format mapped)."""
        return Settings.from_dict(self.data["settings"])

    @property
    def shard(self) -> Shard | None:
        """The part of the schedule this run plays (None: all of it)."""
        return Shard.of(self.data)

    @property
    def chunk_count(self) -> int:
        """The chunks this run plays (a part's only)."""
        return int(self.data["chunk_count"]) if self.shard is None else int(self.data["shard"]["chunks"])

    @property
    def planned_games(self) -> int:
        """The games this run plays (a part's only; ``total_games`` is the whole schedule's)."""
        return int(self.data["total_games"]) if self.shard is None else int(self.data["shard"]["games"])

    def chunks(self) -> list[dict]:
        """The chunk plan with each chunk's state (and counts when done): chunk i holds games i * chunk_size, ...
        (a part: its block of the whole plan, numbered as in the whole)."""
        plan = chunk_plan(int(self.data["total_games"]), int(self.data["chunk_size"]), self.done)
        if self.shard is None:
            return plan
        block = plan_range(self.data)
        return plan[block.start : block.stop]

    def pending(self) -> list[dict]:
        return [c for c in self.chunks() if c["state"] != "done"]

    def mark_done(self, chunk: int, games: int, errors: int, decisions: int) -> None:
        counts = {"games": games, "errors": errors, "decisions": decisions}
        self._set(chunk, counts)
        self._append({"chunk": chunk, **counts})

    def mark_pending(self, chunk: int) -> None:
        self._unset(chunk)
        self._append({"chunk": chunk, "state": "pending"})

    def totals(self) -> dict[str, int]:
        return {"chunks_done": len(self.done), **self._sums}

    def save(self, out: Path, state: str | None = None) -> None:
        """Write the manifest (at a session's start and a change of state, not per chunk: see the ledger)."""
        if self.folder != out or not self._ledger_ready:
            self.folder = out
            self._write_ledger()
        if state is not None:
            self.data["state"] = state
        self.data["updated"] = now()
        self.data["totals"] = self.totals()
        tmp = out / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1), encoding="utf-8")
        os.replace(tmp, out / MANIFEST)
