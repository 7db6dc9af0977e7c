"""The run's tables: one schema, defined here only, and the conversion of a game result into rows.

Schema changes bump ``SCHEMA_VERSION``; the run manifest records it, and analytics check it.
Seats are 1-based in every table.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import NamedTuple

import polars as pl
import pyarrow as pa

from palais_sim import __version__
from palais_sim.engine.game import GameResult
from palais_sim.engine.state import RuleOptions

SCHEMA_VERSION = 2  # 2: games gained engine, gold_limit, max_rounds


class Column(NamedTuple):
    """One column of a run table: its name, Parquet type, meaning and the base of its numbers."""

    name: str
    dtype: pl.DataType
    meaning: str
    base: str = ""  # "1-based" (seats: seat 1 starts), "0-based", or "" where no numbering is involved


ONE = SEAT1 = "1-based"
ZERO = "0-based"

# Every column of the three tables, defined here only. The README's table and each Parquet file's metadata
# (``schema_markdown`` and ``parquet_metadata``) are written from these lines; a test checks the README.
COLUMNS: dict[str, tuple[Column, ...]] = {
    "games": (
        Column("game", pl.Int64(), "index of the game in the run (rotation group * P + rotation)", ZERO),
        Column("seed", pl.UInt64(), "the game's setup seed, from the root seed and the group (`group_seed`)"),
        Column("group", pl.Int64(), "seat-rotation group: one setup seed played in every rotation", ZERO),
        Column(
            "rotation", pl.Int8(), "rotation within the group: the first listed strategy sits in seat rotation+1", ZERO
        ),  # fmt: skip
        Column("players", pl.Int8(), "number of players, 2 to 4"),
        Column("matchup", pl.String(), "strategy specs in seat order (seat 1 first), comma-separated", SEAT1),
        Column("layout", pl.String(), "the room layout code, rows top to bottom, e.g. PMS/KGD/COB"),
        Column("components", pl.String(), "content hash of the component set"),
        Column("rounds", pl.Int16(), "the round the game ended in (0 for a failed game)"),
        Column("finished", pl.Boolean(), "false if the game was stopped at max_rounds (or failed)"),
        Column("error", pl.String(), "null, or why the game failed (it then has no seat or recruit rows)"),
        Column(
            "winners", pl.List(pl.Int8()), "winning seats (several for a shared win; Cardinal tie-break applied)", SEAT1
        ),  # fmt: skip
        Column("decisions", pl.Int32(), "decisions the strategies made in the game"),
        Column("engine", pl.String(), "palais_sim version that played the game"),
        Column("gold_limit", pl.Int16(), "rule option: the bank's gold, null = unlimited"),
        Column("max_rounds", pl.Int16(), "rule option: a game still going after this round is stopped, unfinished"),
    ),
    "seats": (
        Column("game", pl.Int64(), "the game (games.game)", ZERO),
        Column("group", pl.Int64(), "the game's seat-rotation group", ZERO),
        Column("seat", pl.Int8(), "seat number; seat 1 starts with 0 gold, seat 2 with 1, ...", SEAT1),
        Column("strategy", pl.String(), "strategy spec in this seat"),
        Column("total", pl.Int16(), "final score: nobles_points + cards_played + cards_unplayed + park"),
        Column("nobles_points", pl.Int16(), "points of the nobles taken"),
        Column("cards_played", pl.Int16(), "points of the point cards played"),
        Column("cards_unplayed", pl.Int16(), "points for cards left in hand (at most 6)"),
        Column("park", pl.Int16(), "points from the four park rows"),
        Column("rank", pl.Int8(), "1 = best total; tied totals share the better rank (no Cardinal tie-break)"),
        Column("win", pl.Float64(), "win share: 1, 1/k for a win shared by k seats, or 0"),
        Column("cardinal", pl.Int8(), "servants in the Cardinal at the end"),
        Column("gold", pl.Int16(), "gold left at the end"),
        Column("nobles_taken", pl.Int16(), "number of nobles taken"),
        Column("start_gold", pl.Int8(), "gold at the start (seat - 1)"),
        Column("servants_in_park", pl.Int8(), "servants in the park at the end"),
        Column("hand_size", pl.Int8(), "privilege cards in hand at the end"),
    ),
    "recruits": (
        Column("game", pl.Int64(), "the game (games.game)", ZERO),
        Column("seat", pl.Int8(), "the recruiting seat", SEAT1),
        Column("strategy", pl.String(), "strategy spec of the recruiting seat"),
        Column("noble", pl.String(), "noble id in the component set, e.g. N17"),
        Column("field", pl.Int8(), "park field, numbered row by row from the top left (0..35)", ZERO),
        Column("round", pl.Int16(), "round of the recruitment", ONE),
        Column("gold_paid", pl.Int16(), "gold paid, after any privileges"),
        Column("base_cost", pl.Int16(), "the noble's printed gold cost"),
        Column("edge", pl.Boolean(), "taken from an edge field (a servant was placed there)"),
        Column("order", pl.Int16(), "order of recruitment in the game", ZERO),
    ),
}

TABLES: dict[str, dict[str, pl.DataType]] = {t: {c.name: c.dtype for c in cols} for t, cols in COLUMNS.items()}
GAMES_SCHEMA = TABLES["games"]
SEATS_SCHEMA = TABLES["seats"]
RECRUITS_SCHEMA = TABLES["recruits"]


def schema_markdown(table: str) -> str:
    """The README's table of a run table's columns."""
    lines = ["| column | type | meaning | numbered |", "|---|---|---|---|"]
    for c in COLUMNS[table]:
        lines.append(f"| `{c.name}` | {c.dtype} | {c.meaning} | {c.base} |")
    return "\n".join(lines)


def parquet_metadata(table: str) -> dict[str, str]:
    """File-level key-value metadata of a chunk file: the table, the schema version and every column's doc."""
    docs = {c.name: {"type": str(c.dtype), "meaning": c.meaning, "numbered": c.base} for c in COLUMNS[table]}
    return {
        "palais_sim.table": table,
        "palais_sim.schema_version": str(SCHEMA_VERSION),
        "palais_sim.columns": json.dumps(docs),
    }


@cache
def _arrow_schema(table: str) -> pa.Schema:
    """The table's Arrow schema with each column's meaning as field metadata (``description``, ``numbered``)."""
    arrow = pl.DataFrame(schema=TABLES[table]).to_arrow().schema
    docs = {c.name: c for c in COLUMNS[table]}
    return pa.schema(
        f.with_metadata({"description": docs[f.name].meaning, "numbered": docs[f.name].base}) for f in arrow
    )


def write_table(frame: pl.DataFrame, table: str, path: Path) -> None:
    """Write a chunk file of ``table``, documented: column meanings in the field and file metadata."""
    frame.write_parquet(path, compression="zstd", metadata=parquet_metadata(table), arrow_schema=_arrow_schema(table))


def read_table(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    return pl.read_parquet(path, columns=columns)


def result_rows(result: GameResult, game: int, group: int, rotation: int) -> tuple[dict, list[dict], list[dict]]:
    """One game's row, its seat rows and its recruit rows (from the result alone, never the engine state)."""
    game_row = {
        "game": game,
        "seed": result.seed,
        "group": group,
        "rotation": rotation,
        "players": result.players,
        "matchup": ",".join(result.strategies),
        "layout": result.layout,
        "components": result.components_hash,
        "rounds": result.rounds,
        "finished": result.finished,
        "error": None,
        "winners": [w + 1 for w in result.winners],
        "decisions": result.decisions,
        "engine": __version__,
        "gold_limit": result.options.gold_limit,
        "max_rounds": result.options.max_rounds,
    }
    seat_rows = [
        {
            "game": game,
            "group": group,
            "seat": s.seat + 1,
            "strategy": s.strategy,
            "total": s.score.total,
            "nobles_points": s.score.nobles,
            "cards_played": s.score.cards_played,
            "cards_unplayed": s.score.cards_unplayed,
            "park": s.score.park,
            "rank": s.rank,
            "win": s.win,
            "cardinal": s.score.cardinal,
            "gold": s.gold,
            "nobles_taken": len(s.nobles_taken),
            "start_gold": s.start_gold,
            "servants_in_park": s.servants_in_park,
            "hand_size": s.hand_size,
        }
        for s in result.seats
    ]
    recruit_rows = [
        {
            "game": game,
            "seat": r.seat + 1,
            "strategy": result.strategies[r.seat],
            "noble": r.noble,
            "field": r.field,
            "round": r.round,
            "gold_paid": r.gold_paid,
            "base_cost": r.base_cost,
            "edge": r.edge,
            "order": r.order,
        }
        for r in result.recruits
    ]
    return game_row, seat_rows, recruit_rows


def failed_game_row(
    game: int, seed: int, group: int, rotation: int, players: int, matchup: list[str], layout: str,
    components_hash: str, error: str, options: RuleOptions | None = None,
) -> dict:  # fmt: skip
    """The row of a game that failed: it keeps the seed and the error so it can be replayed."""
    return {
        "game": game,
        "seed": seed,
        "group": group,
        "rotation": rotation,
        "players": players,
        "matchup": ",".join(matchup),
        "layout": layout,
        "components": components_hash,
        "rounds": 0,
        "finished": False,
        "error": error,
        "winners": [],
        "decisions": 0,
        "engine": __version__,
        "gold_limit": options.gold_limit if options else None,
        "max_rounds": options.max_rounds if options else None,
    }


def frame(rows: list[dict], table: str) -> pl.DataFrame:
    """Rows as a DataFrame cast to the table's schema (empty tables keep their columns)."""
    return pl.DataFrame(rows, schema=TABLES[table], orient="row") if rows else pl.DataFrame(schema=TABLES[table])
