"""Win rates per strategy and player count, the head-to-head matrix and openskill (Plackett-Luce) ratings.

A shared win counts as a share (1/k). Win-rate intervals are Wilson 95%; the tests against the fair share 1/P and
the head-to-head tests against 1/2 use a standard error clustered on the seat-rotation group, and are
Holm-corrected within their table. Mean score and mean rank carry group-clustered 95% intervals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from palais_sim.analytics import stats
from palais_sim.analytics.batches import ClusterSums, cached_batches, strategies
from palais_sim.analytics.runs import Run, collect, noble_ids


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
    """The per (players, strategy) sums and the head-to-head sums, from one pass over the cached seat batches."""
    names = strategies(run)
    ids = noble_ids(run)
    counts = run.summary["player_counts"]
    k = len(names)
    cells = len(counts) * k
    per_strategy = ClusterSums(cells)
    h2h = ClusterSums(k * k)
    games = np.zeros(cells)
    for b in cached_batches(run, names, ids):
        pidx = np.searchsorted(counts, b.players)
        cell = pidx * k + b.strategy
        per_strategy.add(cell, b.group, {"win": b.win, "total": b.total, "rank": b.rank.astype(np.float64)})
        games += np.bincount(np.unique(b.game * cells + cell) % cells, minlength=cells)
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
                h2h.add(np.concatenate([x[0] for x in parts]), np.concatenate([x[1] for x in parts]),
                        {"ahead": np.concatenate([x[2] for x in parts])})  # fmt: skip
    strat_keys = {
        "players": [p for p in counts for _ in names],
        "strategy": [s for _ in counts for s in names],
        "games": games,
    }
    pair_keys = {"strategy": [a for a in names for _ in names], "opponent": [b for _ in names for b in names]}
    per = _frame(per_strategy, strat_keys, ["win", "total", "rank"]).with_columns(
        pl.col("players").cast(pl.Int8), pl.col("games").cast(pl.Int64)
    )
    return per, _frame(h2h, pair_keys, ["ahead"])


def finish_strategy_table(df: pl.DataFrame) -> pl.DataFrame:
    df = df.sort("players", "strategy")
    n = df["n"].to_numpy().astype(float)
    wins = df["win_sum"].to_numpy()
    fair = 1.0 / df["players"].to_numpy()
    low, high = stats.wilson(wins, n)
    win = _cm(df, "win")
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
            "ci_low": ahead.low,
            "ci_high": ahead.high,
            "p": p,
        }
    )
    # the ordered pair (B, A) mirrors (A, B): give it the same corrected p-value
    key = pl.DataFrame({"strategy": df["strategy"], "opponent": df["opponent"], "p_holm": p_holm}).filter(
        pl.col("p_holm").is_not_nan()
    )
    mirror = key.select(pl.col("opponent").alias("strategy"), pl.col("strategy").alias("opponent"), "p_holm")
    return out.join(pl.concat([key, mirror]), on=["strategy", "opponent"], how="left").sort("strategy", "opponent")


def ratings(run: Run, max_games: int = 20000) -> tuple[pl.DataFrame, int]:
    """Plackett-Luce ratings from openskill over the first ``max_games`` played games (in game order)."""
    from openskill.models import PlackettLuce

    games = run.games().select("game")
    cutoff = collect(games.select(pl.col("game").bottom_k(max_games).max())).item()
    empty = pl.DataFrame(schema={"strategy": pl.String, "mu": pl.Float64, "sigma": pl.Float64,
                                 "ci_low": pl.Float64, "ci_high": pl.Float64, "ordinal": pl.Float64})  # fmt: skip
    if cutoff is None:
        return empty, 0
    table = collect(
        run.seats()
        .filter(pl.col("game") <= cutoff)
        .group_by("game")
        .agg(pl.col("strategy").sort_by("seat"), pl.col("rank").sort_by("seat"))
    ).sort("game")
    model = PlackettLuce(tau=0.0)  # strategies do not change during a run: no skill drift between games
    current: dict[str, tuple[float, float]] = {}
    rated = 0
    for seated, ranks in zip(table["strategy"].to_list(), table["rank"].to_list(), strict=True):
        if len(set(seated)) < 2:
            continue
        teams = [[model.rating(*current.get(s, (model.mu, model.sigma)), name=s)] for s in seated]
        new = model.rate(teams, ranks=ranks)
        updates: dict[str, list[tuple[float, float]]] = {}
        for s, (r,) in zip(seated, new, strict=True):
            updates.setdefault(s, []).append((r.mu, r.sigma))
        for s, values in updates.items():
            current[s] = (float(np.mean([v[0] for v in values])), float(np.mean([v[1] for v in values])))
        rated += 1
    if not current:
        return empty, 0
    names = sorted(current)
    mu = np.array([current[s][0] for s in names])
    sigma = np.array([current[s][1] for s in names])
    df = pl.DataFrame(
        {
            "strategy": names,
            "mu": mu,
            "sigma": sigma,
            "ci_low": mu - stats.Z95 * sigma,
            "ci_high": mu + stats.Z95 * sigma,
            "ordinal": mu - 3 * sigma,
        }  # fmt: skip
    ).sort("mu", descending=True)
    return df, rated


def compute(run: Run, rating_games: int = 20000) -> WinRates:
    strat, h2h = seat_tables(run)
    rated, n = ratings(run, rating_games)
    notes = []
    if n:
        notes.append(
            f"Ratings: openskill Plackett-Luce over the first {n} games with at least two strategies "
            "(game order, no drift: tau = 0); interval mu +- 1.96 sigma, ordinal mu - 3 sigma."
        )
    return WinRates(
        strategies=finish_strategy_table(strat),
        head_to_head=finish_head_to_head(h2h),
        ratings=rated,
        rated_games=n,
        notes=notes,
    )
