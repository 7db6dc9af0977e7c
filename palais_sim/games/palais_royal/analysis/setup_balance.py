"""Palais Royal's setup: is it fair? Seat advantage, the effect of start gold, and what the room layout does to seats
and strategies.

- Seats: win share per seat against the fair share 1/P (the 95% interval and the test against 1/P with one standard
  error clustered on the seat-rotation group, like the rest), a Wald chi-square test of equal shares per player count
  with the seats' joint group-clustered covariance, and the balance index ``1 - (largest - smallest seat share)``.
  A run whose seats and strategies are aligned (no rotation) gets no seat verdict: see ``analytics.design``.
- Start gold: win share and score per start gold; in the standard rules start gold is fixed by the seat, which the
  report says rather than pretending to separate the two.
- Layout features (distance from the Gate to each room, the Stairway to the Office and Mint, what stands next to the
  Stairway, which room is in the centre): the change in each seat's and each strategy's win share per unit of the
  feature (for a yes/no feature: with minus without), clustered on the seat-rotation group, Holm-corrected over the
  whole table and flagged when also at least ``min_effect`` in size. These are screened one at a time, and the
  features are correlated (the Gate in the centre shortens every distance from it): a flag here is a lead, and
  ``palais study layouts`` fits them jointly in mirror play.
- Per-layout seat shares where a layout has enough games, and the first-game layout against random ones.
- The castle picture: for each room and each of the 9 cells, the start player's win share above the fair share when
  that room stands in that cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics import stats
from palais_sim.analytics.batches import seat_batches, strategies
from palais_sim.analytics.design import SeatStrategies, confounded_player_counts
from palais_sim.analytics.runs import Run, collect_all
from palais_sim.analytics.seat_balance import clustered_seat_test, finish_seats, seat_groups, seat_table
from palais_sim.games.palais_royal.analysis.setup_sums import ROOM_NAME, SetupSums, StartGoldSlopes, layout_features
from palais_sim.games.palais_royal.board import ROOM_CODES

__all__ = ["clustered_seat_test", "finish_seats", "seat_groups", "seat_table"]  # the seats part, as before the split

FIRST_GAME_DEFAULT = "PMS/KGD/COB"


@dataclass
class SetupReport:
    seats: pl.DataFrame
    balance: pl.DataFrame  # per player count: chi-square, balance index
    start_gold: pl.DataFrame
    features: pl.DataFrame
    positions: pl.DataFrame  # room, cell, games, effect (start player's share above fair), its interval, Holm p
    layouts: pl.DataFrame
    first_game: pl.DataFrame
    notes: list[str] = field(default_factory=list)


def feature_names() -> list[str]:
    names = [f"gate_to_{ROOM_NAME[c]}" for c in ROOM_CODES if c != "G"]
    names += ["stairway_to_office", "stairway_to_mint"]
    names += [f"{ROOM_NAME[c]}_next_to_stairway" for c in ROOM_CODES if c != "S"]
    names += [f"{ROOM_NAME[c]}_in_centre" for c in ROOM_CODES]
    return names


def setup_sums(run: Run, first_game: str) -> SetupSums:
    """The one pass over the seat rows every setup table is finished from (``setup_sums``): a batch of whole groups
    at a time, summed into accumulators of fixed size, so memory does not grow with the run."""
    names = strategies(run)
    sums = SetupSums(run.summary["player_counts"], len(names), first_game, feature_names())
    seen = SeatStrategies(len(names)) if "_confounded" not in run.__dict__ else None
    for b in seat_batches(run, names):
        sums.add(b)
        if seen is not None:
            seen.add(b)
    if seen is not None:  # the design check reads the same seats: keep its answer instead of a pass of its own
        seen.store(run)
    return sums


def start_gold_table(base: pl.LazyFrame) -> pl.LazyFrame:
    return (
        base.group_by("players", "start_gold")
        .agg(
            pl.col("n").sum().alias("games"),
            pl.col("win").sum().alias("wins"),
            pl.col("total").sum(),
            pl.col("seat").n_unique().alias("seats"),
        )
        .with_columns((pl.col("total") / pl.col("games")).alias("mean_score"))
        .drop("total")
    )


def start_gold_by_group(base: pl.LazyFrame) -> pl.LazyFrame:
    return base.group_by("players", "group", "start_gold").agg(pl.col("n").sum(), pl.col("win").sum())


def finish_start_gold(df: pl.DataFrame, by_group: pl.DataFrame | StartGoldSlopes) -> tuple[pl.DataFrame, list[str]]:
    """The start gold table; its slope per gold from the per-group rows (``start_gold_by_group``) or their sums."""
    df = df.sort("players", "start_gold")
    n = df["games"].to_numpy().astype(float)
    wins = df["wins"].to_numpy()
    low, high = stats.wilson(wins, n)
    slopes = {}
    if isinstance(by_group, StartGoldSlopes):
        for (players,), part in df.group_by(["players"]):
            one, se_one, p_one = by_group.slope(int(players), part.rename({"games": "n", "wins": "win"}))
            slopes[players] = (one, one - stats.Z95 * se_one, one + stats.Z95 * se_one, p_one)
    for (players,), part in [] if isinstance(by_group, StartGoldSlopes) else by_group.group_by(["players"]):
        slope, se, p = stats.cluster_slopes(
            part["start_gold"].to_numpy(), part["n"].to_numpy(), part["win"].to_numpy(), part["group"].to_numpy()
        )
        slopes[players] = (slope[0], slope[0] - stats.Z95 * se[0], slope[0] + stats.Z95 * se[0], p[0])
    players = df["players"].to_list()
    out = pl.DataFrame(
        {
            "players": df["players"], "start_gold": df["start_gold"], "games": df["games"],
            "win_rate": wins / n, "ci_low": low, "ci_high": high, "mean_score": df["mean_score"],
            "slope_per_gold": [slopes.get(p, (np.nan,) * 4)[0] for p in players],
            "slope_ci_low": [slopes.get(p, (np.nan,) * 4)[1] for p in players],
            "slope_ci_high": [slopes.get(p, (np.nan,) * 4)[2] for p in players],
        }
    )  # fmt: skip
    notes = []
    if (df["seats"] <= 1).all():
        notes.append(
            "Start gold is fixed by the seat in this run (seat k starts with k-1 gold), so its effect is the seat "
            "effect: the slope per gold is the seat trend, not a separate cause. A run varying start gold would "
            "separate them."
        )
    return out, notes


def feature_effects(
    cells: dict[str, pl.DataFrame], min_effect: float, feats: pl.DataFrame | None = None
) -> pl.DataFrame:
    names = feature_names()
    if feats is None:
        layouts = pl.concat([df.select("layout") for df in cells.values()]).unique()
        feats = layout_features(layouts.lazy()).collect()
    table = stats.TableSlopes(feats.select(names).to_numpy())  # one row per layout
    index = feats.select("layout", pl.int_range(pl.len(), dtype=pl.Int64).alias("_layout"))
    rows = []
    for subject, df in cells.items():
        coded = df.join(index, on="layout", how="left")
        for key, part in coded.partition_by(["players", subject], as_dict=True).items():
            players, who = key
            slope, se, p = table.slopes(
                part["_layout"].to_numpy(), part["n"].to_numpy(), part["win"].to_numpy(), part["group"].to_numpy()
            )
            base = part["win"].sum() / part["n"].sum()
            for j, name in enumerate(names):
                rows.append({"players": players, "subject": f"{subject} {who}", "feature": name,
                             "effect": slope[j], "ci_low": slope[j] - stats.Z95 * se[j],
                             "ci_high": slope[j] + stats.Z95 * se[j], "base_rate": base,
                             "seats": int(part["n"].sum()), "p": p[j]})  # fmt: skip
    return feature_table(rows, min_effect)


def feature_table(rows: list[dict], min_effect: float) -> pl.DataFrame:
    """The feature effects' rows with Holm over all of them and the flag."""
    schema = {"players": pl.Int8, "subject": pl.String, "feature": pl.String, "effect": pl.Float64,
              "ci_low": pl.Float64, "ci_high": pl.Float64, "base_rate": pl.Float64, "seats": pl.Int64,
              "p": pl.Float64}  # fmt: skip
    out = pl.DataFrame(rows, schema=schema, orient="row")
    p_holm = stats.holm(out["p"].to_numpy()) if len(out) else np.array([])
    return (
        out.with_columns(pl.Series("p_holm", p_holm, dtype=pl.Float64))
        .with_columns(((pl.col("p_holm") < 0.05) & (pl.col("effect").abs() >= min_effect)).alias("flagged"))
        .sort(pl.col("effect").abs(), descending=True, nulls_last=True)
    )


def position_table(base: pl.LazyFrame) -> pl.LazyFrame:
    """Per (players, layout): games and the start player's wins."""
    return base.filter(pl.col("seat") == 1).group_by("players", "layout").agg(pl.col("n").sum(), pl.col("win").sum())


def finish_positions(df: pl.DataFrame, first_game: str) -> pl.DataFrame:
    """Room x cell effects, from the random layouts only when there are any (the first-game layout would weigh
    heavily on its own nine cells).

    ``effect`` is the start player's win share above 1/P when the room stands in the cell; ``centre`` the same over
    all these games (every game puts each room in one cell, so it is the same for every room). ``ci_low``/``ci_high``
    bound ``effect - centre`` (Wald, 95%), and ``distinguishable`` says whether the cell differs from the centre after
    Holm's adjustment over all the room x cell comparisons: with about 100 games a cell its standard error is about
    5 pp, and among 81 cells a few would look hot by chance alone.
    """
    random_only = df.filter(pl.col("layout") != first_game)
    cells = layout_features((random_only if len(random_only) else df).lazy()).collect()
    excess = pl.col("win") - pl.col("n") / pl.col("players").cast(pl.Float64)
    parts = []
    for c in ROOM_CODES:
        parts.append(
            cells.group_by(pl.col(f"cell_{c}").alias("cell"))
            .agg(pl.col("n").sum().alias("games"), pl.col("win").sum().alias("wins"), excess.sum().alias("excess"))
            .with_columns(pl.lit(ROOM_NAME[c]).alias("room"), pl.lit(c).alias("code"))
        )
    out = pl.concat(parts).with_columns((pl.col("excess") / pl.col("games")).alias("effect"))
    total = cells.select(excess.sum().alias("excess"), pl.col("n").sum().alias("games")).row(0, named=True)
    centre = total["excess"] / total["games"] if total["games"] else float("nan")
    share = pl.col("wins") / pl.col("games")
    out = out.with_columns(
        pl.lit(centre, dtype=pl.Float64).alias("centre"),
        (share * (1 - share) / pl.col("games")).sqrt().alias("se"),
    ).with_columns(
        (pl.col("effect") - pl.col("centre") - stats.Z95 * pl.col("se")).alias("ci_low"),
        (pl.col("effect") - pl.col("centre") + stats.Z95 * pl.col("se")).alias("ci_high"),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (out["effect"].to_numpy() - centre) / out["se"].to_numpy()
    p = np.where(np.isfinite(z), stats.two_sided_p(np.nan_to_num(z)), np.nan)
    out = out.with_columns(pl.Series("p_holm", stats.holm(p), dtype=pl.Float64)).with_columns(
        (pl.col("p_holm") < 0.05).fill_null(False).alias("distinguishable")
    )
    return out.select(
        "room", "code", pl.col("cell").cast(pl.Int8), "games", "effect", "centre", "se", "ci_low", "ci_high",
        "p_holm", "distinguishable",
    ).sort("room", "cell")  # fmt: skip


def layout_table(base: pl.LazyFrame) -> pl.LazyFrame:
    return base.group_by("players", "layout", "seat").agg(pl.col("n").sum(), pl.col("win").sum())


def finish_layouts(df: pl.DataFrame, min_games: int, first_game: str, top: int = 20) -> pl.DataFrame:
    per = (
        df.with_columns((pl.col("win") / pl.col("n")).alias("share"))
        .sort("seat")
        .group_by("players", "layout")
        .agg(
            pl.col("n").max().alias("games"),
            pl.col("share").alias("seat_shares"),
            pl.col("win").alias("wins"),
        )
        .filter(pl.col("games") >= min_games)
        .sort("games", "layout", descending=[True, False])
        .head(top)
    )
    rows = []
    for r in per.iter_rows(named=True):
        shares = np.array(r["seat_shares"])
        chi2, p = stats.chisquare_equal(np.array(r["wins"]))
        rows.append({"players": r["players"], "layout": r["layout"], "first_game": r["layout"] == first_game,
                     "games": r["games"], "seat_shares": shares.tolist(),
                     "balance_index": 1 - float(shares.max() - shares.min()), "p": p})  # fmt: skip
    schema = {"players": pl.Int8, "layout": pl.String, "first_game": pl.Boolean, "games": pl.Int64,
              "seat_shares": pl.List(pl.Float64), "balance_index": pl.Float64, "p": pl.Float64}  # fmt: skip
    out = pl.DataFrame(rows, schema=schema, orient="row")
    return out.with_columns(pl.Series("p_holm", stats.holm(out["p"].to_numpy()) if len(out) else [], pl.Float64))


def first_game_table(base: pl.LazyFrame, first_game: str) -> pl.LazyFrame:
    return first_game_totals(base.with_columns((pl.col("layout") == first_game).alias("first_game")))


def first_game_totals(base: pl.LazyFrame) -> pl.LazyFrame:
    """Per (players, first game or not, seat): rows, wins and mean rounds."""
    return (
        base.group_by("players", "first_game", "seat")
        .agg(pl.col("n").sum(), pl.col("win").sum(), pl.col("rounds").sum())
        .with_columns((pl.col("rounds") / pl.col("n")).alias("rounds"))
    )


def finish_first_game(df: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for (players,), part in df.group_by(["players"]):
        fg = part.filter(pl.col("first_game")).sort("seat")
        rnd = part.filter(~pl.col("first_game")).sort("seat")
        if fg.is_empty() or rnd.is_empty():
            continue
        a, b = fg["win"].to_numpy(), rnd["win"].to_numpy()
        na, nb = float(fg["n"][0]), float(rnd["n"][0])
        sa, sb = a / na, b / nb
        table = np.vstack([a, b])
        p = float(sstats.chi2_contingency(table).pvalue) if (table.sum(0) > 0).all() else np.nan
        d = sa[0] - sb[0]
        se = np.sqrt(sa[0] * (1 - sa[0]) / na + sb[0] * (1 - sb[0]) / nb)
        rows.append({"players": players, "first_game_games": int(na), "random_games": int(nb),
                     "first_game_shares": sa.tolist(), "random_shares": sb.tolist(),
                     "first_game_balance": 1 - float(sa.max() - sa.min()),
                     "random_balance": 1 - float(sb.max() - sb.min()),
                     "seat1_difference": d, "seat1_ci_low": d - stats.Z95 * se, "seat1_ci_high": d + stats.Z95 * se,
                     "first_game_rounds": float(fg["rounds"][0]), "random_rounds": float(rnd["rounds"][0]),
                     "p": p})  # fmt: skip
    if not rows:
        return pl.DataFrame()
    out = pl.DataFrame(rows).sort("players")
    return out.with_columns(pl.Series("p_holm", stats.holm(out["p"].to_numpy())))


@stats.one_blas_thread
def compute(run: Run, min_effect: float = 0.01, min_layout_games: int = 100) -> SetupReport:
    first_game = run.components.first_game_layout if run.components else FIRST_GAME_DEFAULT
    sums = setup_sums(run, first_game)  # one pass over the seats; the tables below are finished from its sums
    base = sums.totals().lazy()
    gold, fg, pos, lay = collect_all(
        [
            start_gold_table(base), first_game_totals(base), position_table(sums.layouts(seat=1).lazy()),
            layout_table(sums.layouts(min_games=min_layout_games).lazy()),
        ]
    )  # fmt: skip
    confounded = confounded_player_counts(run)
    seat_df, balance = finish_seats(sums.seats.table(), min_effect, sums.seats, confounded)
    gold_df, notes = finish_start_gold(gold, sums.gold)
    features = feature_table(sums.feature_rows(strategies(run)), min_effect)
    if confounded:
        aligned = pl.col("players").is_in(confounded)
        features = features.with_columns(
            pl.when(aligned).then(None).otherwise(pl.col("p_holm")).alias("p_holm"),
            (pl.col("flagged") & ~aligned).alias("flagged"),
        )
    notes += [
        f"Seats: 95% intervals and p against the fair share 1/P with one standard error clustered on the "
        f"seat-rotation group, Holm-corrected; flagged when also at least {min_effect:.0%} from it. The chi-square is "
        "a Wald test of equal seat shares with their joint group-clustered covariance. Balance index = 1 - (largest "
        "- smallest seat share). In a run of different strategies a seat's share mixes the seat with who sat in it; "
        "`palais study seats` measures the seats in mirror play.",
        f"Layout features: change in win share per unit of the feature (yes/no features: with minus without), "
        f"screened one at a time (the features are correlated, so one takes credit for another: `palais study "
        f"layouts` fits them jointly), errors clustered on the seat-rotation group, Holm over {len(features)} tests; "
        f"flagged when also at least {min_effect:.0%} per unit.",
        f"Castle picture: the start player's win share above 1/P when the room stands in that cell (random "
        "layouts only, when the run has any). "
        f"First-game layout: {first_game}.",
    ]
    return SetupReport(
        seats=seat_df,
        balance=balance,
        start_gold=gold_df,
        features=features,
        positions=finish_positions(pos, first_game),
        layouts=finish_layouts(lay, min_layout_games, first_game),
        first_game=finish_first_game(fg),
        notes=notes,
    )
