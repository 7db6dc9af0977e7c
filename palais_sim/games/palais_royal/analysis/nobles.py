"""How the nobles were taken, described: how often, when, for how much, the win-rate lift of their takers, and the
points associated with each noble in a regression of the final score on the nobles taken.

The description, fitted on every seat of every played game:

    total = sum_k points_k * took_k + seat effects + strategy effects + game effect + error

The game effect is removed by demeaning every column within its game (the "within" estimator), so ``points_k`` is
how many more points the seats that took the noble scored than their tables, the other nobles they took held equal.
It is an association, not the noble's value: the other nobles taken are consequences of taking this one, and who
takes what is decided by skill and position, so a plain noble comes out near its printed points + 1 and a privilege
noble loses the indirect benefit of its privilege. No noble is called under- or overpriced from it: that is what
``palais study nobles`` (restricted play on paired seeds) answers. Standard errors are cluster-robust by seat-rotation
group. The data stream through in batches of whole groups, with the nobles of a seat packed into 64-bit masks, read
twice (the cross-products and the coefficients, then the clusters' scores at them) and never kept: memory stays at
one batch whatever the size of the run.

Cost is the printed price in gold plus one per seal (``SEAL_GOLD``), a convention for the points-per-cost column only
(the gold actually paid is in ``mean_gold_paid``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from palais_sim.analytics import stats
from palais_sim.analytics.batches import ClusterSums, SeatBatch, seat_batches, strategies
from palais_sim.analytics.batches import starts as batch_starts
from palais_sim.analytics.runs import Run, collect, taken_ids

SEAL_GOLD = 1.0


@dataclass
class NobleReport:
    nobles: pl.DataFrame
    mean_ratio: float  # mean points associated per cost over the nobles
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
    """The design matrix of a batch: noble indicators, then seat and strategy dummies (demeaned within each game for
    the fit)."""

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

    def raw(self, b: SeatBatch, bits: np.ndarray) -> np.ndarray:
        """The 0/1 design, not demeaned (rows x width, float32)."""
        x = np.zeros((len(b), self.width), dtype=np.float32)
        x[:, : self.k] = bits
        rows = np.arange(len(b))
        seat_col = np.full((16, 16), -1, dtype=np.int64)  # (players, seat) -> column; seat 1 is the reference
        for i, (p, s) in enumerate(self.seat_cols):
            seat_col[p, s] = self.k + i
        col = seat_col[b.players, b.seat]
        x[rows[col >= 0], col[col >= 0]] = 1
        if self.n_strat > 1:  # strategy 0 is the reference
            code = b.strategy.astype(np.int64)
            x[rows[code > 0], self.k + len(self.seat_cols) + code[code > 0] - 1] = 1
        return x

    def matrix(self, b: SeatBatch, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The design and the outcome, demeaned within each game (games of P players are P consecutive rows).

        Rows of one player count come in runs (a chunk holds one matchup's groups), so each run is demeaned in
        place through a reshaped view: no copy of the batch-sized matrix."""
        x = self.raw(b, bits)
        y = b.total.astype(np.float32)
        _demean_games(b.players, x)
        _demean_games(b.players, y)
        return x, y


def _demean_games(players: np.ndarray, a: np.ndarray) -> None:
    """Subtract from every row of ``a`` (rows, or rows x columns) the mean of its game, in place (games of P players
    are P consecutive rows, and rows of one player count come in runs)."""
    edges = np.flatnonzero(np.diff(players)) + 1
    for start, stop in zip(np.r_[0, edges], np.r_[edges, len(players)], strict=True):
        p = int(players[start])
        part = a[start:stop].reshape(-1, p, *a.shape[1:])
        mean = part[:, 0].copy()  # the seats added one by one: contiguous rows, faster than a mean over a short axis
        for seat in range(1, p):
            mean += part[:, seat]
        mean /= p
        part -= mean[:, None]


def _group_sums(starts: np.ndarray, rows: int, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per group (rows sorted by group; ``starts`` where each begins): ``sum_i weights_i * x_i`` (groups x columns),
    as a sparse group-by-row matrix times ``x``: one streaming pass, no batch-sized temporary."""
    import scipy.sparse as sp

    index = np.arange(rows, dtype=np.int64)
    by_group = sp.csr_matrix((weights, index, np.r_[starts, rows]), shape=(len(starts), rows))
    return np.asarray(by_group @ x)


@stats.one_blas_thread
def compute(run: Run) -> NobleReport:
    catalogue = _noble_frame(run)
    ids = taken_ids(run)
    k = len(ids)
    desc = collect(descriptives(run))
    games = collect(run.games().select(pl.len())).item()
    strategy_list = strategies(run)
    player_counts = run.summary["player_counts"]
    design = _Design(k, player_counts, len(strategy_list))
    ols = stats.OLSAccumulator(design.width)
    lift = ClusterSums(k)
    for b in seat_batches(run, strategy_list, ids):  # pass 1: the cross-products and the lift
        bits = design.bits(b)
        x, y = design.matrix(b, bits)
        ols.add(x, y)
        del x, y
        # lift: per noble, the taker's win share minus the others' mean in its game; summed per group (the cluster)
        p = b.players.astype(np.float64)
        value = (p * b.win - 1) / np.maximum(p - 1, 1)
        starts, taken = batch_starts(b.group), bits.astype(np.float32)
        counts = _group_sums(starts, len(b), np.ones(len(b), dtype=np.float32), taken)
        lift.add_groups(counts, {"lift": _group_sums(starts, len(b), value.astype(np.float32), taken)})
    ols.solve()
    beta = np.nan_to_num(ols.coef).astype(np.float32)
    for b in seat_batches(run, strategy_list, ids):  # pass 2, the seats read again: the clusters' scores
        # The scores of the cluster-robust variance without the demeaned design: a game's residuals sum to zero,
        # so a group's score X~'e equals X'e with the raw 0/1 design, where e is y - X beta demeaned within games.
        x = design.raw(b, design.bits(b))
        resid = b.total.astype(np.float32) - x @ beta
        _demean_games(b.players, resid)
        ols.add_group_scores(_group_sums(batch_starts(b.group), len(b), resid, x))
    fit = ols.result()
    lift_mean = lift.mean("lift")

    assoc = fit.coef[:k]
    assoc_se = fit.se[:k]
    table = pl.DataFrame({"noble": ids}).join(catalogue, on="noble", how="left").join(desc, on="noble", how="left")
    gold = table["gold"].fill_null(0).to_numpy().astype(float)
    seals = (table["violet"].fill_null(0) + table["turquoise"].fill_null(0)).to_numpy().astype(float)
    cost = gold + SEAL_GOLD * seals
    taken = table["taken"].fill_null(0).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        ppc = np.where(cost > 0, assoc / cost, np.nan)
        ppc_se = np.where(cost > 0, assoc_se / cost, np.nan)
    ratio = float(np.nanmean(ppc)) if np.isfinite(ppc).any() else np.nan
    out = table.select("noble", "gold", "violet", "turquoise", "points", "privilege").with_columns(
        pl.Series("cost", cost),
        pl.Series("taken", taken),
        pl.Series("taken_per_game", taken / games if games else np.full(k, np.nan)),
        pl.lit(None, pl.Float64).alias("on_board"),
        table["mean_round"], table["mean_gold_paid"], table["mean_discount"], table["edge_share"],
        pl.Series("points_associated", assoc),
        pl.Series("points_ci_low", fit.low[:k]),
        pl.Series("points_ci_high", fit.high[:k]),
        pl.Series("points_se", assoc_se),
        pl.Series("points_per_cost", ppc),
        pl.Series("ppc_ci_low", ppc - stats.Z95 * ppc_se),
        pl.Series("ppc_ci_high", ppc + stats.Z95 * ppc_se),
        pl.Series("lift", lift_mean.mean),
        pl.Series("lift_ci_low", lift_mean.low),
        pl.Series("lift_ci_high", lift_mean.high),
    )  # fmt: skip
    notes = [
        f"Points associated with a noble: within-game least squares of the final score on {k} noble indicators with "
        f"seat and strategy effects, {fit.rows} seats, standard errors clustered on {fit.clusters} seat-rotation "
        "groups. A description of who took what, not the noble's value: the nobles taken after it and the skill "
        "and position of its takers are in it, so no noble is called under- or overpriced here. Whether a noble "
        "is worth its price is what `palais study nobles` measures (restricted play on paired seeds).",
        f"Cost = gold + {SEAL_GOLD:g} per seal (a convention for the points-per-cost column; the gold actually paid "
        "is in the gold-paid column).",
        "Lift: taker's win share minus the mean of the other seats in the same game (0 = no advantage); an "
        "association too.",
        "On the board: the run's tables do not record the park, so how often a noble was on the board is not known "
        "(36 of 42 are dealt, so about 86% of games with the standard set).",
    ]
    if run.component_note:
        notes.append(run.component_note)
    return NobleReport(nobles=out, mean_ratio=ratio, rows=fit.rows, clusters=fit.clusters, notes=notes)
