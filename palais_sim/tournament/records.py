"""The run's tables: each game's schema (defined by the game, ``palais_sim.games``), the documented Parquet files
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
from palais_sim.core.game import Column
from palais_sim.games import DEFAULT_GAME
from palais_sim.registry import GameRef, resolve_game

SCHEMA_VERSION = 3  # 2: games gained engine and the rule options of then; 3: seats gained strategy_notes

# Every game's seats table ends with what the seat's strategy said about the game (the worker fills it, any game).
STRATEGY_NOTES = Column(
    "strategy_notes",
    pl.String(),
    "what the seat's strategy reported about the game: its notes() as a JSON object of numbers (e.g. restricted's "
    "games with what it watches within reach, and taken); null for a strategy without notes",
)


def columns(game: GameRef | None = None) -> dict[str, tuple[Column, ...]]:
    """Every table of ``game``'s runs with its columns (games and seats first): the game's own, and the seats
    table's strategy notes. (Here and below, ``game`` is the game object; a name, from a caller that read it from a
    manifest, is looked up.)"""
    tables = dict(resolve_game(game).columns())
    tables["seats"] = (*tables["seats"], STRATEGY_NOTES)
    return tables


# Palais Royal's tables, the default game's (each game defines its own: ``columns(game)``).
COLUMNS: dict[str, tuple[Column, ...]] = columns(DEFAULT_GAME)
TABLES: dict[str, dict[str, pl.DataType]] = {t: {c.name: c.dtype for c in cols} for t, cols in COLUMNS.items()}
GAMES_SCHEMA = TABLES["games"]
SEATS_SCHEMA = TABLES["seats"]


def game_of(manifest: dict) -> str:
    """The game a stored run plays, from its manifest (its settings name a game other than the default; runs from
    before the game interface are Palais Royal's)."""
    return str((manifest.get("settings") or {}).get("game") or DEFAULT_GAME)


def tables(game: GameRef | None = None) -> dict[str, dict[str, pl.DataType]]:
    """Every table of ``game``'s runs with its Polars schema."""
    return {t: {c.name: c.dtype for c in cols} for t, cols in columns(game).items()}


def schema_markdown(table: str, game: GameRef | None = None) -> str:
    """The manual's table of a run table's columns (docs/run-format.md, and each game's page)."""
    lines = ["| column | type | meaning | numbered |", "|---|---|---|---|"]
    for c in columns(game)[table]:
        lines.append(f"| `{c.name}` | {c.dtype} | {c.meaning} | {c.base} |")
    return "\n".join(lines)


def parquet_metadata(table: str, game: GameRef | None = None) -> dict[str, str]:
    """File-level key-value metadata of a chunk file: the game, the table, the schema version and every column's doc."""
    docs = {c.name: {"type": str(c.dtype), "meaning": c.meaning, "numbered": c.base} for c in columns(game)[table]}
    return {
        "palais_sim.game": resolve_game(game).name,
        "palais_sim.table": table,
        "palais_sim.schema_version": str(SCHEMA_VERSION),
        "palais_sim.columns": json.dumps(docs),
    }


@cache
def _arrow_schema(table: str, game: GameRef | None = None) -> pa.Schema:
    """The table's Arrow schema with each column's meaning as field metadata (``description``, ``numbered``)."""
    arrow = pl.DataFrame(schema=tables(game)[table]).to_arrow().schema
    docs = {c.name: c for c in columns(game)[table]}
    return pa.schema(
        f.with_metadata({"description": docs[f.name].meaning, "numbered": docs[f.name].base}) for f in arrow
    )


def write_table(frame: pl.DataFrame, table: str, path: Path, game: GameRef | None = None) -> None:
    """Write a chunk file of ``table``, documented: column meanings in the field and file metadata."""
    frame.write_parquet(
        path, compression="zstd", metadata=parquet_metadata(table, game), arrow_schema=_arrow_schema(table, game)
    )


def read_table(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    return pl.read_parquet(path, columns=columns)


def failed_game_row(
    game: GameRef | None, context: object, index: int, seed: int, group: int, rotation: int, matchup: list[str],
    error: str,
) -> dict:  # fmt: skip
    """The games row of a game that failed: it keeps the seed and the error so it can be replayed."""
    the_game = resolve_game(game)
    row = {c.name: None for c in the_game.columns()["games"]}
    row.update(
        game=index, seed=seed, group=group, rotation=rotation, players=len(matchup), matchup=",".join(matchup),
        rounds=0, finished=False, error=error, winners=[], decisions=0, engine=__version__,
    )  # fmt: skip
    row.update(the_game.failed_row(context, seed))
    return row


def frame(rows: list[dict], table: str, game: GameRef | None = None) -> pl.DataFrame:
    """Rows as a DataFrame cast to the table's schema (empty tables keep their columns)."""
    schema = tables(game)[table]
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
