"""The run's tables: one schema, defined here only, and the conversion of a game result into rows.

Schema changes bump ``SCHEMA_VERSION``; the run manifest records it, and analytics check it.
Seats are 1-based in every table.
"""

from __future__ import annotations

import polars as pl

from palais_sim import __version__
from palais_sim.engine.game import GameResult
from palais_sim.engine.state import RuleOptions

SCHEMA_VERSION = 2  # 2: games gained engine, gold_limit, max_rounds

GAMES_SCHEMA: dict[str, pl.DataType] = {
    "game": pl.Int64(),  # index of the game in the run
    "seed": pl.UInt64(),  # the game's seed, derived from the root seed and the game index
    "group": pl.Int64(),  # seat-rotation group: one setup seed played in every rotation
    "rotation": pl.Int8(),  # which rotation of the group (0 = the matchup as listed)
    "players": pl.Int8(),
    "matchup": pl.String(),  # strategies in seat order, comma-separated
    "layout": pl.String(),  # the room layout code, e.g. PMS/KGD/COB
    "components": pl.String(),  # component-set hash
    "rounds": pl.Int16(),
    "finished": pl.Boolean(),
    "error": pl.String(),  # null, or the message of a failed game
    "winners": pl.List(pl.Int8()),  # winning seats (several for a shared win)
    "decisions": pl.Int32(),
    "engine": pl.String(),  # palais_sim.__version__ that played the game
    "gold_limit": pl.Int16(),  # rule option: null = unlimited bank
    "max_rounds": pl.Int16(),  # rule option: games stopped here are recorded unfinished
}

SEATS_SCHEMA: dict[str, pl.DataType] = {
    "game": pl.Int64(),
    "group": pl.Int64(),
    "seat": pl.Int8(),
    "strategy": pl.String(),
    "total": pl.Int16(),
    "nobles_points": pl.Int16(),
    "cards_played": pl.Int16(),  # points of played point cards
    "cards_unplayed": pl.Int16(),  # points for cards left in hand (at most 6)
    "park": pl.Int16(),  # points from the four park rows
    "rank": pl.Int8(),  # 1 = best; tied totals share the better rank (Cardinal not applied)
    "win": pl.Float64(),  # 1, 1/k for a win shared by k seats, or 0
    "cardinal": pl.Int8(),  # servants in the Cardinal at the end
    "gold": pl.Int16(),  # gold left at the end
    "nobles_taken": pl.Int16(),
    "start_gold": pl.Int8(),
    "servants_in_park": pl.Int8(),
    "hand_size": pl.Int8(),
}

RECRUITS_SCHEMA: dict[str, pl.DataType] = {
    "game": pl.Int64(),
    "seat": pl.Int8(),
    "strategy": pl.String(),
    "noble": pl.String(),  # noble id, e.g. N17
    "field": pl.Int8(),  # park field 0..35
    "round": pl.Int16(),
    "gold_paid": pl.Int16(),
    "base_cost": pl.Int16(),  # the noble's printed gold cost
    "edge": pl.Boolean(),  # taken from an edge field (a servant was placed)
    "order": pl.Int16(),  # 0-based order of recruitment in the game
}

TABLES: dict[str, dict[str, pl.DataType]] = {
    "games": GAMES_SCHEMA,
    "seats": SEATS_SCHEMA,
    "recruits": RECRUITS_SCHEMA,
}


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
