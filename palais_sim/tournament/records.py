"""The run's tables: each game's schema (defined by the game, ``Game.columns``), the documented Parquet files
and the row of a failed game.

Schema changes bump ``SCHEMA_VERSION``; the run manifest records it, and analytics check it.
Seats are 1-based in every table.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import polars as pl
import pyarrow as pa

from palais_sim import __version__
from palais_sim.core.dtypes import polars_dtype
from palais_sim.core.game import Column, Game
from palais_sim.core.games import get_game

SCHEMA_VERSION = 3  # 2: games gained engine and the rule options of then; 3: seats gained strategy_notes

# Every game's seats table ends with what the seat's strategy said about the game (the worker fills it, any game).
STRATEGY_NOTES = Column(
    "strategy_notes",
    pl.String(),
    "what the seat's strategy reported about the game: its notes() as a JSON object of numbers (e.g. restricted's "
    "games with what it watches within reach, and taken); null for a strategy without notes",
)


def columns(game: Game) -> dict[str, tuple[Column, ...]]:
    """Every table of ``game``'s runs with its columns (games and seats first): the game's own, and the seats
    table's strategy notes."""
    tables = dict(game.columns())
    tables["seats"] = (*tables["seats"], STRATEGY_NOTES)
    return tables


def game_of(manifest: dict) -> Game:
    """The game a stored run plays, from its manifest: its settings name it, unless it is the registry's default
    game (runs from before the game interface name none: they are the default game's)."""
    return get_game((manifest.get("settings") or {}).get("game"))


def tables(game: Game) -> dict[str, dict[str, pl.DataType]]:
    """Every table of ``game``'s runs with its Polars schema."""
    return {t: {c.name: polars_dtype(c.dtype) for c in cols} for t, cols in columns(game).items()}


def schema_markdown(table: str, game: Game) -> str:
    """The manual's table of a run table's columns (docs/run-format.md, and each game's page)."""
    lines = ["| column | type | meaning | numbered |", "|---|---|---|---|"]
    for c in columns(game)[table]:
        lines.append(f"| `{c.name}` | {c.dtype} | {c.meaning} | {c.base} |")
    return "\n".join(lines)


def parquet_metadata(table: str, game: Game) -> dict[str, str]:
    """File-level key-value metadata of a chunk file: the game, the table, the schema version and every column's doc."""
    docs = {c.name: {"type": str(c.dtype), "meaning": c.meaning, "numbered": c.base} for c in columns(game)[table]}
    return {
        "palais_sim.game": game.name,
        "palais_sim.table": table,
        "palais_sim.schema_version": str(SCHEMA_VERSION),
        "palais_sim.columns": json.dumps(docs),
    }


@cache
def _arrow_schema(table: str, game: Game) -> pa.Schema:
    """The table's Arrow schema with each column's meaning as field metadata (``description``, ``numbered``)."""
    arrow = pl.DataFrame(schema=tables(game)[table]).to_arrow().schema
    docs = {c.name: c for c in columns(game)[table]}
    return pa.schema(
        f.with_metadata({"description": docs[f.name].meaning, "numbered": docs[f.name].base}) for f in arrow
    )


def write_table(frame: pl.DataFrame, table: str, path: Path, game: Game) -> None:
    """Write a chunk file of ``table``, documented: column meanings in the field and file metadata."""
    frame.write_parquet(
        path, compression="zstd", metadata=parquet_metadata(table, game), arrow_schema=_arrow_schema(table, game)
    )


def read_table(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    return pl.read_parquet(path, columns=columns)


def failed_game_row(
    game: Game, context: object, index: int, seed: int, group: int, rotation: int, matchup: list[str],
    error: str,
) -> dict:  # fmt: skip
    """The games row of a game that failed: it keeps the seed and the error so it can be replayed."""
    row = {c.name: None for c in game.columns()["games"]}
    row.update(
        game=index, seed=seed, group=group, rotation=rotation, players=len(matchup), matchup=",".join(matchup),
        rounds=0, finished=False, error=error, winners=[], decisions=0, engine=__version__,
    )  # fmt: skip
    row.update(game.failed_row(context, seed))
    return row


def frame(rows: list[dict], table: str, game: Game) -> pl.DataFrame:
    """Rows as a DataFrame cast to the table's schema (empty tables keep their columns)."""
    schema = tables(game)[table]
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
