"""Whether a finished arm played by other code (another code fingerprint or engine version) still holds today.

A change of the code fingerprint says that a file deciding games changed, not that any game of the arm did: a
refactor, a docstring, a strategy no arm plays leave every outcome as it was. So the arm is not thrown away on the
fingerprint alone: a sample of its games, the first and the last rotation group (the two ends of its seeds, at every
seating), is played again with today's code on the arm's own settings and seeds (``tournament.replay``), and every
column those games recorded in every table is compared. Identical: the arm is kept and marked verified; any
difference: the arm measured another game and is played again whole.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    size = schedule.group_size
    ends = sorted({0, schedule.groups - 1})
    games = tuple(g for end in ends for g in range(end * size, min((end + 1) * size, schedule.total)))
    groups = tuple(dict.fromkeys(schedule.game(g).group for g in games))
    return games, groups


def check_arm(out: Path, settings: Settings, chunk_size: int) -> Check:
    """Replay the arm's sample (:func:`sample`) with today's code and compare it with what ``out`` recorded."""
    games, groups = sample(settings)
    recorded = stored_games(out, settings, games, chunk_size)
    today = replay_games(settings, games)
    return Check(games, groups, first_difference(recorded, today))


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
