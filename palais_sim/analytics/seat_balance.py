"""The seat balance of any game: each seat's win share against the fair share 1/P and the test of equal shares.

Win share per seat against 1/P: the 95% interval and the test against 1/P share one standard error clustered on the
seat-rotation group, so the interval excludes 1/P exactly when the unadjusted p is below 0.05 (Wilson and the
binomial score test only where the groups are not known). A Wald chi-square test of equal shares per player count
with the seats' joint group-clustered covariance, and the balance index ``1 - (largest - smallest seat share)``. A run
whose seats and strategies are aligned (no rotation) gets no seat verdict: see ``analytics.design``. Each game's setup
report builds on these (with what it adds of its own setup).
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


class SeatSums:
    """What the seat tables need, summed over seat batches of whole groups: per (players, seat) the rows, wins and
    points, and per player count the group-clustered cross-products of the groups' per-seat rows ``n_g`` and wins
    ``w_g`` (``sum n_g n_g'``, ``sum w_g w_g'``, ``sum w_g n_g'``) and the number of groups. That is all
    ``clustered_seat_test`` reads from the per-group rows: a few P x P matrices whatever the size of the run."""

    def __init__(self) -> None:
        self.parts: dict[int, dict[str, np.ndarray]] = {}

    def add(self, players: np.ndarray, group: np.ndarray, seat: np.ndarray, win: np.ndarray, total: np.ndarray) -> None:
        """Rows sorted by group (codes within the batch; a group must not continue in a later batch), 1-based seats."""
        counts = np.unique(players)
        for p in counts:
            sel = slice(None) if len(counts) == 1 else np.flatnonzero(players == p)
            p = int(p)
            grp = group[sel]
            code = np.cumsum(np.r_[False, grp[1:] != grp[:-1]]) if len(grp) else grp
            g = int(code[-1]) + 1 if len(code) else 0
            key = code.astype(np.int64) * p + seat[sel].astype(np.int64) - 1
            n = np.bincount(key, minlength=g * p).astype(np.float64).reshape(g, p)
            w = np.bincount(key, weights=win[sel], minlength=g * p).reshape(g, p)
            part = self.parts.setdefault(p, {name: np.zeros((p, p)) for name in ("nn", "ww", "wn")} | {
                "n": np.zeros(p), "w": np.zeros(p), "total": np.zeros(p), "groups": np.zeros(1)})  # fmt: skip
            part["nn"] += n.T @ n
            part["ww"] += w.T @ w
            part["wn"] += w.T @ n
            part["n"] += n.sum(0)
            part["w"] += w.sum(0)
            part["total"] += np.bincount(seat[sel].astype(np.int64) - 1, weights=total[sel], minlength=p)
            part["groups"] += g

    def table(self) -> pl.DataFrame:
        """``seat_table``'s frame: per (players, seat) present, games, wins and mean score."""
        rows = [{"players": p, "seat": s + 1, "games": int(part["n"][s]), "wins": float(part["w"][s]),
                 "mean_score": float(part["total"][s] / part["n"][s])}
                for p, part in sorted(self.parts.items()) for s in range(p) if part["n"][s] > 0]  # fmt: skip
        schema = {"players": pl.Int8, "seat": pl.Int8, "games": pl.UInt32, "wins": pl.Float64,
                  "mean_score": pl.Float64}  # fmt: skip
        return pl.DataFrame(rows, schema=schema, orient="row")

    def test(self, players: int) -> tuple[np.ndarray, np.ndarray, float, float]:
        """``clustered_seat_test`` of the player count, from the sums."""
        part = self.parts[players]
        return _seat_test(part["n"], part["w"], part["nn"], part["ww"], part["wn"], int(part["groups"][0]), players)


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
    return _wald(share, se, cov, players)


def _seat_test(
    n: np.ndarray, w: np.ndarray, nn: np.ndarray, ww: np.ndarray, wn: np.ndarray, g: int, players: int
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``clustered_seat_test`` from the sums: ``sum_g infl_g infl_g'`` expanded in the cross-products."""
    share = w / np.where(n > 0, n, np.nan)
    outer = (ww - wn * share[None, :] - (wn * share[None, :]).T + nn * np.outer(share, share)) / np.outer(n, n)
    cov = (g / (g - 1)) * outer if g > 1 else np.full((players, players), np.nan)
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    return _wald(share, se, cov, players)


def _wald(
    share: np.ndarray, se: np.ndarray, cov: np.ndarray, players: int
) -> tuple[np.ndarray, np.ndarray, float, float]:
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
    df: pl.DataFrame, min_effect: float, by_group: pl.DataFrame | SeatSums | None = None,
    confounded: list[int] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """The seat table and the balance per player count; ``by_group`` (the per-group rows, or their ``SeatSums``)
    gives the group-clustered tests, else Wilson and the binomial score test."""
    df = df.sort("players", "seat")
    confounded = confounded or []
    n = df["games"].to_numpy().astype(float)
    wins = df["wins"].to_numpy()
    fair = 1.0 / df["players"].to_numpy()
    share = wins / n
    low, high = stats.wilson(wins, n)  # replaced below by the clustered interval where the groups are known
    p = stats.proportion_p(wins, n, fair)  # and by the clustered test
    wald: dict[int, tuple[float, float]] = {}
    if isinstance(by_group, SeatSums):
        tests = {players: by_group.test(players) for players in by_group.parts}
    elif by_group is not None and len(by_group):
        tests = {int(p): clustered_seat_test(part, int(p)) for (p,), part in by_group.group_by(["players"])}
    else:
        tests = {}
    for players, (se, z, chi2, pw) in tests.items():
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
