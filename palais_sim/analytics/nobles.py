"""What each noble is worth: how often it is taken, when, for how much, its taker's win-rate lift, and its value in
points from a regression of the final score on the nobles taken, set against its cost.

The value model, fitted on every seat of every played game:

    total = sum_k value_k * took_k + seat effects + strategy effects + game effect + error

The game effect is removed by demeaning every column within its game (the "within" estimator), so a noble's value
is how many more points its taker scores than the table, all other nobles taken held equal: its printed points
plus what its privilege brings, net of what taking it costs in servants and turns. Standard errors are
cluster-robust by seat-rotation group. The data stream through in batches of whole groups, with the nobles of a
seat packed into 64-bit masks, so memory stays at a few hundred bytes per seat.

Cost is the printed price in gold plus one per seal (a seal is a servant spent; ``SEAL_GOLD``). A noble is flagged
when its value per cost stands out from the other nobles' (see ``stand_out``): its value departs from what the
others' mean value per cost predicts by at least ``min_effect`` points, and the externally studentised residual is
significant after Holm correction over the nobles: "underpriced" above, "overpriced" below.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics import stats
from palais_sim.analytics.batches import ClusterSums, SeatBatch, cached_batches, strategies
from palais_sim.analytics.runs import Run, collect, noble_ids

SEAL_GOLD = 1.0


@dataclass
class NobleReport:
    nobles: pl.DataFrame
    mean_ratio: float  # mean value per cost over the nobles
    rows: int
    clusters: int
    notes: list[str] = field(default_factory=list)


def _noble_frame(run: Run) -> pl.DataFrame:
    """The component set's nobles (id, gold, violet, turquoise, points, privilege), or those seen in the run."""
    if run.components is not None:
        n = run.components.nobles
        return pl.DataFrame(
            {"noble": [x.id for x in n], "gold": [x.gold for x in n], "violet": [x.violet for x in n],
             "turquoise": [x.turquoise for x in n], "points": [x.points for x in n],
             "privilege": [x.privilege for x in n]},
            schema_overrides={"privilege": pl.String},
        )  # fmt: skip
    seen = collect(run.scan("recruits").group_by("noble").agg(pl.col("base_cost").first().alias("gold"))).sort("noble")
    return seen.with_columns(
        pl.lit(None, pl.Int64).alias("violet"), pl.lit(None, pl.Int64).alias("turquoise"),
        pl.lit(None, pl.Int64).alias("points"), pl.lit(None, pl.String).alias("privilege"),
    )  # fmt: skip


def descriptives(run: Run) -> pl.LazyFrame:
    # failed games have no recruit rows (the runner writes only their game row), so no join is needed
    return (
        run.scan("recruits")
        .group_by("noble")
        .agg(
            pl.len().alias("taken"),
            pl.col("round").mean().alias("mean_round"),
            pl.col("gold_paid").mean().alias("mean_gold_paid"),
            (pl.col("base_cost") - pl.col("gold_paid")).mean().alias("mean_discount"),
            pl.col("edge").mean().alias("edge_share"),
            pl.col("order").mean().alias("mean_order"),
        )
    )


class _Design:
    """The demeaned design matrix of a batch: noble indicators, then seat and strategy dummies."""

    def __init__(self, k: int, player_counts: list[int], n_strategies: int) -> None:
        self.k = k
        self.seat_cols = [(p, s) for p in player_counts for s in range(2, p + 1)]
        self.n_strat = n_strategies
        self.width = k + len(self.seat_cols) + max(0, n_strategies - 1)

    def bits(self, b: SeatBatch) -> np.ndarray:
        """Noble indicators (rows x k, uint8), unpacked from the little-endian 64-bit masks."""
        cols = [np.unpackbits(m.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
                for m in b.masks]  # fmt: skip
        return np.hstack(cols)[:, : self.k] if len(cols) > 1 else cols[0][:, : self.k]

    def matrix(self, b: SeatBatch, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The design and the outcome, demeaned within each game (games of P players are P consecutive rows)."""
        x = np.empty((len(b), self.width), dtype=np.float32)
        x[:, : self.k] = bits
        col = self.k
        for p, s in self.seat_cols:
            x[:, col] = (b.players == p) & (b.seat == s)
            col += 1
        for code in range(1, self.n_strat):
            x[:, col] = b.strategy == code
            col += 1
        y = b.total.astype(np.float32)
        counts = np.unique(b.players)
        for p in counts:
            sel = slice(None) if len(counts) == 1 else np.flatnonzero(b.players == p)
            xs = x[sel].reshape(-1, p, self.width)
            ys = y[sel].reshape(-1, p)
            xs = xs - xs.mean(axis=1, keepdims=True)
            ys = ys - ys.mean(axis=1, keepdims=True)
            x[sel] = xs.reshape(-1, self.width)
            y[sel] = ys.reshape(-1)
        return x, y


def compute(run: Run, min_effect: float = 1.0) -> NobleReport:
    catalogue = _noble_frame(run)
    ids = noble_ids(run)
    k = len(ids)
    desc = collect(descriptives(run))
    games = collect(run.games().select(pl.len())).item()
    strategy_list = strategies(run)
    player_counts = run.summary["player_counts"]
    design = _Design(k, player_counts, len(strategy_list))
    ols = stats.OLSAccumulator(design.width)
    lift = ClusterSums(k)
    data = cached_batches(run, strategy_list, ids)
    for b in data:
        bits = design.bits(b)
        x, y = design.matrix(b, bits)
        ols.add(x, y)
        # lift rows: one per noble taken; value = taker's win share minus the others' mean
        p = b.players.astype(np.float64)
        value = (p * b.win - 1) / np.maximum(p - 1, 1)
        row, noble = np.nonzero(bits)
        lift.add(noble, b.group[row], {"lift": value[row]})
    ols.solve()
    for b in data:
        x, y = design.matrix(b, design.bits(b))
        ols.add_scores(x, y, b.group)
    fit = ols.result()
    lift_mean = lift.mean("lift")

    value = fit.coef[:k]
    value_se = fit.se[:k]
    table = pl.DataFrame({"noble": ids}).join(catalogue, on="noble", how="left").join(desc, on="noble", how="left")
    gold = table["gold"].fill_null(0).to_numpy().astype(float)
    seals = (table["violet"].fill_null(0) + table["turquoise"].fill_null(0)).to_numpy().astype(float)
    cost = gold + SEAL_GOLD * seals
    taken = table["taken"].fill_null(0).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        vpc = np.where(cost > 0, value / cost, np.nan)
        vpc_se = np.where(cost > 0, value_se / cost, np.nan)
    expected, resid, t, p, ratio = stand_out(cost, value, value_se)
    p_holm = stats.holm(p)
    flag = np.where(
        (p_holm < 0.05) & (np.abs(resid) >= min_effect), np.where(resid > 0, "underpriced", "overpriced"), None
    )
    out = table.select("noble", "gold", "violet", "turquoise", "points", "privilege").with_columns(
        pl.Series("cost", cost),
        pl.Series("taken", taken),
        pl.Series("taken_per_game", taken / games if games else np.full(k, np.nan)),
        pl.lit(None, pl.Float64).alias("on_board"),
        table["mean_round"], table["mean_gold_paid"], table["mean_discount"], table["edge_share"],
        pl.Series("value_points", value),
        pl.Series("value_ci_low", fit.low[:k]),
        pl.Series("value_ci_high", fit.high[:k]),
        pl.Series("value_se", value_se),
        pl.Series("value_per_cost", vpc),
        pl.Series("vpc_ci_low", vpc - stats.Z95 * vpc_se),
        pl.Series("vpc_ci_high", vpc + stats.Z95 * vpc_se),
        pl.Series("expected_value", expected),
        pl.Series("residual", resid),
        pl.Series("lift", lift_mean.mean),
        pl.Series("lift_ci_low", lift_mean.low),
        pl.Series("lift_ci_high", lift_mean.high),
        pl.Series("t", t),
        pl.Series("p", p),
        pl.Series("p_holm", p_holm),
        pl.Series("flag", flag.tolist(), dtype=pl.String),
    )  # fmt: skip
    notes = [
        f"Value: within-game least squares of the final score on {k} noble indicators with seat and strategy "
        f"effects, {fit.rows} seats, standard errors clustered on {fit.clusters} seat-rotation groups.",
        f"Cost = gold + {SEAL_GOLD:g} per seal. Expected value = cost x the other nobles' mean value per cost. "
        f"Flag: |value - expected| >= {min_effect:g} points and value per cost standing out from the other "
        "nobles' (externally studentised, t test, 5% after Holm correction over the nobles).",
        "Lift: taker's win share minus the mean of the other seats in the same game (0 = no advantage).",
        "On the board: the run's tables do not record the park, so how often a noble was on the board is not known "
        "(36 of 42 are dealt, so about 86% of games with the standard set).",
    ]
    if run.component_note:
        notes.append(run.component_note)
    return NobleReport(nobles=out, mean_ratio=ratio, rows=fit.rows, clusters=fit.clusters, notes=notes)


def stand_out(
    cost: np.ndarray, value: np.ndarray, value_se: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """For each noble, its value per cost against the other nobles' (an externally studentised residual).

    ``ratio_k`` = value / cost. Against the other nobles' ratios (mean ``r``, variance ``s2``, ``m`` of them):
    ``t = (ratio_k - r) / sqrt(s2 (1 + 1/m) + se_k**2)`` on ``m - 1`` degrees of freedom, where ``se_k`` is the
    sampling error of the noble's own ratio. Returns the expected value ``r * cost``, the residual in points
    ``value - r * cost``, t, the two-sided p and the ratio over all nobles.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(cost > 0, value / cost, np.nan)
        ratio_se = np.where(cost > 0, value_se / cost, np.nan)
    ok = np.isfinite(ratio)
    n = len(value)
    expected, resid, t, p = (np.full(n, np.nan) for _ in range(4))
    overall = float(np.mean(ratio[ok])) if ok.any() else np.nan
    for i in np.flatnonzero(ok):
        others = ratio[ok & (np.arange(n) != i)]
        m = len(others)
        if m < 3:
            continue
        r, s2 = others.mean(), others.var(ddof=1)
        expected[i] = r * cost[i]
        resid[i] = value[i] - expected[i]
        se = np.sqrt(s2 * (1 + 1 / m) + np.nan_to_num(ratio_se[i]) ** 2)
        t[i] = (ratio[i] - r) / se
        p[i] = 2 * sstats.t.sf(abs(t[i]), m - 1)
    return expected, resid, t, p, overall
