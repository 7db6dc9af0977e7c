"""Whether a finished arm played by other code (another code fingerprint or engine version) still holds today.

A change of the code fingerprint says that a file deciding games changed, not that any game of the arm did: a
refactor, a docstring, a strategy no arm plays leave every outcome as it was. So the arm is not thrown away on the
fingerprint alone: a sample of its games, the first and the last rotation group (the two ends of its seeds, at every
seating), is played again with today's code on the arm's own settings and seeds (``tournament.replay``), and every
column those games recorded in every table is compared. Identical: the arm is kept and marked verified; any
difference: the arm measured another game and is played again whole.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from palais_sim.tournament.replay import replay_games, stored_games
from palais_sim.tournament.schedule import Schedule, Settings

# Columns that say which code played a game, not what happened in it (the release version): left out of the check.
PROVENANCE: dict[str, tuple[str, ...]] = {"games": ("engine",)}


@dataclass(frozen=True)
class Check:
    """The sample replayed and the first difference found (None: every recorded column identical)."""

    games: tuple[int, ...]
    groups: tuple[int, ...]
    difference: str | None

    @property
    def same(self) -> bool:
        return self.difference is None


def sample(settings: Settings) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The games (run indices) of the arm's first and last rotation group, and those groups' numbers."""
    schedule = Schedule(settings)
    games = tuple(g for block in sampled_blocks(schedule, 0, 0) for g in block_games(schedule, block))
    groups = tuple(dict.fromkeys(schedule.game(g).group for g in games))
    return games, groups


def check_arm(out: Path, settings: Settings, chunk_size: int) -> Check:
    """Replay the arm's sample (:func:`sample`) with today's code and compare it with what ``out`` recorded."""
    games, groups = sample(settings)
    recorded = stored_games(out, settings, games, chunk_size)
    today = replay_games(settings, games)
    stored = (json.loads((out / "manifest.json").read_text(encoding="utf-8")).get("evidence") or {}).get("columns")
    if stored:  # a compact run (restored from published evidence) keeps fewer columns
        recorded, today = _stored_columns(stored, recorded), _stored_columns(stored, today)
    return Check(games, groups, first_difference(recorded, today))


def _stored_columns(stored: dict[str, list[str]], tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """The tables cut to the columns a compact run stored (``study.compact``); a table it kept empty is left out. A
    stored column that today's tables lack stays missing, so the comparison reports it."""
    return {
        t: f.select([c for c in stored[t] if c in f.columns]) if t in stored else f
        for t, f in tables.items()
        if stored.get(t, True)
    }


def first_difference(recorded: dict[str, pl.DataFrame], today: dict[str, pl.DataFrame]) -> str | None:
    """The first difference between two sets of tables, as a phrase (None when every compared column is equal)."""
    for table in sorted(set(recorded) | set(today)):
        if table not in recorded or table not in today:
            return f"table {table} is {'new' if table not in recorded else 'gone'} today"
        skip = PROVENANCE.get(table, ())
        old = recorded[table].drop(skip, strict=False)
        new = today[table].drop(skip, strict=False)
        if old.columns != new.columns:
            return f"table {table} records other columns today ({', '.join(_changed(old.columns, new.columns))})"
        if old.height != new.height:
            return f"table {table} has {new.height} rows for the sample today, {old.height} recorded"
        for column in old.columns:
            a, b = old[column], new[column]
            if a.equals(b, check_dtypes=False, check_names=False):
                continue
            unequal = [i for i, (x, y) in enumerate(zip(a.to_list(), b.to_list(), strict=True)) if x != y]
            at = unequal[0] if unequal else 0
            game = old["game"][at] if "game" in old.columns else "?"
            return f"{table}.{column} of game {game}: {a[at]!r} recorded, {b[at]!r} today"
    return None


def _changed(old: list[str], new: list[str]) -> list[str]:
    added = [f"+{c}" for c in new if c not in old]
    removed = [f"-{c}" for c in old if c not in new]
    return added + removed or ["their order"]


@dataclass(frozen=True)
class ArmCheck:
    """One published arm's check by replay: the rotation groups replayed and the first difference (None: holds)."""

    arm: Path
    groups: tuple[int, ...]
    games: int
    difference: str | None


def sampled_blocks(schedule: Schedule, extra: int, seed: int) -> list[int]:
    """The rotation groups to replay: the first and the last, and ``extra`` more drawn from the others with
    ``random.Random(seed)`` (the same seed draws the same groups on every machine)."""
    blocks = schedule.groups
    ends = sorted({0, blocks - 1})
    middle = [b for b in range(blocks) if b not in ends]
    drawn = random.Random(seed).sample(middle, min(max(extra, 0), len(middle)))
    return sorted({*ends, *drawn})


def block_games(schedule: Schedule, block: int) -> list[int]:
    """The games (run indices) of one rotation group of the run."""
    size = schedule.group_size
    return list(range(block * size, min((block + 1) * size, schedule.total)))


def check_compact(arm: Path, extra: int = 0, seed: int = 1) -> ArmCheck:
    """Replay sampled groups (:func:`sampled_blocks`) of the compact run in ``arm`` (``study.compact``) with today's
    code on its own settings, and compare every column it stored."""
    manifest = json.loads((arm / "manifest.json").read_text(encoding="utf-8"))
    settings = Settings.from_dict(manifest["settings"])
    kept = (manifest.get("evidence") or {}).get("components_file")
    if kept:  # the arm's component file, kept beside it (the path it was played from may not exist here)
        settings = replace(settings, components=str(arm / kept))
    schedule = Schedule(settings)
    blocks = sampled_blocks(schedule, extra, seed)
    games = [g for b in blocks for g in block_games(schedule, b)]
    stored = manifest["evidence"]["columns"]
    recorded = _stored_columns(stored, stored_games(arm, settings, games, int(manifest["chunk_size"])))
    today = _stored_columns(stored, replay_games(settings, games))
    groups = tuple(schedule.game(b * schedule.group_size).group for b in blocks)
    for block, group in zip(blocks, groups, strict=True):
        wanted = block_games(schedule, block)
        difference = first_difference(_games(recorded, wanted), _games(today, wanted))
        if difference:
            return ArmCheck(arm, groups, len(games), f"group {group}: {difference}")
    return ArmCheck(arm, groups, len(games), None)


def _games(tables: dict[str, pl.DataFrame], games: list[int]) -> dict[str, pl.DataFrame]:
    return {t: f.filter(pl.col("game").is_in(games)) if "game" in f.columns else f for t, f in tables.items()}
