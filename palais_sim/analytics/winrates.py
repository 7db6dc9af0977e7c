"""Win rates per strategy and player count, the head-to-head matrix and maximum-likelihood ratings.

A shared win counts as a share (1/k). One tie rule for win, rank and head-to-head: the final score, then the game's
tie column (``batches.tie_ranks``). A strategy's win rate, its 95% interval and its test against the fair share 1/P
use one standard error, clustered on the seat-rotation group (the games of a group share a setup, so its seats are
not independent): the interval excludes 1/P exactly when the unadjusted p is below 0.05. The head-to-head tests
against 1/2 are clustered the same way; both are Holm-corrected within their table. Mean score and mean rank carry
group-clustered 95% intervals.

Ratings: Bradley-Terry by maximum likelihood (``choix``) on every meeting of two different strategies at a table
(the pairwise rank-breaking of Plackett-Luce, consistent for it), ties counted half, on the Elo scale; the 95%
interval is a bootstrap over seat-rotation groups (whole groups, so the games of a group stay together): the groups
are hashed into 1,024 buckets whose comparison counts are resampled (a bucket of independent groups is itself a sum
of independent groups; with fewer groups than buckets this is the Poisson bootstrap), so memory and time do not grow
with the run.
Unlike a sequential update (openskill), the fit does not depend on the order of the games. A strategy the games
cannot bound (it never lost to the others, or never beat them: the win/loss graph is not strongly connected) gets no
number but its standing and a reason (``bradley_terry``); only the largest strongly connected set is rated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from palais_sim.analytics import bradley_terry, stats
from palais_sim.analytics.batches import ClusterSums, seat_batches, strategies
from palais_sim.analytics.design import SeatStrategies, confounded_player_counts
from palais_sim.analytics.runs import Run

ELO = 400 / math.log(10)  # Elo points per unit of log-strength
BOOTSTRAP = 200
BUCKETS = 1024


@dataclass
class WinRates:
    strategies: pl.DataFrame  # one row per (players, strategy)
    head_to_head: pl.DataFrame  # one row per ordered pair (strategy, opponent), pooled over player counts
    ratings: pl.DataFrame  # one row per strategy
    rated_games: int
    notes: list[str] = field(default_factory=list)


def _cm(df: pl.DataFrame, value: str) -> stats.ClusterMean:
    return stats.cluster_mean(
        df["n"].to_numpy(), df[f"{value}_sum"].to_numpy(), df[f"{value}_sq"].to_numpy(),
        df[f"{value}_tn"].to_numpy(), df["nn"].to_numpy(), df["groups"].to_numpy(),
    )  # fmt: skip


def _frame(sums: ClusterSums, keys: dict[str, list], values: list[str]) -> pl.DataFrame:
    cols: dict[str, object] = dict(keys)
    cols.update(n=sums.n, groups=sums.groups, nn=sums.nn)
    for v in values:
        for suffix in ("sum", "sq", "tn"):
            cols[f"{v}_{suffix}"] = sums.s.get(f"{v}_{suffix}", np.zeros(sums.cells))
    return pl.DataFrame(cols).filter(pl.col("n") > 0).with_columns(pl.col("n").cast(pl.Int64))


def seat_tables(run: Run) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The per (players, strategy) sums and the head-to-head sums, from one pass over the seat batches.

    The same pass sums what the score table (``score_histogram``), the ratings and the design check need, and keeps
    those sums with the run (a few MB whatever its size), so no other report reads the seats again for them."""
    names = strategies(run)
    counts = run.summary["player_counts"]
    k = len(names)
    cells = len(counts) * k
    per_strategy = ClusterSums(cells)
    h2h = ClusterSums(k * k)
    games = np.zeros(cells)
    buckets = np.zeros(BUCKETS * k * k)  # ratings: wins of strategy a over b, per bucket of groups
    scores = ScoreHistogram(cells)
    seats = SeatStrategies(k)
    offset = 0
    for b in seat_batches(run, names):
        pidx = np.searchsorted(counts, b.players)
        cell = pidx * k + b.strategy
        scores.add(cell, b.total)
        seats.add(b)
        per_strategy.add(cell, b.group, {"win": b.win, "total": b.total, "rank": b.rank.astype(np.float64)})
        games += _games_per_cell(b.game, cell, cells)
        for p in np.unique(b.players):
            sel = np.flatnonzero(b.players == p)
            strat = b.strategy[sel].reshape(-1, p).astype(np.int64)
            rank = b.rank[sel].reshape(-1, p)
            group = b.group[sel][::p]
            parts = []
            for i in range(p):
                for j in range(p):
                    if i == j:
                        continue
                    ahead = (rank[:, i] < rank[:, j]) + 0.5 * (rank[:, i] == rank[:, j])
                    keep = strat[:, i] != strat[:, j]
                    parts.append((strat[keep, i] * k + strat[keep, j], group[keep], ahead[keep]))
            if parts:
                pair = np.concatenate([x[0] for x in parts])
                grp = np.concatenate([x[1] for x in parts])
                ahead = np.concatenate([x[2] for x in parts])
                h2h.add(pair, grp, {"ahead": ahead})
                bucket = _bucket(grp.astype(np.uint64) + np.uint64(offset))
                buckets += np.bincount(bucket * (k * k) + pair, weights=ahead, minlength=BUCKETS * k * k)
        offset += int(b.group.max()) + 1 if len(b) else 0
    strat_keys = {
        "players": [p for p in counts for _ in names],
        "strategy": [s for _ in counts for s in names],
        "games": games,
    }
    pair_keys = {"strategy": [a for a in names for _ in names], "opponent": [b for _ in names for b in names]}
    per = _frame(per_strategy, strat_keys, ["win", "total", "rank"]).with_columns(
        pl.col("players").cast(pl.Int8), pl.col("games").cast(pl.Int64)
    )
    run.__dict__["_rating_data"] = (names, buckets.reshape(BUCKETS, k, k))
    run.__dict__["_score_histogram"] = (names, counts, scores)
    seats.store(run)
    return per, _frame(h2h, pair_keys, ["ahead"])


SCORE_LOW, SCORE_SPAN = -(1 << 15), 1 << 16  # the range of the Int16 total column


class ScoreHistogram:
    """Per cell (player count, strategy), how many seats ended on each integer score: the score table's quantiles
    are read off it (``sections_common.score_table``); cells x 65,536 counts whatever the size of the run."""

    def __init__(self, cells: int) -> None:
        self.cells = cells
        self.counts = np.zeros(cells * SCORE_SPAN, dtype=np.int64)

    def add(self, cell: np.ndarray, total: np.ndarray) -> None:
        key = cell.astype(np.int64) * SCORE_SPAN + (total.astype(np.int64) - SCORE_LOW)
        self.counts += np.bincount(key, minlength=len(self.counts))


def score_histogram(run: Run) -> tuple[list[str], list[int], ScoreHistogram]:
    """The run's strategies, player counts and score histogram (from the pass of ``seat_tables``, made if needed)."""
    if "_score_histogram" not in run.__dict__:
        seat_tables(run)
    return run.__dict__["_score_histogram"]


def finish_strategy_table(df: pl.DataFrame) -> pl.DataFrame:
    df = df.sort("players", "strategy")
    fair = 1.0 / df["players"].to_numpy()
    win = _cm(df, "win")
    # one method for the interval and the test: the group-clustered se (a Wilson interval would treat the seats of a
    # group as independent and disagree with the clustered p); cut at 0 and 1, which never moves 1/P in or out
    low, high = np.clip(win.low, 0.0, 1.0), np.clip(win.high, 0.0, 1.0)
    total = _cm(df, "total")
    rank = _cm(df, "rank")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = stats.two_sided_p((win.mean - fair) / win.se)
    return pl.DataFrame(
        {
            "players": df["players"],
            "strategy": df["strategy"],
            "games": df["games"],
            "seats": df["n"],
            "groups": df["groups"],
            "win_rate": win.mean,
            "ci_low": low,
            "ci_high": high,
            "fair_share": fair,
            "edge": win.mean - fair,
            "mean_score": total.mean,
            "score_ci_low": total.low,
            "score_ci_high": total.high,
            "mean_rank": rank.mean,
            "rank_ci_low": rank.low,
            "rank_ci_high": rank.high,
            "win_se_group": win.se,
            "p": p,
            "p_holm": stats.holm(p),
        }
    )


def finish_head_to_head(df: pl.DataFrame) -> pl.DataFrame:
    df = df.sort("strategy", "opponent")
    ahead = _cm(df, "ahead")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = stats.two_sided_p((ahead.mean - 0.5) / ahead.se)
    first = (df["strategy"] < df["opponent"]).to_numpy()  # test each unordered pair once
    p_holm = np.full(len(df), np.nan)
    p_holm[first] = stats.holm(p[first])
    out = pl.DataFrame(
        {
            "strategy": df["strategy"],
            "opponent": df["opponent"],
            "pairs": df["n"],
            "ahead": ahead.mean,
            # a share: its interval cut at 0 and 1, as the strategy table's (the clustered normal interval of a pair
            # that one side nearly always wins reaches past them)
            "ci_low": np.clip(ahead.low, 0.0, 1.0),
            "ci_high": np.clip(ahead.high, 0.0, 1.0),
            "p": p,
        }
    )
    # the ordered pair (B, A) mirrors (A, B): give it the same corrected p-value
    key = pl.DataFrame({"strategy": df["strategy"], "opponent": df["opponent"], "p_holm": p_holm}).filter(
        pl.col("p_holm").is_not_nan()
    )
    mirror = key.select(pl.col("opponent").alias("strategy"), pl.col("strategy").alias("opponent"), "p_holm")
    return out.join(pl.concat([key, mirror]), on=["strategy", "opponent"], how="left").sort("strategy", "opponent")


def _games_per_cell(game: np.ndarray, cell: np.ndarray, cells: int) -> np.ndarray:
    """Distinct games in which each cell (player count, strategy) sat, from one batch (its games are one range)."""
    if len(game) == 0:
        return np.zeros(cells)
    base = int(game.min())
    seen = np.bincount((game - base) * cells + cell, minlength=(int(game.max()) - base + 1) * cells)
    return (seen.reshape(-1, cells) > 0).sum(0)


def _bucket(group: np.ndarray) -> np.ndarray:
    """A pseudo-random bucket per global group code (a multiplicative hash: neighbouring groups, which may share a
    matchup in a round robin, land in unrelated buckets)."""
    with np.errstate(over="ignore"):
        mixed = (group * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (mixed % np.uint64(BUCKETS)).astype(np.int64)


RATING_SCHEMA = {"strategy": pl.String, "rating": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
                 "log_strength": pl.Float64, "meetings": pl.Int64, "status": pl.String,
                 "reason": pl.String}  # fmt: skip
# the order of the table: above the rated core, the core by rating, then the unbounded below it
_PLACE = {bradley_terry.ABOVE: 0, bradley_terry.RATED: 1, bradley_terry.BETWEEN: 2, bradley_terry.APART: 3,
          bradley_terry.BELOW: 4}  # fmt: skip
RATING_PLACE = pl.col("status").replace_strict(_PLACE, return_dtype=pl.Int8)  # sort key: above, rated, ..., below


def _fit(comp: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths (mean 0) from a matrix of wins (fractional: ties count half)."""
    import choix

    return choix.ilsr_pairwise_dense(comp, alpha=1e-6, max_iter=500, tol=1e-9)


def ratings(run: Run, reps: int = BOOTSTRAP, seed: int = 0) -> tuple[pl.DataFrame, int]:
    """Maximum-likelihood Bradley-Terry ratings (Elo scale, mean 0 over the rated core) with a group bootstrap
    interval; a strategy the games cannot bound (``bradley_terry.standings``) has a null rating and a reason.

    Needs the data ``seat_tables`` gathers (it is computed first when missing)."""
    if "_rating_data" not in run.__dict__:
        seat_tables(run)
    names, per_bucket = run.__dict__["_rating_data"]
    k = len(names)
    empty = pl.DataFrame(schema=RATING_SCHEMA)
    if k < 2:
        return empty, 0
    comp = per_bucket.sum(0)
    meetings = comp + comp.T
    present = meetings.sum(1) > 0
    if present.sum() < 2:
        return empty, 0
    idx = np.flatnonzero(present)
    found, core = bradley_terry.standings(comp[np.ix_(idx, idx)], [names[i] for i in idx])
    rating = np.full(len(idx), np.nan)
    low = np.full(len(idx), np.nan)
    high = np.full(len(idx), np.nan)
    if len(core):
        sub = per_bucket[:, idx[core]][:, :, idx[core]]
        try:
            theta = _fit(comp[np.ix_(idx[core], idx[core])])
            rng = np.random.default_rng(seed)
            lows = np.empty((reps, len(core)))
            highs = np.empty((reps, len(core)))
            for r in range(reps):
                draw = sub[rng.integers(0, BUCKETS, BUCKETS)].sum(0)
                ends = bradley_terry.draw_bounds(draw)
                if ends is None:
                    lows[r] = highs[r] = _fit(draw)
                else:
                    lows[r], highs[r] = ends
        except (RuntimeError, ValueError, FloatingPointError, np.linalg.LinAlgError):
            return empty, 0  # the fit failed on a connected core: no rating
        rating[core] = theta
        low[core], high[core] = bradley_terry.quantiles(lows, highs)
        for i in core:
            ends = [end for end, x in (("lower", low[i]), ("upper", high[i])) if np.isinf(x)]
            if ends:
                found[i] = bradley_terry.Standing(bradley_terry.RATED, bradley_terry.open_interval(ends))
    df = pl.DataFrame(
        {
            "strategy": [names[i] for i in idx],
            "rating": ELO * rating,
            "ci_low": ELO * low,
            "ci_high": ELO * high,
            "log_strength": rating,
            "meetings": np.round(meetings.sum(1)[idx]).astype(np.int64),
            "status": [s.status for s in found],
            "reason": [s.reason or None for s in found],
        },
        schema=RATING_SCHEMA,
    ).with_columns(pl.col("rating", "ci_low", "ci_high", "log_strength").fill_nan(None))
    df = df.sort(RATING_PLACE, pl.col("rating"), "strategy", descending=[False, True, False], nulls_last=True)
    return df, int(round(comp.sum()))


@stats.one_blas_thread
def compute(run: Run) -> WinRates:
    strat, h2h = seat_tables(run)
    rated, n = ratings(run)
    notes = []
    if n:
        notes.append(
            f"Ratings: Bradley-Terry by maximum likelihood (choix) over {n:,} meetings of two different strategies "
            f"(ties half), on the Elo scale with mean 0; 95% interval from {BOOTSTRAP} Poisson bootstrap draws of "
            "whole seat-rotation groups."
        )
        unbounded = rated.filter(pl.col("status") != bradley_terry.RATED)
        if len(unbounded):
            notes.append(
                "A strategy that never lost a meeting to the others (or never beat them) has no finite "
                "maximum-likelihood rating: it is shown as above (below) all, unbounded, and the mean 0 is over the "
                "rated strategies only; an interval end that a bootstrap draw cannot bound is unbounded."
            )
    table = finish_strategy_table(strat)
    pairs = finish_head_to_head(h2h)
    confounded = confounded_player_counts(run)
    if confounded:
        # seat and strategy aligned: the table is the seat table under another name; no verdict from it
        blank = pl.when(pl.col("players").is_in(confounded)).then(None)
        table = table.with_columns(
            blank.otherwise(pl.col("p")).alias("p"), blank.otherwise(pl.col("p_holm")).alias("p_holm")
        )
        pairs = pairs.with_columns(pl.lit(None, pl.Float64).alias("p"), pl.lit(None, pl.Float64).alias("p_holm"))
        notes.append(f"No strategy verdict at {', '.join(map(str, confounded))} players: seats and strategies are "
                     "aligned (confounded design), so p-values are left out.")  # fmt: skip
    return WinRates(strategies=table, head_to_head=pairs, ratings=rated, rated_games=n, notes=notes)
