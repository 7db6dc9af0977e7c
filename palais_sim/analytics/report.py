"""Assemble the reports: compute, draw, and write Markdown, one self-contained HTML page, or JSON.

A report is a list of blocks (headings, paragraphs, tables, charts) rendered by ``to_markdown`` or ``to_html``;
the JSON holds the full tables and draws no chart. Every report opens with what is missing from the run (if
anything), the run's settings and a short summary of the findings, then the games (length, unfinished) and the
sections asked for. Every table shows N and intervals, effect sizes before p-values, and is sorted on a complete
key, so the same run always gives the same text.
"""

from __future__ import annotations

import base64
import html
import importlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from palais_sim.analytics import charts, nobles, setup_balance, stats, winrates
from palais_sim.analytics.runs import Run, RunError, collect
from palais_sim.games import get_game

REPORTS = ("winrates", "nobles", "setup")
FORMATS = ("md", "html", "json")
MARKER = ".palais-report.json"  # in a report directory: which run it reports on (so two runs never share one)


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


@dataclass
class Report:
    title: str
    chart_dir: Path | None = None  # None: no charts (JSON)
    blocks: list[tuple[str, object]] = field(default_factory=list)
    data: dict[str, object] = field(default_factory=dict)
    charts: dict[str, dict[str, Path]] = field(default_factory=dict)
    headline: list[str] = field(default_factory=list)

    def h(self, text: str) -> None:
        self.blocks.append(("h", text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def table(self, df: pl.DataFrame, columns: list[tuple[str, Callable[[dict], str]]]) -> None:
        rows = [[fmt(row) for _, fmt in columns] for row in df.iter_rows(named=True)]
        self.blocks.append(("table", Table([name for name, _ in columns], rows)))

    def rows(self, headers: list[str], rows: list[list[str]]) -> None:
        self.blocks.append(("table", Table(headers, rows)))

    def chart(self, name: str, draw: Callable[[], Figure], caption: str) -> None:
        """Draw and save a chart (not for JSON, which has no charts) and place it here with its caption."""
        if self.chart_dir is None:
            return
        self.charts[name] = charts.save(draw(), self.chart_dir, name)
        self.blocks.append(("chart", (name, caption)))


# number formats -----------------------------------------------------------------------------------------------
def _bad(x: object) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def pct(x: float | None, digits: int = 1) -> str:
    return "–" if _bad(x) else f"{100 * x:.{digits}f}%"


def pp(x: float | None, digits: int = 1) -> str:
    return "–" if _bad(x) else f"{100 * x:+.{digits}f} pp"


def num(x: float | None, digits: int = 2, sign: bool = False) -> str:
    return "–" if _bad(x) else f"{x:{'+' if sign else ''}.{digits}f}"


def ci(low: float | None, high: float | None, f: Callable[[float | None], str]) -> str:
    return "–" if _bad(low) or _bad(high) else f"[{f(low)}, {f(high)}]"


def pval(p: float | None) -> str:
    if _bad(p):
        return "–"
    return "<1e-10" if p < 1e-10 else f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _pct_plain(x: float | None) -> str:
    return "–" if _bad(x) else f"{100 * x:.1f}"


def _pp_plain(x: float | None) -> str:
    return "–" if _bad(x) else f"{100 * x:+.1f}"


def _clip(x: float | None, low: float, high: float) -> float | None:
    return x if _bad(x) else min(high, max(low, x))


def _lift(r: dict) -> str:
    """A win lift and its interval, cut at -100 and +100 pp (a difference of win shares lies between them)."""
    low, high = _clip(r["lift_ci_low"], -1, 1), _clip(r["lift_ci_high"], -1, 1)
    return f"{pp(r['lift'])} {ci(low, high, _pp_plain)}"


def ordered(df: pl.DataFrame, keys: list[str | pl.Expr], descending: list[bool]) -> pl.DataFrame:
    """``df`` sorted on ``keys``, floats compared at 9 decimals: the computations sum in an order that may vary from
    one run of the report to the next, and a tie must not be broken by the last bit of a float."""

    def key(k: str | pl.Expr) -> pl.Expr:
        expr = pl.col(k) if isinstance(k, str) else k
        return expr.round(9) if isinstance(k, pl.Expr) or df.schema[k].is_float() else expr

    if not len(df):
        return df
    return df.sort([key(k) for k in keys], descending=descending, nulls_last=True)


def _rate(r: dict) -> str:
    return f"{pct(r['win_rate'])} {ci(r['ci_low'], r['ci_high'], _pct_plain)}"


# the run: settings, what is missing, the games -------------------------------------------------------------------
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
    check = run.check
    comps = m.get("components_name") or (run.components.name if run.components else None)
    planned = m.get("total_games")
    read = check.games_read if check is not None else None
    rotation = s.get("rotate_seats")
    sessions = m.get("sessions") or []
    rows = [
        ["run directory", f"`{run.path.resolve()}`"],
        ["state", f"{m.get('state', 'unknown')} (created {m.get('created', '?')}, updated {m.get('updated', '?')})"],
        ["strategies", ", ".join(f"`{x}`" for x in s.get("strategies", [])) or "?"],
        ["format", f"{s.get('format', '?')}, " + ("seats rotated" if rotation else "no seat rotation")],
        ["players", str(s.get("players", "?"))],
        ["games", f"{read:,} read of {planned:,} planned" if read is not None and planned else str(planned)],
        ["root seed", str(m.get("root_seed", s.get("seed", "?")))],
        ["game", get_game(run.game).title],
        *(
            [name.replace("_", " "), unset if s.get(name) is None else _setting(s[name])]
            for name, unset in get_game(run.game).rule_settings.items()
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
    """Per player count: games, failed, unfinished and the distribution of game length; and the length histogram."""
    played = pl.col("error").is_null()
    rounds = pl.col("rounds").filter(played)
    per, hist = pl.collect_all(
        [
            run.scan("games")
            .group_by("players")
            .agg(
                pl.len().alias("games"),
                (~played).sum().alias("failed"),
                (played & ~pl.col("finished")).sum().alias("unfinished"),
                rounds.mean().alias("mean_rounds"),
                rounds.min().alias("min_rounds"),
                rounds.quantile(0.1, "nearest").alias("p10_rounds"),
                rounds.median().alias("median_rounds"),
                rounds.quantile(0.9, "nearest").alias("p90_rounds"),
                rounds.max().alias("max_rounds"),
            ),
            run.games()
            .group_by("players", "rounds")
            .agg(pl.col("finished").sum().alias("finished"), (~pl.col("finished")).sum().alias("unfinished")),
        ],
        engine="streaming",
    )
    per = per.sort("players")
    played_n = (per["games"] - per["failed"]).to_numpy().astype(float)
    low, high = stats.wilson(per["unfinished"].to_numpy().astype(float), played_n)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = per["unfinished"].to_numpy() / played_n
    per = per.with_columns(
        pl.Series("unfinished_share", share), pl.Series("unfinished_ci_low", low), pl.Series("unfinished_ci_high", high)
    )
    return per, hist.sort("players", "rounds")


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
                                           f"{ci(r['unfinished_ci_low'], r['unfinished_ci_high'], _pct_plain)}"),
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


# sections -----------------------------------------------------------------------------------------------------
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


SCORE_LOW, SCORE_SPAN = -(1 << 15), 1 << 16  # the range of the Int16 total column


def score_table(run: Run) -> pl.DataFrame:
    """Final scores per (players, strategy): seats, mean, sd, min, percentiles (linear), max.

    From a histogram of the integer scores per cell, summed over the seat batches the win rates have read: the
    quantiles are read off the histogram's cumulative counts, so no pass sorts the seat rows."""
    from palais_sim.analytics.batches import cached_batches, strategies
    from palais_sim.analytics.runs import noble_ids

    names = strategies(run)
    counts = run.summary["player_counts"]
    k = max(1, len(names))
    cells = len(counts) * k
    hist = np.zeros(cells * SCORE_SPAN, dtype=np.int64)
    for b in cached_batches(run, names, noble_ids(run)):
        cell = np.searchsorted(counts, b.players).astype(np.int64) * k + b.strategy
        hist += np.bincount(cell * SCORE_SPAN + (b.total.astype(np.int64) - SCORE_LOW), minlength=len(hist))
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


def winrates_section(rep: Report, run: Run) -> None:
    w = winrates.compute(run)
    table = ordered(w.strategies, ["players", "win_rate", "strategy"], [False, True, False])
    ratings = ordered(w.ratings, ["rating", "strategy"], [True, False])
    h2h = w.head_to_head.sort("strategy", "opponent") if len(w.head_to_head) else w.head_to_head
    scores = score_table(run)
    rep.data.update(strategies=table, head_to_head=h2h, ratings=ratings, scores=scores)
    rep.h("Win rates")
    rep.p(
        "Per strategy and player count, best first. Win rate counts a shared win as a share; interval Wilson 95%. "
        "Edge = win rate minus the fair share 1/P. Mean score and rank carry 95% intervals clustered on the "
        "seat-rotation group; p tests the win rate against 1/P (group-clustered), Holm-corrected over the table."
    )
    rep.table(
        table,
        [
            ("players", lambda r: str(r["players"])),
            ("strategy", lambda r: f"`{r['strategy']}`"),
            ("games", lambda r: f"{r['games']:,}"),
            ("edge", lambda r: pp(r["edge"])),
            ("win rate [95%]", _rate),
            ("mean score [95%]",
             lambda r: f"{num(r['mean_score'], 1)} {ci(r['score_ci_low'], r['score_ci_high'], lambda x: num(x, 1))}"),
            ("mean rank [95%]", lambda r: f"{num(r['mean_rank'])} {ci(r['rank_ci_low'], r['rank_ci_high'], num)}"),
            ("p", lambda r: pval(r["p"])),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
        ],
    )  # fmt: skip
    rep.chart("winrates_forest", lambda: charts.forest(table), "Win rates with Wilson 95% intervals; red mark = "
              "the fair share 1/P.")  # fmt: skip
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
                ("ahead [95%]", lambda r: f"{pct(r['ahead'])} {ci(r['ci_low'], r['ci_high'], _pct_plain)}"),
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
                (
                    "rating (Elo) [95%]",
                    lambda r: f"{num(r['rating'], 0)} {ci(r['ci_low'], r['ci_high'], lambda x: num(x, 0))}",
                ),
                ("meetings", lambda r: f"{r['meetings']:,}"),
            ],
        )
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
            f"At {players} players `{best['strategy']}` wins most, {_rate(best)} ({pp(best['edge'])} against 1/P), "
            f"`{worst['strategy']}` least, {_rate(worst)}; {verdict}."
        )


def nobles_section(rep: Report, run: Run) -> None:
    n = nobles.compute(run)
    table = ordered(n.nobles, ["points_associated", "noble"], [True, False])
    rep.data["nobles"] = table
    rep.h("Nobles (descriptive)")
    ranked = table.filter(pl.col("points_associated").is_not_nan())
    if len(ranked):
        top, low = ranked.row(0, named=True), ranked.row(len(ranked) - 1, named=True)
        rep.headline.append(
            f"Nobles, described (not valued): the most points associated with taking one: {top['noble']} "
            f"({num(top['points_associated'], 1)}), the fewest: {low['noble']} ({num(low['points_associated'], 1)}); "
            "whether a noble is too cheap is what `palais study nobles` answers."
        )
    for note in n.notes:
        rep.p(note)
    rep.p("Win lift is a difference of win shares, so it lies between -100 and +100 pp; its interval is cut there.")
    rep.table(
        table,
        [
            ("noble", lambda r: r["noble"] + (f" ({r['privilege']})" if r["privilege"] else "")),
            ("cost", lambda r: num(r["cost"], 0)),
            ("points", lambda r: "–" if r["points"] is None else str(r["points"])),
            ("taken", lambda r: f"{r['taken']:,}"),
            ("points associated [95%]",
             lambda r: f"{num(r['points_associated'], 1)} "
                       f"{ci(r['points_ci_low'], r['points_ci_high'], lambda x: num(x, 1))}"),
            ("per cost", lambda r: num(r["points_per_cost"])),
            ("win lift [95%]", _lift),
            ("round", lambda r: num(r["mean_round"], 1)),
            ("gold paid", lambda r: num(r["mean_gold_paid"], 1)),
        ],
    )  # fmt: skip
    caption = ("Points associated with each noble against its cost (a description, not a value), every noble named "
               "and coloured by its privilege; dashed = the mean points per cost.")  # fmt: skip
    rep.chart("nobles_value", lambda: charts.noble_value(table, n.mean_ratio), caption)


def _layouts(run: Run) -> list[str]:
    return sorted(collect(run.games().select(pl.col("layout").unique()))["layout"].to_list())


def _seat_tables(rep: Report, seats: pl.DataFrame, balance: pl.DataFrame) -> None:
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
            ("win share [95%]", _rate),
            ("mean score", lambda r: num(r["mean_score"], 1)),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
            ("flagged", lambda r: "**yes**" if r["flagged"] else ""),
        ],
    )
    rep.chart("seats", lambda: charts.seat_bars(seats), "Win share per seat with Wilson 95% intervals; dashed = 1/P; "
              "orange = flagged (differs from 1/P).")  # fmt: skip
    for r in balance.iter_rows(named=True):
        best = seats.filter((pl.col("players") == r["players"]) & (pl.col("seat") == r["best_seat"]))
        if len(best):
            b = best.row(0, named=True)
            rep.headline.append(
                f"Seat advantage at {r['players']} players: seat {b['seat']} wins {_rate(b)} against a fair "
                f"{pct(1 / r['players'])} (balance index {num(r['balance_index'], 3)}, p (Holm) {pval(r['p_holm'])})."
            )


def setup_section(rep: Report, run: Run) -> None:
    s = setup_balance.compute(run)
    seats = s.seats.sort("players", "seat")
    balance = s.balance.sort("players")
    gold = s.start_gold.sort("players", "start_gold")
    keys = ["flagged", pl.col("effect").abs(), "players", "subject", "feature"]
    features = ordered(s.features, keys, [True, True, False, False, False])
    positions = s.positions.sort("code", "cell") if len(s.positions) else s.positions
    layouts = ordered(s.layouts, ["players", "games", "layout"], [False, True, False])
    first_game = s.first_game.sort("players") if len(s.first_game) else s.first_game
    rep.data.update(
        seats=seats, balance=balance, start_gold=gold, layout_features=features, room_positions=positions,
        layouts=layouts, first_game=first_game,
    )  # fmt: skip
    _seat_tables(rep, seats, balance)
    rep.h("Start gold")
    rep.table(
        gold,
        [
            ("players", lambda r: str(r["players"])),
            ("start gold", lambda r: str(r["start_gold"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("win share [95%]", _rate),
            ("mean score", lambda r: num(r["mean_score"], 1)),
            ("win share per gold [95%]",
             lambda r: f"{pp(r['slope_per_gold'])} {ci(r['slope_ci_low'], r['slope_ci_high'], _pp_plain)}"),
        ],
    )  # fmt: skip
    rep.h("Room layout")
    flagged = features.filter(pl.col("flagged"))
    shown = pl.concat([flagged, features.filter(~pl.col("flagged")).head(max(0, 15 - len(flagged)))])
    rep.p(f"{len(flagged)} of {len(features)} feature effects flagged. The largest effects (all flagged ones first):")
    rep.table(
        shown,
        [
            ("players", lambda r: str(r["players"])),
            ("who", lambda r: r["subject"]),
            ("feature", lambda r: f"`{r['feature']}`"),
            ("seats", lambda r: f"{r['seats']:,}"),
            ("base win share", lambda r: pct(r["base_rate"])),
            ("effect per unit [95%]", lambda r: f"{pp(r['effect'])} {ci(r['ci_low'], r['ci_high'], _pp_plain)}"),
            ("p", lambda r: pval(r["p"])),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
            ("flagged", lambda r: "**yes**" if r["flagged"] else ""),
        ],
    )
    castle(rep, run, positions)
    if len(layouts):
        rep.h("Layouts with enough games")
        rep.table(
            layouts,
            [
                ("players", lambda r: str(r["players"])),
                ("layout", lambda r: f"`{r['layout']}`" + (" (first game)" if r["first_game"] else "")),
                ("games", lambda r: f"{r['games']:,}"),
                ("seat shares", lambda r: " / ".join(pct(x) for x in r["seat_shares"])),
                ("balance index", lambda r: num(r["balance_index"], 3)),
                ("p (Holm)", lambda r: pval(r["p_holm"])),
            ],
        )
    if len(first_game):
        rep.h("First-game layout against random layouts")
        rep.table(
            first_game,
            [
                ("players", lambda r: str(r["players"])),
                ("games (first / random)", lambda r: f"{r['first_game_games']:,} / {r['random_games']:,}"),
                ("seat 1 difference [95%]",
                 lambda r: f"{pp(r['seat1_difference'])} {ci(r['seat1_ci_low'], r['seat1_ci_high'], _pp_plain)}"),
                ("balance (first / random)",
                 lambda r: f"{num(r['first_game_balance'], 3)} / {num(r['random_balance'], 3)}"),
                ("seat shares, first game", lambda r: " / ".join(pct(x) for x in r["first_game_shares"])),
                ("seat shares, random", lambda r: " / ".join(pct(x) for x in r["random_shares"])),
                ("rounds (first / random)",
                 lambda r: f"{num(r['first_game_rounds'], 1)} / {num(r['random_rounds'], 1)}"),
                ("p (Holm)", lambda r: pval(r["p_holm"])),
            ],
        )  # fmt: skip
    for note in s.notes:
        if not note.startswith("Castle picture"):  # the castle's own caption says what it shows
            rep.p(note)


def castle(rep: Report, run: Run, positions: pl.DataFrame) -> None:
    """The castle picture, when the room positions vary in the run; relative to the start player's overall share,
    so a strong seat effect does not paint every cell one colour."""
    first_game = run.components.first_game_layout if run.components else setup_balance.FIRST_GAME_DEFAULT
    layouts = _layouts(run)
    random = [code for code in layouts if code != first_game]
    if len(layouts) < 2 or not len(positions):
        rep.p(
            f"No castle picture: every game of this run was played on the layout `{layouts[0] if layouts else '?'}`, "
            "so where a room stands does not vary (a run with --layout random shows it)."
        )
        return
    room = positions.filter(pl.col("code") == positions["code"][0])
    centre = float((room["effect"] * room["games"]).sum() / room["games"].sum())
    basis = f"{len(random):,} random layouts (the first-game layout left out)" if len(random) < len(layouts) else (
        f"{len(random):,} random layouts"
    )  # fmt: skip
    rep.data["castle_centre"] = centre
    rep.chart(
        "castle",
        lambda: charts.castle(positions, centre),
        f"For each room, the start player's win share when the room stands in that cell, in percentage points "
        f"above (red) or below (blue) the start player's share over all these games ({pp(centre)} against 1/P), "
        f"with its 95% half-width; n = games with the room there. Only the cells that differ from that share "
        f"(Holm-adjusted over all cells) are coloured and framed; pale, hatched cells are within noise "
        f"({int(positions['distinguishable'].sum())} of {len(positions)} differ). From the games on {basis}.",
    )


def palastgefluester_section(rep: Report, run: Run) -> None:
    """Palastgeflüster's setup report: the seat balance by player count and how rounds end."""
    from palais_sim.analytics import palastgefluester

    s = palastgefluester.compute(run)
    seats, balance = s.seats.sort("players", "seat"), s.balance.sort("players")
    rep.data.update(seats=seats, balance=balance, round_ends=s.round_ends, game_length=s.game_length)
    _seat_tables(rep, seats, balance)
    rep.h("How rounds end")
    rep.table(
        s.round_ends,
        [
            ("players", lambda r: str(r["players"])),
            ("ended by", lambda r: str(r["kind"])),
            ("rounds", lambda r: f"{r['rounds']:,}"),
            ("share of rounds", lambda r: pct(r["share"])),
            ("mean cards in the round", lambda r: num(r["mean_cards"], 1)),
        ],
    )
    rep.table(
        s.game_length,
        [
            ("players", lambda r: str(r["players"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("mean rounds", lambda r: num(r["mean_rounds"], 1)),
            ("cards per round", lambda r: num(r["cards_per_round"], 1)),
            ("own colour played (plays again)", lambda r: pct(r["own_colour_share"])),
        ],
    )
    rep.data["tiebreaks"] = s.tiebreaks
    rep.h("Ties for the win: the rules' tie-break and the variant's")
    rep.table(
        s.tiebreaks,
        [
            ("players", lambda r: str(r["players"])),
            ("finished games", lambda r: f"{r['games']:,}"),
            ("ties for the win", lambda r: f"{r['ties']:,} ({pct(r['ties'] / r['games'] if r['games'] else None)})"),
            ("still shared: display (rules)", lambda r: f"{r['shared_display']:,}"),
            ("still shared: noted (variant)", lambda r: f"{r['shared_noted']:,}"),
            ("the rules differ", lambda r: f"{r['rules_differ']:,} "
                                           f"({pct(r['rules_differ'] / r['games'] if r['games'] else None)} of games)"),
        ],
    )  # fmt: skip
    for r in s.tiebreaks.iter_rows(named=True):
        if r["games"]:
            rep.headline.append(
                f"Ties for the win at {r['players']} players: {pct(r['ties'] / r['games'])} of games; the variant's "
                f"tie-break names another winner in {pct(r['rules_differ'] / r['games'])} of games."
            )
    for (players,), part in s.round_ends.group_by(["players"], maintain_order=True):
        shares = ", ".join(f"{r['kind']} {pct(r['share'])}" for r in part.iter_rows(named=True))
        rep.headline.append(f"Rounds at {players} players end by: {shares}.")
    for note in s.notes:
        rep.p(note)


# Each game's reports (a game's "setup" report is about what its setup and seats decide); a game names its own in
# GAME.report_sections.
SECTIONS = {"winrates": winrates_section, "nobles": nobles_section, "setup": setup_section}
PALASTGEFLUESTER_SECTIONS = {"winrates": winrates_section, "setup": palastgefluester_section}


def game_sections(run: Run) -> dict:
    """The report sections of the run's game, by name."""
    module, _, attribute = get_game(run.game).report_sections.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _setting(value: object) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list | tuple) else str(value)


def sections_of(run: Run, which: str) -> list[str]:
    """The report names ``which`` stands for in the run's game; raises RunError for one the game has not."""
    available = game_sections(run)
    if which == "all":
        return list(available)
    if which not in available:
        raise RunError(f"a {run.game} run has no {which} report; its reports: {', '.join(available)} or all")
    return [which]


def build(run: Run, which: list[str], out: Path, draw: bool = True) -> Report:
    """The report on ``run``: the run (what is missing, settings), a summary, the games, then ``which`` sections.

    ``draw=False`` (JSON) makes no chart."""
    rep = Report(title=f"palais-sim report: {run.name}", chart_dir=out / "charts" if draw else None)
    summary = run.summary
    rep.data["run"] = summary
    run_section(rep, run)
    head = len(rep.blocks)  # the summary goes here, once the sections have found what it says
    games_section(rep, run)
    for name in which:
        game_sections(run)[name](rep, run)
    summary_blocks: list[tuple[str, object]] = [("h", "Summary"), ("list", list(rep.headline))]
    rep.blocks[head:head] = summary_blocks
    from palais_sim.analytics.design import confound_warning

    warning = confound_warning(run)
    if warning:  # a design that cannot separate strategies from seats: said first, and no verdict depends on it
        rep.data["warnings"] = [warning]
        rep.blocks.insert(0, ("p", f"**{warning}**"))
    rep.data["summary"] = list(rep.headline)
    return rep


# rendering ----------------------------------------------------------------------------------------------------
def to_markdown(rep: Report) -> str:
    lines = [f"# {rep.title}", ""]
    for kind, value in rep.blocks:
        if kind == "h":
            lines += [f"## {value}", ""]
        elif kind == "p":
            lines += [str(value), ""]
        elif kind == "list":
            lines += [f"- {item}" for item in value] + [""]  # type: ignore[union-attr]
        elif kind == "table":
            assert isinstance(value, Table)
            lines.append("| " + " | ".join(value.headers) + " |")
            lines.append("|" + "|".join("---" for _ in value.headers) + "|")
            lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in value.rows]
            lines.append("")
        elif kind == "chart":
            name, caption = value  # type: ignore[misc]
            lines += [f"![{caption}](charts/{name}.png)", "", f"*{caption}*", ""]
    return "\n".join(lines)


CSS = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th { background: #f0f3f6; } td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; } figure img { max-width: 100%; } figcaption { color: #555; font-size: 0.9em; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""


def inline_html(text: str) -> str:
    """Markdown's `code` and **bold** of a line as HTML (the rest escaped)."""
    out = html.escape(text)
    parts = out.split("`")
    out = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
    parts = out.split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


def to_html(rep: Report) -> str:
    body = [f"<h1>{html.escape(rep.title)}</h1>"]
    for kind, value in rep.blocks:
        if kind == "h":
            body.append(f"<h2>{html.escape(str(value))}</h2>")
        elif kind == "p":
            body.append(f"<p>{inline_html(str(value))}</p>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{inline_html(str(item))}</li>" for item in value) + "</ul>")  # type: ignore[union-attr]
        elif kind == "table":
            assert isinstance(value, Table)
            head = "".join(f"<th>{html.escape(h)}</th>" for h in value.headers)
            rows = "".join("<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in row) + "</tr>" for row in value.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif kind == "chart":
            name, caption = value  # type: ignore[misc]
            data = base64.b64encode(rep.charts[name]["png"].read_bytes()).decode("ascii")
            body.append(
                f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>"
            )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(rep.title)}</title>'
        f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _clean(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def to_json(rep: Report) -> str:
    data: dict[str, object] = {}
    for key, value in rep.data.items():
        data[key] = value.to_dicts() if isinstance(value, pl.DataFrame) else value
    data["notes"] = [str(v) for k, v in rep.blocks if k == "p"]
    data["charts"] = {name: {fmt: str(p) for fmt, p in paths.items()} for name, paths in rep.charts.items()}
    return json.dumps(_clean(data), indent=1, allow_nan=False)


def _marker_run(directory: Path) -> str | None:
    try:
        return json.loads((directory / MARKER).read_text(encoding="utf-8")).get("run")
    except (OSError, ValueError, AttributeError):
        return None


def default_out(run: Run, base: Path = Path("reports")) -> Path:
    """``reports/<run name>/``, or ``<run name>-2``, ``-3``, ... when that directory holds the report of another run
    of the same name (a different path), so reports of two runs never overwrite each other."""
    source = str(run.path.resolve())
    number = 1
    while True:
        candidate = base / (run.name if number == 1 else f"{run.name}-{number}")
        if not candidate.exists() or _marker_run(candidate) == source:
            return candidate
        if candidate.is_dir() and not any(candidate.iterdir()):
            return candidate
        number += 1


def write(run: Run, which: str, out: Path, fmt: str) -> Path:
    """Compute the report(s) ``which`` ('all' or one of REPORTS) and write it in ``fmt`` under ``out``."""
    names = sections_of(run, which)
    out.mkdir(parents=True, exist_ok=True)
    rep = build(run, names, out, draw=fmt != "json")
    stem = "report" if which == "all" else which
    path = out / f"{stem}.{fmt}"
    text = {"md": to_markdown, "html": to_html, "json": to_json}[fmt](rep)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    marker = {"run": str(run.path.resolve()), "created": run.manifest.get("created")}
    (out / MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")
    return path
