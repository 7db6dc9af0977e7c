"""A run split into parts (``palais simulate --shard K/N``), so several machines without a cluster can play one
schedule and ``palais report`` can read the parts as the one run.

Part K of N plays a contiguous block of the whole run's chunk plan: chunks ``(K-1)*C//N`` up to (not including)
``K*C//N`` of the C chunks, each with its number, its games and its seeds as in the run played whole, so the parts'
files together are exactly the whole run's files. Contiguous blocks rather than every N-th chunk: a part is a range
of games (easy to say, to check and to resume), and the matchups, which cycle group by group inside every chunk, mix
the same way in every block.

Parts of one schedule share its **schedule hash**: a digest of everything that decides the games and their chunks
(the settings, the chunk size, the engine and code, the component set, the schema), recorded in the manifest of every
run and recomputed by the readers from the manifest's fields, so parts played by other code or settings never merge.
Part of the run directory's format, with :mod:`.records` and :mod:`.ledger`: the analytics read a part through it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from palais_sim.tournament.schedule import Settings

SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
# What decides a run's games and their chunks (the manifest's fields), the schedule hash's input.
SCHEDULE_KEYS = (
    "schema_version", "engine_version", "code_fingerprint", "components_hash", "settings", "total_games",
    "group_size", "chunk_size",
)  # fmt: skip


class ShardError(ValueError):
    """A ``--shard`` that is not K/N with 1 <= K <= N, or more parts than the run has chunks."""


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = SHARD.fullmatch(text)
        if not match:
            raise ShardError(f"--shard must be K/N (part K of N, e.g. 2/3), got {text!r}")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise ShardError(f"--shard {text.strip()}: K must be 1 to N and N at least 1")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def chunks(self, chunk_count: int) -> range:
        """This part's chunks of a plan of ``chunk_count`` (every part gets at least one: see :meth:`check`)."""
        return range((self.index - 1) * chunk_count // self.count, self.index * chunk_count // self.count)

    def check(self, chunk_count: int, chunk_size: int) -> None:
        """Refuse more parts than chunks (a part would play nothing)."""
        if self.count > chunk_count:
            raise ShardError(
                f"--shard {self}: the run has only {chunk_count} chunk(s) of {chunk_size} games, too few for "
                f"{self.count} parts; use at most {chunk_count} parts or a smaller --chunk-size"
            )

    def to_dict(self, chunk_count: int, chunk_size: int, total: int) -> dict[str, int]:
        """As the manifest stores it: the part, and its chunks and games (for the reader's eye)."""
        chunks = self.chunks(chunk_count)
        first, end = chunks.start * chunk_size, min(chunks.stop * chunk_size, total)
        return {
            "index": self.index, "count": self.count, "first_chunk": chunks.start, "chunks": len(chunks),
            "first_game": first, "games": end - first,
        }  # fmt: skip

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> Shard | None:
        """The part a stored run is (None: a run played whole)."""
        data = manifest.get("shard")
        if not isinstance(data, Mapping):
            return None
        return cls(int(data["index"]), int(data["count"]))


def plan_range(manifest: Mapping[str, Any]) -> range:
    """The chunks a stored run plays: all of the plan, or its part's block."""
    total, size = int(manifest["total_games"]), int(manifest["chunk_size"])
    count = -(-total // size)
    shard = Shard.of(manifest)
    return range(count) if shard is None else shard.chunks(count)


def normalised_settings(settings: dict) -> dict:
    """Stored settings as this version writes them (a manifest whose rule options are flat fields compares equal
    to the same run's settings of today); as they are when they do not make settings (an unknown game)."""
    try:
        return Settings.from_dict(settings).to_dict()
    except (ValueError, TypeError):
        return settings


def schedule_hash(manifest: Mapping[str, Any]) -> str:
    """The digest of what decides a run's games and chunks (``SCHEDULE_KEYS``; the settings as this version writes
    them), the same for every part of one schedule and for the run played whole."""
    fields = {k: manifest.get(k) for k in SCHEDULE_KEYS}
    fields["settings"] = normalised_settings(dict(manifest.get("settings") or {}))
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
