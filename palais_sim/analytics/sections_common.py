"""The report sections every game has: the run (settings, what is missing), the games (length, unfinished), the
win rates (scores, head to head, ratings) and the seat-advantage tables a game's setup section shows."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from palais_sim.analytics import charts, stats, winrates
from palais_sim.analytics.report_format import ci, num, pct, pct_plain, pp, pval, rate_with_ci
from palais_sim.analytics.report_render import Report
from palais_sim.analytics.runs import Run, collect
from palais_sim.core.rule_options import rules_of


def ordered(df: pl.DataFrame, keys: list[str | pl.Expr], descending: list[bool]) -> pl.DataFrame:
    """``df`` sorted on ``keys``, floats compared at 9 decimals: the computations sum in an order that may vary from
    one run of the report to the next, and a tie must not be broken by the last bit of a float."""

    def key(k: str | pl.Expr) -> pl.Expr:
        expr = pl.col(k) if isinstance(k, str) else k
        return expr.round(9) if isinstance(k, pl.Expr) or df.schema[k].is_float() else expr

    if not len(df):
        return df
    return df.sort([key(k) for k in keys], descending=descending, nulls_last=True)


# the run: settings, what is missing, the games --------------------------------------------------------------------
def _setting(value: object) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list | tuple) else str(value)


def _compiled(manifest: dict) -> str:
    sessions = manifest.get("sessions") or []
    seen = {s.get("compiled") for s in sessions}
    if not sessions or None in seen:
        return "unknown (not recorded by the version that ran it)"
    if seen == {True}:
        return "yes (mypyc build)"
    return "no (pure Python)" if seen == {False} else "mixed: some sessions compiled, some not"


def settings_rows(run: Run) -> list[list[str]]:
    m = run.manifest
    s = m.get("settings") or {}
    rules = rules_of(s, run.game.rule_options)
    check = run.check
    comps = m.get("components_name") or (run.components.name if run.components else None)
    planned = m.get("total_games")
    read = check.games_read if check is not None else None
    rotation = s.get("rotate_seats")
    sessions = m.get("sessions") or []
    rows = [
        ["run directory", ", ".join(f"`{d.resolve()}`" for d in run.directories)],
        ["state", f"{m.get('state', 'unknown')} (created {m.get('created', '?')}, updated {m.get('updated', '?')})"],
        ["strategies", ", ".join(f"`{x}`" for x in s.get("strategies", [])) or "?"],
        ["format", f"{s.get('format', '?')}, " + ("seats rotated" if rotation else "no seat rotation")],
        ["players", str(s.get("players", "?"))],
        ["games", f"{read:,} read of {planned:,} planned" if read is not None and planned else str(planned)],
        ["root seed", str(m.get("root_seed", s.get("seed", "?")))],
        ["game", run.game.title],
        *(
            [o.name.replace("_", " "), o.default_text if rules.get(o.name) is None else _setting(rules[o.name])]
            for o in run.game.rule_options
        ),  # fmt: skip
        ["max rounds", str(s.get("max_rounds", "?"))],
        ["component set", f"{comps or s.get('components') or 'standard'} ({m.get('components_hash', '?')})"],
        ["engine", f"{m.get('engine_version', '?')}, compiled: {_compiled(m)}"],
        ["schema, chunk size", f"{m.get('schema_version', '?')}, {m.get('chunk_size', '?')} games per chunk"],
    ]
    if sessions:
        last = sessions[-1]
        rows.append(["sessions", f"{len(sessions)}; last: {last.get('workers')} {last.get('backend')} worker(s), "
                                 f"Python {last.get('python')}"])  # fmt: skip
    return rows


def run_section(rep: Report, run: Run) -> None:
    for problem in run.problems:
        rep.p(f"**Warning:** {problem}")
    if run.component_note:
        rep.p(f"**Note:** {run.component_note}")
    rep.h("Run")
    rep.rows(["setting", "value"], settings_rows(run))
    params = run.manifest.get("strategy_parameters") or {}
    if params:
        rep.rows(
            ["strategy", "parameters"],
            [[f"`{spec}`", ", ".join(f"{k}={v}" for k, v in values.items()) or "none"]
             for spec, values in sorted(params.items())],
        )  # fmt: skip
    rep.data["settings"] = dict(settings_rows(run))
    rep.data["strategy_parameters"] = params
    rep.data["problems"] = run.problems


def game_tables(run: Run) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per player count: games, failed, unfinished and the distribution of game length; and the length histogram.

    Both from per-chunk counts of (players, rounds) added up (``batches.sum_over_chunks``): the length statistics
    are read off the histogram, so memory does not grow with the run."""
    from palais_sim.analytics.batches import sum_over_chunks

    played = pl.col("error").is_null()

    def counts(tables: dict[str, pl.LazyFrame]) -> pl.LazyFrame:
        return (
            tables["games"]
            .group_by("players", "rounds", played.alias("played"))
            .agg(
                pl.len().alias("games"),
                pl.col("finished").sum().alias("finished"),
                (~pl.col("finished")).sum().alias("unfinished"),
            )
        )

    every = sum_over_chunks(run, counts, ["players", "rounds", "played"])
    hist = every.filter(pl.col("played")).select("players", "rounds", "finished", "unfinished")
    rows = []
    for (players,), part in every.group_by(["players"]):
        done = part.filter(pl.col("played")).sort("rounds")
        row = {"players": players, "games": int(part["games"].sum()),
               "failed": int(part.filter(~pl.col("played"))["games"].sum()),
               "unfinished": int(done["unfinished"].sum())}  # fmt: skip
        row.update(_length_stats(done["rounds"].to_numpy(), done["games"].to_numpy()))
        rows.append(row)
    schema = {"players": every.schema["players"], "games": pl.UInt32, "failed": pl.UInt32, "unfinished": pl.UInt32,
              "mean_rounds": pl.Float64, "min_rounds": every.schema["rounds"], "p10_rounds": pl.Float64,
              "median_rounds": pl.Float64, "p90_rounds": pl.Float64, "max_rounds": every.schema["rounds"]}  # fmt: skip
    per = pl.DataFrame(rows, schema=schema, orient="row").sort("players")
    played_n = (per["games"] - per["failed"]).to_numpy().astype(float)
    low, high = stats.wilson(per["unfinished"].to_numpy().astype(float), played_n)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = per["unfinished"].to_numpy() / played_n
    per = per.with_columns(
        pl.Series("unfinished_share", share), pl.Series("unfinished_ci_low", low), pl.Series("unfinished_ci_high", high)
    )
    return per, hist.sort("players", "rounds")


def _length_stats(rounds: np.ndarray, games: np.ndarray) -> dict[str, float | int | None]:
    """Mean, min, 10% and 90% (polars' "nearest"), median and max of game length from its histogram (sorted)."""
    n = int(games.sum())
    if n == 0:
        return dict.fromkeys(("mean_rounds", "min_rounds", "p10_rounds", "median_rounds", "p90_rounds", "max_rounds"))
    cum = np.cumsum(games)

    def at(i: int) -> float:  # the i-th smallest length (0-based)
        return float(rounds[int(np.searchsorted(cum, i, side="right"))])

    def nearest(q: float) -> float:
        pos = (n - 1) * q
        return at(math.floor(pos) + (1 if pos - math.floor(pos) >= 0.5 else 0))

    middle = (n - 1) / 2
    return {
        "mean_rounds": float(rounds.astype(np.float64) @ games) / n,
        "min_rounds": int(rounds[0]),
        "p10_rounds": nearest(0.1),
        "median_rounds": (at(math.floor(middle)) + at(math.ceil(middle))) / 2,
        "p90_rounds": nearest(0.9),
        "max_rounds": int(rounds[-1]),
    }


def games_section(rep: Report, run: Run) -> None:
    per, hist = game_tables(run)
    rep.data["games"] = per
    rep.data["game_length"] = hist
    rep.h("Games")
    rep.p(
        "Game length is the round a game ended in; a game still going after max_rounds is stopped and kept as "
        "unfinished (its scores are those at the stop). Failed games (a strategy raised or answered illegally) are "
        "left out of every table; the share unfinished carries a Wilson 95% interval."
    )
    rep.table(
        per,
        [
            ("players", lambda r: str(r["players"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("failed", lambda r: f"{r['failed']:,}"),
            ("unfinished [95%]", lambda r: f"{r['unfinished']:,} = {pct(r['unfinished_share'])} "
                                           f"{ci(r['unfinished_ci_low'], r['unfinished_ci_high'], pct_plain)}"),
            ("rounds: mean", lambda r: num(r["mean_rounds"], 1)),
            ("min", lambda r: num(r["min_rounds"], 0)),
            ("10%", lambda r: num(r["p10_rounds"], 0)),
            ("median", lambda r: num(r["median_rounds"], 0)),
            ("90%", lambda r: num(r["p90_rounds"], 0)),
            ("max", lambda r: num(r["max_rounds"], 0)),
        ],
    )  # fmt: skip
    if len(hist):
        rep.chart("game_length", lambda: charts.game_length(hist), "Games by the round they ended in; orange = "
                  "stopped unfinished at max_rounds.")  # fmt: skip
    played = int((per["games"] - per["failed"]).sum())
    unfinished = int(per["unfinished"].sum())
    median = ", ".join(f"{num(r['median_rounds'], 0)} rounds at {r['players']} players"
                       for r in per.iter_rows(named=True))  # fmt: skip
    rep.headline.append(
        f"{played:,} games played ({int(per['failed'].sum()):,} failed and left out); {unfinished:,} "
        f"({pct(unfinished / played if played else None)}) stopped unfinished at max_rounds; median length "
        f"{median}."
    )


# the win rates ----------------------------------------------------------------------------------------------------
QUANTILES = {"p05": 0.05, "q25": 0.25, "median": 0.5, "q75": 0.75, "p95": 0.95}


def score_table_scan(run: Run) -> pl.DataFrame:
    """The score table straight from the seat rows (the definition ``score_table`` reproduces from the batches)."""
    total = pl.col("total")
    return collect(
        run.seats()
        .group_by("players", "strategy")
        .agg(
            pl.len().alias("seats"),
            total.mean().alias("mean"),
            total.std().alias("sd"),
            total.min().alias("min"),
            total.quantile(0.05, "linear").alias("p05"),
            total.quantile(0.25, "linear").alias("q25"),
            total.median().alias("median"),
            total.quantile(0.75, "linear").alias("q75"),
            total.quantile(0.95, "linear").alias("p95"),
            total.max().alias("max"),
        )
    ).sort("players", "strategy")


def score_table(run: Run) -> pl.DataFrame:
    """Final scores per (players, strategy): seats, mean, sd, min, percentiles (linear), max.

    From a histogram of the integer scores per cell, summed in the pass of the win rates (``winrates.seat_tables``):
    the quantiles are read off the histogram's cumulative counts, so no pass sorts the seat rows."""
    from palais_sim.analytics.winrates import SCORE_LOW, SCORE_SPAN, score_histogram

    names, counts, histogram = score_histogram(run)
    k = max(1, len(names))
    cells = len(counts) * k
    hist = histogram.counts
    rows = []
    for c, h in enumerate(hist.reshape(cells, SCORE_SPAN)):
        at = np.flatnonzero(h)
        if not len(at):
            continue
        values, n_v = (at + SCORE_LOW).astype(np.float64), h[at]
        n = int(n_v.sum())
        mean = float(values @ n_v) / n
        sd = float(np.sqrt((n_v @ (values - mean) ** 2) / (n - 1))) if n > 1 else None
        cum = np.cumsum(n_v)
        row = {"players": counts[c // k], "strategy": names[c % k], "seats": n, "mean": mean, "sd": sd,
               "min": int(values[0]), "max": int(values[-1])}  # fmt: skip
        for name, q in QUANTILES.items():
            # polars' linear quantile: the sorted values at floor and ceil of q (n - 1), interpolated
            pos = q * (n - 1)
            low, high = values[np.searchsorted(cum, [math.floor(pos), math.ceil(pos)], side="right")]
            row[name] = float(low) if low == high else (pos - math.floor(pos)) * (high - low) + low
        rows.append(row)
    schema = {"players": pl.Int8, "strategy": pl.String, "seats": pl.UInt32, "mean": pl.Float64, "sd": pl.Float64,
              "min": pl.Int16, "p05": pl.Float64, "q25": pl.Float64, "median": pl.Float64, "q75": pl.Float64,
              "p95": pl.Float64, "max": pl.Int16}  # fmt: skip
    return pl.DataFrame(rows, schema=schema, orient="row").select(list(schema)).sort("players", "strategy")


def head_to_head_pairs(h2h: pl.DataFrame) -> pl.DataFrame:
    """Each pair of strategies once, from the side of the one that finished ahead more often."""
    if not len(h2h):
        return h2h
    keep = (pl.col("ahead") > 0.5) | ((pl.col("ahead") == 0.5) & (pl.col("strategy") < pl.col("opponent")))
    return ordered(h2h.filter(keep), ["ahead", "strategy", "opponent"], [True, False, False])


def _rating_cell(r: dict) -> str:
    """A rating with its interval; one the games cannot bound in words (above/below all, unbounded)."""
    from palais_sim.analytics.bradley_terry import LABELS

    if r["rating"] is None:
        return LABELS.get(r["status"], "–")

    def end(x: float | None) -> str:
        return "unbounded" if x is not None and math.isinf(x) else num(x, 0)

    return f"{num(r['rating'], 0)} [{end(r['ci_low'])}, {end(r['ci_high'])}]"


def winrates_section(rep: Report, run: Run) -> None:
    w = winrates.compute(run)
    table = ordered(w.strategies, ["players", "win_rate", "strategy"], [False, True, False])
    ratings = ordered(w.ratings, [winrates.RATING_PLACE, "rating", "strategy"], [False, True, False])
    h2h = w.head_to_head.sort("strategy", "opponent") if len(w.head_to_head) else w.head_to_head
    scores = score_table(run)
    rep.data.update(strategies=table, head_to_head=h2h, ratings=ratings, scores=scores)
    rep.h("Win rates")
    rep.p(
        "Per strategy and player count, best first. Win rate counts a shared win as a share. Edge = win rate minus "
        "the fair share 1/P. Every interval is 95% and clustered on the seat-rotation group (its games share a "
        "setup); p tests the win rate against 1/P with the same standard error, so the win-rate interval excludes "
        "1/P exactly when p < 0.05; p (Holm) corrects it over the table."
    )
    rep.table(
        table,
        [
            ("players", lambda r: str(r["players"])),
            ("strategy", lambda r: f"`{r['strategy']}`"),
            ("games", lambda r: f"{r['games']:,}"),
            ("edge", lambda r: pp(r["edge"])),
            ("win rate [95%]", rate_with_ci),
            ("mean score [95%]",
             lambda r: f"{num(r['mean_score'], 1)} {ci(r['score_ci_low'], r['score_ci_high'], lambda x: num(x, 1))}"),
            ("mean rank [95%]", lambda r: f"{num(r['mean_rank'])} {ci(r['rank_ci_low'], r['rank_ci_high'], num)}"),
            ("p", lambda r: pval(r["p"])),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
        ],
    )  # fmt: skip
    rep.chart("winrates_forest", lambda: charts.forest(table), "Win rates with group-clustered 95% intervals; "
              "red mark = the fair share 1/P.")  # fmt: skip
    rep.h("Scores")
    rep.p("Final scores per strategy and player count: mean and standard deviation, and the distribution's "
          "percentiles.")  # fmt: skip
    rep.table(
        scores,
        [
            ("players", lambda r: str(r["players"])),
            ("strategy", lambda r: f"`{r['strategy']}`"),
            ("seats", lambda r: f"{r['seats']:,}"),
            ("mean", lambda r: num(r["mean"], 1)),
            ("sd", lambda r: num(r["sd"], 1)),
            ("min", lambda r: num(r["min"], 0)),
            ("5%", lambda r: num(r["p05"], 1)),
            ("25%", lambda r: num(r["q25"], 1)),
            ("median", lambda r: num(r["median"], 1)),
            ("75%", lambda r: num(r["q75"], 1)),
            ("95%", lambda r: num(r["p95"], 1)),
            ("max", lambda r: num(r["max"], 0)),
        ],
    )
    if len(scores):
        rep.chart("scores", lambda: charts.score_distribution(scores), "Final scores: box = middle half, red line "
                  "= median, diamond = mean, whiskers = 5th to 95th percentile.")  # fmt: skip
    pairs = head_to_head_pairs(h2h)
    if len(pairs):
        rep.h("Head to head")
        rep.p(
            "Each pair of strategies once, from the side of the one ahead more often: how often it finished ahead "
            "of the other when both sat at the same table, over all player counts (ties count half). Interval 95% "
            "clustered on the group; p tests against 1/2, Holm over the pairs."
        )
        rep.table(
            pairs,
            [
                ("strategy", lambda r: f"`{r['strategy']}`"),
                ("opponent", lambda r: f"`{r['opponent']}`"),
                ("meetings", lambda r: f"{r['pairs']:,}"),
                ("ahead [95%]", lambda r: f"{pct(r['ahead'])} {ci(r['ci_low'], r['ci_high'], pct_plain)}"),
                ("p", lambda r: pval(r["p"])),
                ("p (Holm)", lambda r: pval(r["p_holm"])),
            ],
        )
        rep.chart("head_to_head", lambda: charts.head_to_head(h2h), "Share of meetings in which the row strategy "
                  "finished ahead of the column one.")  # fmt: skip
    if len(ratings):
        rep.h("Ratings (Bradley-Terry, maximum likelihood)")
        rep.table(
            ratings,
            [
                ("strategy", lambda r: f"`{r['strategy']}`"),
                ("rating (Elo) [95%]", _rating_cell),
                ("meetings", lambda r: f"{r['meetings']:,}"),
            ],
        )
        for r in ratings.filter(pl.col("reason").is_not_null()).iter_rows(named=True):
            rep.p(f"`{r['strategy']}`: {r['reason']}.")
    for note in w.notes:
        rep.p(note)
    for players in sorted(set(table["players"].to_list())):
        part = table.filter(pl.col("players") == players)
        if len(part) < 2:
            continue
        best, worst = part.row(0, named=True), part.row(len(part) - 1, named=True)
        significant = part.filter(pl.col("p_holm") < 0.05)
        verdict = (
            f"{len(significant)} of {len(part)} strategies differ from the fair share after Holm correction"
            if len(significant) else "no strategy's edge is significant after Holm correction"
        )  # fmt: skip
        rep.headline.append(
            f"At {players} players `{best['strategy']}` wins most, {rate_with_ci(best)} ({pp(best['edge'])} against "
            f"1/P), `{worst['strategy']}` least, {rate_with_ci(worst)}; {verdict}."
        )


# the seat advantage (each game's setup section) -------------------------------------------------------------------
def seat_tables(rep: Report, seats: pl.DataFrame, balance: pl.DataFrame) -> None:
    """The seat advantage per player count: the balance table, the seat table, its chart and the headlines."""
    rep.h("Seat advantage")
    rep.table(
        balance,
        [
            ("players", lambda r: str(r["players"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("balance index", lambda r: num(r["balance_index"], 3)),
            ("largest gap", lambda r: pp(r["largest_gap"])),
            ("best seat", lambda r: str(r["best_seat"])),
            ("chi-square (df)", lambda r: f"{num(r['chi2'], 1)} ({r['df']})"),
            ("p", lambda r: pval(r["p"])),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
        ],
    )
    rep.table(
        seats,
        [
            ("players", lambda r: str(r["players"])),
            ("seat", lambda r: str(r["seat"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("edge vs 1/P", lambda r: pp(r["edge"])),
            ("win share [95%]", rate_with_ci),
            ("mean score", lambda r: num(r["mean_score"], 1)),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
            ("flagged", lambda r: "**yes**" if r["flagged"] else ""),
        ],
    )
    rep.chart("seats", lambda: charts.seat_bars(seats), "Win share per seat with group-clustered 95% intervals; "
              "dashed = 1/P; orange = flagged (differs from 1/P).")  # fmt: skip
    for r in balance.iter_rows(named=True):
        line = seat_headline(r, seats.filter(pl.col("players") == r["players"]))
        if line:
            rep.headline.append(line)


def seat_headline(balance_row: dict, seats: pl.DataFrame) -> str | None:
    """The summary line of one player count: the seats that are flagged (differ from 1/P by the seat's own Holm
    test and by at least the minimum effect), largest difference first, each with its own p; with none flagged, the
    highest seat share, said to be unflagged. The test of equal shares over all seats comes after."""
    players = balance_row["players"]
    fair = f"against a fair {pct(1 / players)}"
    tail = (f"(balance index {num(balance_row['balance_index'], 3)}, equal shares p (Holm) "
            f"{pval(balance_row['p_holm'])})")  # fmt: skip
    flagged = seats.filter(pl.col("flagged")).sort(pl.col("edge").abs(), descending=True)
    if len(flagged):
        named = "; ".join(f"seat {s['seat']} wins {rate_with_ci(s)} ({pp(s['edge'])}, p (Holm) {pval(s['p_holm'])})"
                          for s in flagged.iter_rows(named=True))  # fmt: skip
        return f"Seat advantage at {players} players: {named}, {fair} {tail}."
    best = seats.filter(pl.col("seat") == balance_row["best_seat"])
    if not len(best):
        return None
    b = best.row(0, named=True)
    return (f"Seat advantage at {players} players: no seat flagged; the highest share is seat {b['seat']}'s, "
            f"{rate_with_ci(b)} {fair} {tail}.")  # fmt: skip


# The report sections of a game that declares none of its own (``GAME.report_sections`` None).
COMMON_SECTIONS = {"winrates": winrates_section}
