"""The run manifest (DIR/manifest.json): settings, versions, chunk list and state; written atomically.

A run's identity is what decides its tables: settings, chunk size, engine version, component-set hash and schema
version. ``--resume`` continues only a run with the same identity; a different run in the directory is refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from palais_sim.tournament.schedule import Settings

MANIFEST = "manifest.json"
KIND = "palais-sim run"


class RunDirError(ValueError):
    """The output directory cannot take this run (holds another run, nothing to resume, ...)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Manifest:
    data: dict

    @classmethod
    def new(
        cls, settings: Settings, total: int, group_size: int, chunk_size: int, engine: str, components_hash: str,
        schema_version: int, code: str = "",
    ) -> Manifest:  # fmt: skip
        chunks = [
            {"chunk": i, "first": first, "count": min(chunk_size, total - first), "state": "pending"}
            for i, first in enumerate(range(0, total, chunk_size))
        ]
        return cls(
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
                "state": "running",
                "created": now(),
                "updated": now(),
                "chunks": chunks,
            }
        )

    @classmethod
    def load(cls, out: Path) -> Manifest | None:
        path = out / MANIFEST
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RunDirError(f"{path} cannot be read ({exc}); not a palais-sim run directory?") from None
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise RunDirError(f"{path} is not a palais-sim run manifest")
        return cls(data)

    def identity(self) -> dict:
        d = self.data
        keys = ("schema_version", "engine_version", "code_fingerprint", "components_hash", "settings", "chunk_size")
        return {k: d.get(k) for k in keys}

    def differences(self, other: Manifest) -> list[str]:
        """What differs between two runs' identities, as ``name: this vs other`` strings."""
        mine, theirs = self.identity(), other.identity()
        a_set, b_set = mine["settings"], theirs["settings"] or {}
        out = [f"{k}: {a_set.get(k)!r} vs {b_set.get(k)!r}" for k in sorted(set(a_set) | set(b_set))
               if a_set.get(k) != b_set.get(k)]  # fmt: skip
        if out:  # derived fields (an automatic chunk size) would only repeat the settings' difference
            return out
        return [f"{k}: {mine[k]!r} vs {theirs[k]!r}" for k in mine if k != "settings" and mine[k] != theirs[k]]

    @property
    def settings(self) -> Settings:
        return Settings.from_dict(self.data["settings"])

    def pending(self) -> list[dict]:
        return [c for c in self.data["chunks"] if c["state"] != "done"]

    def mark_done(self, chunk: int, games: int, errors: int, decisions: int) -> None:
        entry = self.data["chunks"][chunk]
        entry.update(state="done", games=games, errors=errors, decisions=decisions)

    def mark_pending(self, chunk: int) -> None:
        entry = self.data["chunks"][chunk]
        for key in ("games", "errors", "decisions"):
            entry.pop(key, None)
        entry["state"] = "pending"

    def totals(self) -> dict[str, int]:
        done = [c for c in self.data["chunks"] if c["state"] == "done"]
        return {
            "chunks_done": len(done),
            "games": sum(c["games"] for c in done),
            "errors": sum(c["errors"] for c in done),
            "decisions": sum(c["decisions"] for c in done),
        }

    def save(self, out: Path, state: str | None = None) -> None:
        if state is not None:
            self.data["state"] = state
        self.data["updated"] = now()
        self.data["totals"] = self.totals()
        tmp = out / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1), encoding="utf-8")
        os.replace(tmp, out / MANIFEST)
