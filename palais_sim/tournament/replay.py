"""Play given games of a run again, in this process, with today's code: the rows they record, table by table.

A game depends only on the run's settings and its index (the schedule gives its seed, group, rotation and seating;
the worker plays it), so replaying game ``i`` of a stored run gives the rows the run holds for it exactly when
today's code plays it as the code that recorded it did. A study uses this to tell whether an arm played by code of
another fingerprint still holds (``study.verify``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import polars as pl

from palais_sim.tournament import records
from palais_sim.tournament.runner import validate
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.worker import chunk_name, init_worker, play_one


def replay_games(settings: Settings, games: Iterable[int]) -> dict[str, pl.DataFrame]:
    """Games ``games`` (indices 0..total-1 of the run of ``settings``) played again in this process, as the worker
    plays them: every table's rows of those games, in game order."""
    context, schedule, _ = validate(settings)
    init_worker(settings, context, None, False)
    tables: dict[str, list[dict]] = {table: [] for table in records.columns(settings.game)}
    for index in sorted(set(games)):
        rows, _ = play_one(schedule.game(index))
        for table, table_rows in rows.items():
            tables[table].extend(table_rows)
    return {table: records.frame(rows, table, settings.game) for table, rows in tables.items()}


def stored_games(out: Path, settings: Settings, games: Iterable[int], chunk_size: int) -> dict[str, pl.DataFrame]:
    """The rows the run in ``out`` (of ``settings``, in chunks of ``chunk_size`` games) recorded for games
    ``games``, every table's, in game order; only the chunk files that hold them are read."""
    wanted = sorted(set(games))
    names = sorted({chunk_name(g // chunk_size) for g in wanted})
    frames = {}
    for table in records.columns(settings.game):
        files = [out / table / name for name in names if (out / table / name).is_file()]
        if not files:
            frames[table] = records.frame([], table, settings.game)
            continue
        found = pl.concat([records.read_table(f) for f in files], how="vertical_relaxed")
        frames[table] = found.filter(pl.col("game").is_in(wanted)).sort("game", maintain_order=True)
    return frames
