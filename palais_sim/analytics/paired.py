"""Paired designs: one row per seat-rotation group for the *focus* strategy (the first one listed), and differences
between arms played on the same groups.

In a seat-rotated run every group plays one setup seed in every rotation, and rotation ``r`` seats the first listed
strategy in seat ``r + 1``; so the focus seat of a game is ``rotation + 1`` (seat 1 without rotation), whatever the
strategies are called, and a mirror match (the same spec in every seat) still has a focus. Per group:

- ``win``: the focus's mean win share over the group's games (the engine's rule: most points, then the game's
  tie-break, a win still tied is shared);
- ``score``: the focus's mean score against the other seats, one tie rule for everything: finishing ahead on
  (total, the game's tie column: ``GAME.tie_column``) counts 1, level on both counts 1/2 (for two players this is
  the win share).

Only groups whose games were all played (no failed game) are kept, so the rotations stay balanced.
Arms are compared group by group (``paired_difference``): the groups are independent, the games within one are not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics.runs import Run, collect

FOCUS_SCHEMA = {"group": pl.Int64, "games": pl.Int64, "win": pl.Float64, "score": pl.Float64}


def focus_games(run: Run) -> pl.LazyFrame:
    """Per played game: group, the focus seat, the focus's win share and its score against the others."""
    rotate = bool((run.manifest.get("settings") or {}).get("rotate_seats", True))
    games = run.scan("games").select(
        "game",
        "group",
        "players",
        "error",
        (pl.col("rotation").cast(pl.Int64) + 1 if rotate else pl.lit(1)).alias("focus"),
    )
    seats = run.scan("seats").select("game", "seat", "win", "total", pl.col(run.tie_column).alias("tie"))
    me = seats.join(games, on="game").filter(pl.col("seat") == pl.col("focus"))
    other = seats.select("game", pl.col("seat").alias("o_seat"), pl.col("total").alias("o_total"),
                         pl.col("tie").alias("o_tie"))  # fmt: skip
    ahead = (
        pl.when((pl.col("total") > pl.col("o_total")) | ((pl.col("total") == pl.col("o_total"))
                                                         & (pl.col("tie") > pl.col("o_tie"))))
        .then(1.0)
        .when((pl.col("total") == pl.col("o_total")) & (pl.col("tie") == pl.col("o_tie")))
        .then(0.5)
        .otherwise(0.0)
    )  # fmt: skip
    pairs = (
        me.join(other, on="game")
        .filter(pl.col("o_seat") != pl.col("seat"))
        .group_by("game")
        .agg(ahead.mean().alias("score"))
    )
    return me.select("game", "group", "win").join(pairs, on="game", how="left")


def focus_groups(run: Run) -> pl.DataFrame:
    """One row per complete group: ``group``, ``games``, ``win`` and ``score`` of the focus (means over the group)."""
    group_size = int(run.manifest.get("group_size") or 1)
    failed = run.scan("games").filter(pl.col("error").is_not_null()).select("group").unique()
    per_game = focus_games(run).join(failed, on="group", how="anti")
    df = collect(
        per_game.group_by("group").agg(
            pl.len().alias("games"), pl.col("win").mean().alias("win"), pl.col("score").mean().alias("score")
        )
    )
    df = df.filter(pl.col("games") == group_size).sort("group")
    return df.select(pl.col(k).cast(v) for k, v in FOCUS_SCHEMA.items())


@dataclass(frozen=True)
class Estimate:
    """A mean over groups with its standard error and a two-sided interval."""

    mean: float
    se: float
    low: float
    high: float
    n_groups: int

    def to_dict(self) -> dict:
        return {"mean": self.mean, "se": self.se, "ci": [self.low, self.high], "n_groups": self.n_groups}


def mean_interval(values: np.ndarray, confidence: float = 0.95, within: tuple[float, float] | None = None) -> Estimate:
    """Mean of independent group values with a t interval (nan when fewer than two groups). ``within``: the range
    every value lies in (a win-share difference's), where the interval is cut: a few groups' t interval can reach
    beyond anything possible (+-180 pp for a value within +-50), and the mean lies in the range, so the cut interval
    covers whenever the uncut one does."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return Estimate(np.nan, np.nan, np.nan, np.nan, 0)
    mean = float(x.mean())
    if n < 2:
        return Estimate(mean, np.nan, np.nan, np.nan, n)
    se = float(x.std(ddof=1) / np.sqrt(n))
    q = float(sstats.t.ppf(0.5 + confidence / 2, n - 1))
    low, high = mean - q * se, mean + q * se
    if within is not None:
        low, high = max(low, within[0]), min(high, within[1])
    return Estimate(mean, se, low, high, n)


def paired_difference(
    a: pl.DataFrame,
    b: pl.DataFrame,
    column: str = "win",
    confidence: float = 0.95,
    within: tuple[float, float] | None = None,
) -> Estimate:
    """``a - b`` over the groups both arms played (the same setup seeds and rotations), with a t interval (cut to
    ``within``, the range of the differences: -1 to 1 for win shares)."""
    both = a.select("group", pl.col(column).alias("a")).join(b.select("group", pl.col(column).alias("b")), on="group")
    return mean_interval((both["a"] - both["b"]).to_numpy(), confidence, within)


VERDICTS = ("favoured", "disfavoured", "balanced", "undecided")


def verdict(low: float, high: float, margin: float) -> str:
    """The three-way decision with an indifference zone of +-``margin`` around 0.

    ``favoured``: the whole interval above +margin; ``disfavoured``: the whole interval below -margin;
    ``balanced``: the whole interval inside [-margin, +margin]; ``undecided``: anything else (the interval reaches
    across a margin, or there is none). "Not significant" is never read as balanced.
    """
    if not (np.isfinite(low) and np.isfinite(high)):
        return "undecided"
    if low > margin:
        return "favoured"
    if high < -margin:
        return "disfavoured"
    if -margin <= low and high <= margin:
        return "balanced"
    return "undecided"


def robust(verdicts: list[str]) -> bool:
    """A verdict is robust when at least two skill levels studied it and every one gives it (and it is a decision,
    not ``undecided``): one skill level alone cannot tell the game's verdict from the player's."""
    return len(verdicts) >= 2 and len(set(verdicts)) == 1 and verdicts[0] != "undecided"


def _notes_seats(run: Run, keys: tuple[str, ...]) -> pl.LazyFrame | None:
    """Per seat of every complete, played game: ``group``, ``role`` (``focus`` or ``others``) and each key of the
    strategy's notes as a number; None for a run without notes."""
    rotate = bool((run.manifest.get("settings") or {}).get("rotate_seats", True))
    games = (
        run.scan("games")
        .filter(pl.col("error").is_null())
        .select("game", "group", (pl.col("rotation").cast(pl.Int64) + 1 if rotate else pl.lit(1)).alias("focus"))
    )
    seats = run.scan("seats")
    if "strategy_notes" not in seats.collect_schema().names():
        return None
    fields = [pl.col("strategy_notes").str.json_path_match(f"$.{k}").cast(pl.Float64).alias(k) for k in keys]
    role = pl.when(pl.col("seat") == pl.col("focus")).then(pl.lit("focus")).otherwise(pl.lit("others")).alias("role")
    return seats.select("game", "seat", *fields).join(games, on="game").with_columns(role)


def notes_rates(run: Run, keys: tuple[str, ...] = ("reachable", "taken")) -> dict[str, dict[str, float]]:
    """The strategies' own notes about their games (the seats table's ``strategy_notes``), as rates per role:
    ``focus`` (the focus seat of each game) and ``others`` (every other seat): for each key the share of seat-games
    in which it was 1, and ``seat_games``. Only complete, played games count; a run without notes gives NaN rates."""
    out = {r: {"seat_games": 0, **{k: float("nan") for k in keys}} for r in ("focus", "others")}
    per_seat = _notes_seats(run, keys)
    if per_seat is None:
        return out
    df = collect(per_seat.group_by("role").agg(pl.len().alias("seat_games"), *[pl.col(k).mean() for k in keys]))
    for row in df.iter_rows(named=True):
        out[row["role"]] = {"seat_games": int(row["seat_games"]), **{k: _finite_or_nan(row[k]) for k in keys}}
    return out


def notes_by_group(run: Run, keys: tuple[str, ...] = ("reachable", "taken"), role: str = "others") -> pl.DataFrame:
    """Per group: the seat-games of ``role`` (``seat_games``) and, for each key, in how many of them it was 1; the
    seats of a group share its setup, so a rate whose bound counts groups reads these. A run without notes: no
    rows."""
    per_seat = _notes_seats(run, keys)
    schema = {"group": pl.Int64, "seat_games": pl.Int64, **dict.fromkeys(keys, pl.Float64)}
    if per_seat is None:
        return pl.DataFrame(schema=schema)
    sums = [pl.col(k).fill_nan(0).fill_null(0).sum() for k in keys]
    df = collect(per_seat.filter(pl.col("role") == role).group_by("group").agg(pl.len().alias("seat_games"), *sums))
    return df.select(pl.col(k).cast(v) for k, v in schema.items()).sort("group")


def _finite_or_nan(x: float | None) -> float:
    return float(x) if x is not None and np.isfinite(x) else float("nan")
