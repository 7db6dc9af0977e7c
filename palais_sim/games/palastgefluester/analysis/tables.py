"""Palastgeflüster's own tables, from its run tables only: the seat balance by player count (the start player and
the seats after it), how rounds end (a repeat, six different persons, the Hofnarr under the Hofnarr king) and how
often a seat plays its own colour and so plays again."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from palais_sim.analytics.batches import seat_batches, strategies, sum_over_chunks
from palais_sim.analytics.design import SeatStrategies, confounded_player_counts
from palais_sim.analytics.runs import Run, collect
from palais_sim.analytics.seat_balance import SeatSums, finish_seats

KINDS = ("repeat", "six", "jester")


@dataclass
class PgReport:
    seats: pl.DataFrame
    balance: pl.DataFrame
    round_ends: pl.DataFrame  # per (players, kind): rounds, share of rounds, mean cards in such a round
    game_length: pl.DataFrame  # per players: games, mean rounds, mean cards per round, own-colour replays per play
    tiebreaks: pl.DataFrame  # per players: ties for the win, and how the basic rule and the variant decide them
    notes: list[str] = field(default_factory=list)


def _played_seats(tables: dict[str, pl.LazyFrame]) -> pl.LazyFrame:
    """A batch's seat rows of played games with the game's player count, rounds and whether it finished."""
    games = tables["games"].filter(pl.col("error").is_null()).select("game", "players", "rounds", "finished")
    return tables["seats"].join(games, on="game", how="inner")


def _round_ends(tables: dict[str, pl.LazyFrame]) -> pl.LazyFrame:
    games = tables["games"].filter(pl.col("error").is_null()).select("game", "players")
    ends = tables["round_ends"].join(games, on="game", how="inner")
    return ends.group_by("players", "kind").agg(pl.len().alias("rounds"), pl.col("cards").sum())


def _length(tables: dict[str, pl.LazyFrame]) -> pl.LazyFrame:
    per_game = _played_seats(tables).group_by("game").agg(
        pl.col("players").first(), pl.col("rounds").first(), pl.col("plays").sum(),
        pl.col("own_colour_replays").sum().alias("replays"),
    )  # fmt: skip
    return per_game.group_by("players").agg(
        pl.len().alias("games"), pl.col("rounds").sum(), pl.col("plays").sum(), pl.col("replays").sum()
    )


def compute(run: Run, min_effect: float = 0.01) -> PgReport:
    """The tables, each summed a batch of chunks at a time (a game lies in one chunk) or from the seat batches (the
    seats' group-clustered sums): memory does not grow with the run."""
    names = strategies(run)
    seat_sums, seen = SeatSums(), SeatStrategies(len(names))
    for b in seat_batches(run, names):
        seat_sums.add(b.players, b.group, b.seat, b.win, b.total)
        seen.add(b)
    if "_confounded" not in run.__dict__:
        seen.store(run)
    kinds = sum_over_chunks(run, _round_ends, ["players", "kind"])
    kinds = kinds.with_columns((pl.col("cards") / pl.col("rounds")).alias("mean_cards")).drop("cards")
    length = sum_over_chunks(run, _length, ["players"]).select(
        "players", "games", (pl.col("rounds") / pl.col("games")).alias("mean_rounds"),
        (pl.col("plays") / pl.col("rounds")).alias("cards_per_round"),
        (pl.col("replays") / pl.col("plays")).alias("own_colour_share"),
    )  # fmt: skip
    seats, by_group = seat_sums.table(), seat_sums
    seat_df, balance = finish_seats(seats, min_effect, by_group, confounded_player_counts(run))
    ties = sum_over_chunks(run, lambda tables: tiebreaks(_played_seats(tables)), ["players"])
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
    two rules give to different seats (over the whole run at once; ``compute`` sums ``tiebreaks`` by chunks)."""
    return tiebreaks(run.seats())


def tiebreaks(seats: pl.LazyFrame) -> pl.LazyFrame:
    """``tiebreak_table`` of these seat rows (of played games, with their player count and finished flag)."""
    seats = seats.filter(pl.col("finished")).select("game", "players", "seat", "total", "display", "noted")
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
