"""Palastgeflüster's own tables, from its run tables only: the seat balance by player count (the start player and
the seats after it), how rounds end (a repeat, six different persons, the Hofnarr under the Hofnarr king) and how
often a seat plays its own colour and so plays again."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from palais_sim.analytics.design import confounded_player_counts
from palais_sim.analytics.runs import Run, collect, collect_all
from palais_sim.analytics.seat_balance import finish_seats

KINDS = ("repeat", "six", "jester")


@dataclass
class PgReport:
    seats: pl.DataFrame
    balance: pl.DataFrame
    round_ends: pl.DataFrame  # per (players, kind): rounds, share of rounds, mean cards in such a round
    game_length: pl.DataFrame  # per players: games, mean rounds, mean cards per round, own-colour replays per play
    tiebreaks: pl.DataFrame  # per players: ties for the win, and how the basic rule and the variant decide them
    notes: list[str] = field(default_factory=list)


def compute(run: Run, min_effect: float = 0.01) -> PgReport:
    seat_rows = run.seats().select("players", "group", "seat", "win", "total", "plays", "own_colour_replays")
    games = run.games().select("game", "players")
    ends = run.scan("round_ends").join(games, on="game", how="inner")
    seats, by_group, kinds, length = collect_all(
        [
            seat_rows.group_by("players", "seat").agg(
                pl.len().alias("games"), pl.col("win").sum().alias("wins"), pl.col("total").mean().alias("mean_score")
            ),
            seat_rows.group_by("players", "group", "seat").agg(pl.len().alias("n"), pl.col("win").sum()),
            ends.group_by("players", "kind").agg(pl.len().alias("rounds"), pl.col("cards").mean().alias("mean_cards")),
            run.games()
            .select("game", "players", "rounds")
            .join(
                run.seats().group_by("game").agg(
                    pl.col("plays").sum().alias("plays"), pl.col("own_colour_replays").sum().alias("replays")
                ),
                on="game",
            )
            .group_by("players")
            .agg(
                pl.len().alias("games"), pl.col("rounds").mean().alias("mean_rounds"),
                (pl.col("plays").sum() / pl.col("rounds").sum()).alias("cards_per_round"),
                (pl.col("replays").sum() / pl.col("plays").sum()).alias("own_colour_share"),
            ),
        ]
    )  # fmt: skip
    seat_df, balance = finish_seats(seats, min_effect, by_group, confounded_player_counts(run))
    ties = collect(tiebreak_table(run))
    kinds = kinds.with_columns((pl.col("rounds") / pl.col("rounds").sum().over("players")).alias("share")).sort(
        "players", "kind"
    )
    notes = [
        "Seats: 95% intervals and p against the fair share 1/P with one standard error clustered on the "
        f"seat-rotation group, Holm-corrected; flagged when also at least {min_effect:.0%} from it. Seat 1 starts "
        "the first round; later rounds start with the player who ended the one before. In a run of different "
        "strategies a seat's share mixes the seat with who sat in it; mirror runs (one strategy in every seat) "
        "measure the game.",
        "Round ends: repeat = a player had to add a person already in their display (every other player scores), "
        "six = a display reached six different persons (its owner scores), jester = the Hofnarr under the Hofnarr "
        "king (every other player scores).",
    ]
    notes.append(
        "Tie-breaks: a tie for the win is two or more seats level on the top score when a finished game ends. The "
        "rules give it to the larger display (a tie there shares the win); the variant to the larger noted total. "
        "Both figures are recorded whichever rule the run played, so each tie is decided both ways on the same "
        "game: 'the rules differ' counts the ties whose winners the two rules name differently (the players' "
        "choices are the ones they made under the run's rule)."
    )
    return PgReport(seat_df, balance, kinds, length.sort("players"), ties, notes)


def tiebreak_table(run: Run) -> pl.LazyFrame:
    """Per player count: finished games, ties for the win, the ties each rule leaves shared, and the ties the
    two rules give to different seats."""
    seats = run.seats().filter(pl.col("finished")).select("game", "players", "seat", "total", "display", "noted")
    top = seats.filter(pl.col("total") == pl.col("total").max().over("game"))

    def winners(column: str) -> pl.Expr:
        return pl.col("seat").filter(pl.col(column) == pl.col(column).max()).sort().implode()

    per_game = top.group_by("game").agg(
        pl.col("players").first(), pl.len().alias("level"), winners("display").alias("by_display"),
        winners("noted").alias("by_noted"),
    )  # fmt: skip
    tie = pl.col("level") > 1
    return (
        per_game.group_by("players")
        .agg(
            pl.len().alias("games"),
            tie.sum().alias("ties"),
            (tie & (pl.col("by_display").list.len() > 1)).sum().alias("shared_display"),
            (tie & (pl.col("by_noted").list.len() > 1)).sum().alias("shared_noted"),
            (tie & (pl.col("by_display") != pl.col("by_noted"))).sum().alias("rules_differ"),
        )
        .sort("players")
    )


def round_end_totals(run: Run) -> dict[str, int]:
    """Rounds ended each way over the whole run (the games table's counters)."""
    row = collect(run.games().select(pl.col(f"ends_{k}").sum() for k in KINDS)).row(0)
    return {k: int(v or 0) for k, v in zip(KINDS, row, strict=True)}
