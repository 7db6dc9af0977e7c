"""The seat balance of any game: each seat's win share against the fair share 1/P and the test of equal shares.

Win share per seat against 1/P: the 95% interval and the test against 1/P share one standard error clustered on the
seat-rotation group, so the interval excludes 1/P exactly when the unadjusted p is below 0.05 (Wilson and the
binomial score test only where the groups are not known). A Wald chi-square test of equal shares per player count
with the seats' joint group-clustered covariance, and the balance index ``1 - (largest - smallest seat share)``. A run
whose seats and strategies are aligned (no rotation) gets no seat verdict: see ``analytics.design``. Each game's setup
report builds on these (Palais Royal's adds start gold and the room layout).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics import stats


def seat_table(base: pl.LazyFrame) -> pl.LazyFrame:
    return (
        base.group_by("players", "seat")
        .agg(pl.col("n").sum().alias("games"), pl.col("win").sum().alias("wins"), pl.col("total").sum())
        .with_columns((pl.col("total") / pl.col("games")).alias("mean_score"))
        .drop("total")
    )


def seat_groups(base: pl.LazyFrame) -> pl.LazyFrame:
    """Per (players, group, seat): games and win sum, for the group-clustered seat tests."""
    return base.group_by("players", "group", "seat").agg(pl.col("n").sum(), pl.col("win").sum())


def clustered_seat_test(part: pl.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Per seat: the share's group-clustered standard error and its z against 1/P; and the Wald chi-square of equal
    shares (P - 1 degrees of freedom) with the seats' joint clustered covariance, with its p."""
    codes, groups = np.unique(part["group"].to_numpy(), return_inverse=True)
    g = len(codes)
    seat = part["seat"].to_numpy().astype(int) - 1
    n = np.zeros((g, players))
    w = np.zeros((g, players))
    np.add.at(n, (groups, seat), part["n"].to_numpy().astype(float))
    np.add.at(w, (groups, seat), part["win"].to_numpy().astype(float))
    total = n.sum(0)
    share = w.sum(0) / np.where(total > 0, total, np.nan)
    infl = (w - n * share) / np.where(total > 0, total, np.nan)
    cov = (g / (g - 1)) * infl.T @ infl if g > 1 else np.full((players, players), np.nan)
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (share - 1.0 / players) / se
    contrast = np.eye(players)[:-1] - np.eye(players)[-1]
    d = contrast @ share
    try:
        chi2 = float(d @ np.linalg.solve(contrast @ cov @ contrast.T, d))
        p = float(sstats.chi2.sf(chi2, players - 1))
    except (np.linalg.LinAlgError, ValueError):
        chi2, p = np.nan, np.nan
    return se, z, chi2, p


def finish_seats(
    df: pl.DataFrame, min_effect: float, by_group: pl.DataFrame | None = None, confounded: list[int] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    df = df.sort("players", "seat")
    confounded = confounded or []
    n = df["games"].to_numpy().astype(float)
    wins = df["wins"].to_numpy()
    fair = 1.0 / df["players"].to_numpy()
    share = wins / n
    low, high = stats.wilson(wins, n)  # replaced below by the clustered interval where the groups are known
    p = stats.proportion_p(wins, n, fair)  # and by the clustered test
    wald: dict[int, tuple[float, float]] = {}
    if by_group is not None and len(by_group):
        for (players,), part in by_group.group_by(["players"]):
            se, z, chi2, pw = clustered_seat_test(part, int(players))
            rows = np.flatnonzero(df["players"].to_numpy() == players)
            seats_here = df["seat"].to_numpy()[rows].astype(int) - 1
            p[rows] = stats.two_sided_p(z[seats_here])
            low[rows] = np.clip(share[rows] - stats.Z95 * se[seats_here], 0.0, 1.0)
            high[rows] = np.clip(share[rows] + stats.Z95 * se[seats_here], 0.0, 1.0)
            wald[int(players)] = (chi2, pw)
    aligned = np.isin(df["players"].to_numpy(), confounded)
    p = np.where(aligned, np.nan, p)
    p_holm = stats.holm(p)
    seats = pl.DataFrame(
        {
            "players": df["players"], "seat": df["seat"], "games": df["games"], "win_rate": share,
            "ci_low": low, "ci_high": high, "fair_share": fair, "edge": share - fair,
            "mean_score": df["mean_score"], "p": p, "p_holm": p_holm,
            "flagged": (p_holm < 0.05) & (np.abs(share - fair) >= min_effect) & ~aligned,
        }
    )  # fmt: skip
    rows = []
    for (players,), part in seats.group_by(["players"], maintain_order=True):
        wins_p = part["win_rate"].to_numpy() * part["games"].to_numpy()
        chi2, pval = wald.get(int(players)) or stats.chisquare_equal(wins_p)
        if int(players) in confounded:
            chi2, pval = np.nan, np.nan
        shares = part["win_rate"].to_numpy()
        gap = float(shares.max() - shares.min())
        best = int(part["seat"][int(np.argmax(shares))])
        rows.append({"players": players, "games": int(part["games"].max()), "largest_gap": gap,
                     "balance_index": 1 - gap, "best_seat": best, "chi2": chi2, "df": len(part) - 1,
                     "p": pval})  # fmt: skip
    balance = pl.DataFrame(rows, schema_overrides={"chi2": pl.Float64, "p": pl.Float64}).sort("players")
    balance = balance.with_columns(pl.Series("p_holm", stats.holm(balance["p"].to_numpy())))
    return seats, balance
