"""Assemble the reports: compute, draw, and write Markdown, one self-contained HTML page, or JSON.

A report is a list of blocks (headings, paragraphs, tables, charts) rendered by ``to_markdown`` or ``to_html``;
the JSON holds the full tables. Every table shows N and intervals, effect sizes before p-values.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from palais_sim.analytics import charts, nobles, setup_balance, winrates
from palais_sim.analytics.runs import Run

REPORTS = ("winrates", "nobles", "setup")
FORMATS = ("md", "html", "json")


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


@dataclass
class Report:
    title: str
    blocks: list[tuple[str, object]] = field(default_factory=list)
    data: dict[str, object] = field(default_factory=dict)
    charts: dict[str, dict[str, Path]] = field(default_factory=dict)

    def h(self, text: str) -> None:
        self.blocks.append(("h", text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def table(self, df: pl.DataFrame, columns: list[tuple[str, Callable[[dict], str]]]) -> None:
        rows = [[fmt(row) for _, fmt in columns] for row in df.iter_rows(named=True)]
        self.blocks.append(("table", Table([name for name, _ in columns], rows)))

    def chart(self, name: str, caption: str) -> None:
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


# sections -----------------------------------------------------------------------------------------------------
def winrates_section(rep: Report, run: Run, chart_dir: Path) -> None:
    w = winrates.compute(run)
    rep.data["strategies"] = w.strategies
    rep.data["head_to_head"] = w.head_to_head
    rep.data["ratings"] = w.ratings
    rep.h("Win rates")
    rep.p(
        "Per strategy and player count. Win rate counts a shared win as a share; interval Wilson 95%. Edge = win "
        "rate minus the fair share 1/P. Mean score and rank carry 95% intervals clustered on the seat-rotation "
        "group; p tests the win rate against 1/P (group-clustered), Holm-corrected over the table."
    )
    rep.table(
        w.strategies,
        [
            ("players", lambda r: str(r["players"])),
            ("strategy", lambda r: f"`{r['strategy']}`"),
            ("games", lambda r: f"{r['games']:,}"),
            ("edge", lambda r: pp(r["edge"])),
            ("win rate [95%]", lambda r: f"{pct(r['win_rate'])} {ci(r['ci_low'], r['ci_high'], _pct_plain)}"),
            (
                "mean score [95%]",
                lambda r: f"{num(r['mean_score'], 1)} {ci(r['score_ci_low'], r['score_ci_high'], lambda x: num(x, 1))}",
            ),  # noqa: E501
            ("mean rank [95%]", lambda r: f"{num(r['mean_rank'])} {ci(r['rank_ci_low'], r['rank_ci_high'], num)}"),
            ("p", lambda r: pval(r["p"])),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
        ],
    )
    rep.charts["winrates_forest"] = charts.save(charts.forest(w.strategies), chart_dir, "winrates_forest")
    rep.chart("winrates_forest", "Win rates with Wilson 95% intervals; red mark = fair share 1/P.")
    if len(w.head_to_head):
        rep.h("Head to head")
        rep.p(
            "How often the strategy finished ahead of the opponent when both sat at the same table, over all player "
            "counts (ties count half). Interval 95% clustered on the group; p tests against 1/2, Holm over the pairs."
        )
        rep.table(
            w.head_to_head,
            [
                ("strategy", lambda r: f"`{r['strategy']}`"),
                ("opponent", lambda r: f"`{r['opponent']}`"),
                ("meetings", lambda r: f"{r['pairs']:,}"),
                ("ahead [95%]", lambda r: f"{pct(r['ahead'])} {ci(r['ci_low'], r['ci_high'], _pct_plain)}"),
                ("p", lambda r: pval(r["p"])),
                ("p (Holm)", lambda r: pval(r["p_holm"])),
            ],
        )
        rep.charts["head_to_head"] = charts.save(charts.head_to_head(w.head_to_head), chart_dir, "head_to_head")
        rep.chart("head_to_head", "Share of meetings in which the row strategy finished ahead of the column one.")
    if len(w.ratings):
        rep.h("Ratings (Bradley-Terry, maximum likelihood)")
        rep.table(
            w.ratings,
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


def nobles_section(rep: Report, run: Run, chart_dir: Path) -> None:
    n = nobles.compute(run)
    rep.data["nobles"] = n.nobles
    rep.h("Nobles (descriptive)")
    for note in n.notes:
        rep.p(note)
    table = n.nobles.sort("points_associated", descending=True, nulls_last=True)
    rep.table(
        table,
        [
            ("noble", lambda r: r["noble"] + (f" ({r['privilege']})" if r["privilege"] else "")),
            ("cost", lambda r: num(r["cost"], 0)),
            ("points", lambda r: "–" if r["points"] is None else str(r["points"])),
            ("taken", lambda r: f"{r['taken']:,}"),
            (
                "points associated [95%]",
                lambda r: (
                    f"{num(r['points_associated'], 1)} "
                    f"{ci(r['points_ci_low'], r['points_ci_high'], lambda x: num(x, 1))}"
                ),
            ),
            ("per cost", lambda r: num(r["points_per_cost"])),
            ("win lift [95%]", lambda r: f"{pp(r['lift'])} {ci(r['lift_ci_low'], r['lift_ci_high'], _pp_plain)}"),
            ("round", lambda r: num(r["mean_round"], 1)),
            ("gold paid", lambda r: num(r["mean_gold_paid"], 1)),
        ],
    )
    rep.charts["nobles_value"] = charts.save(charts.noble_value(n.nobles, n.mean_ratio), chart_dir, "nobles_value")
    rep.chart("nobles_value", "Points associated with each noble against its cost (a description, not a value).")


def setup_section(rep: Report, run: Run, chart_dir: Path) -> None:
    s = setup_balance.compute(run)
    rep.data.update(
        seats=s.seats, balance=s.balance, start_gold=s.start_gold, layout_features=s.features,
        room_positions=s.positions, layouts=s.layouts, first_game=s.first_game,
    )  # fmt: skip
    rep.h("Seat advantage")
    rep.table(
        s.balance,
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
        s.seats,
        [
            ("players", lambda r: str(r["players"])),
            ("seat", lambda r: str(r["seat"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("edge vs 1/P", lambda r: pp(r["edge"])),
            ("win share [95%]", lambda r: f"{pct(r['win_rate'])} {ci(r['ci_low'], r['ci_high'], _pct_plain)}"),
            ("mean score", lambda r: num(r["mean_score"], 1)),
            ("p (Holm)", lambda r: pval(r["p_holm"])),
            ("flagged", lambda r: "**yes**" if r["flagged"] else ""),
        ],
    )
    rep.charts["seats"] = charts.save(charts.seat_bars(s.seats), chart_dir, "seats")
    rep.chart("seats", "Win share per seat with Wilson 95% intervals; dashed = 1/P.")
    rep.h("Start gold")
    rep.table(
        s.start_gold,
        [
            ("players", lambda r: str(r["players"])),
            ("start gold", lambda r: str(r["start_gold"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("win share [95%]", lambda r: f"{pct(r['win_rate'])} {ci(r['ci_low'], r['ci_high'], _pct_plain)}"),
            ("mean score", lambda r: num(r["mean_score"], 1)),
            (
                "win share per gold [95%]",
                lambda r: f"{pp(r['slope_per_gold'])} {ci(r['slope_ci_low'], r['slope_ci_high'], _pp_plain)}",
            ),  # noqa: E501
        ],
    )
    rep.h("Room layout")
    flagged = s.features.filter(pl.col("flagged"))
    shown = pl.concat([flagged, s.features.filter(~pl.col("flagged")).head(max(0, 15 - len(flagged)))])
    rep.p(f"{len(flagged)} of {len(s.features)} feature effects flagged. The largest effects (all flagged ones first):")
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
    rep.charts["castle"] = charts.save(charts.castle(s.positions), chart_dir, "castle")
    rep.chart("castle", "For each room, the start player's win share above 1/P (percentage points) by its cell.")
    if len(s.layouts):
        rep.h("Layouts with enough games")
        rep.table(
            s.layouts,
            [
                ("players", lambda r: str(r["players"])),
                ("layout", lambda r: f"`{r['layout']}`" + (" (first game)" if r["first_game"] else "")),
                ("games", lambda r: f"{r['games']:,}"),
                ("seat shares", lambda r: " / ".join(pct(x) for x in r["seat_shares"])),
                ("balance index", lambda r: num(r["balance_index"], 3)),
                ("p (Holm)", lambda r: pval(r["p_holm"])),
            ],
        )
    if len(s.first_game):
        rep.h("First-game layout against random layouts")
        rep.table(
            s.first_game,
            [
                ("players", lambda r: str(r["players"])),
                ("games (first / random)", lambda r: f"{r['first_game_games']:,} / {r['random_games']:,}"),
                (
                    "seat 1 difference [95%]",
                    lambda r: f"{pp(r['seat1_difference'])} {ci(r['seat1_ci_low'], r['seat1_ci_high'], _pp_plain)}",
                ),  # noqa: E501
                (
                    "balance (first / random)",
                    lambda r: f"{num(r['first_game_balance'], 3)} / {num(r['random_balance'], 3)}",
                ),  # noqa: E501
                ("seat shares, first game", lambda r: " / ".join(pct(x) for x in r["first_game_shares"])),
                ("seat shares, random", lambda r: " / ".join(pct(x) for x in r["random_shares"])),
                (
                    "rounds (first / random)",
                    lambda r: f"{num(r['first_game_rounds'], 1)} / {num(r['random_rounds'], 1)}",
                ),  # noqa: E501
                ("p (Holm)", lambda r: pval(r["p_holm"])),
            ],
        )
    for note in s.notes:
        rep.p(note)


SECTIONS = {"winrates": winrates_section, "nobles": nobles_section, "setup": setup_section}


def build(run: Run, which: list[str], out: Path) -> Report:
    rep = Report(title=f"palais-sim report: {run.name}")
    summary = run.summary
    rep.data["run"] = summary
    rep.p(
        f"Run `{summary['run']}`: {summary['games']:,} games ({summary['failed']:,} failed and left out, "
        f"{summary['unfinished']:,} stopped unfinished and kept), {summary['groups']:,} seat-rotation groups, "
        f"{summary['seat_rows']:,} seat rows; player counts {', '.join(map(str, summary['player_counts']))}; "
        f"engine {summary['engine_version']}, components {summary['components_hash']}, "
        f"schema {summary['schema_version']}."
    )
    from palais_sim.analytics.design import confound_warning

    warning = confound_warning(run)
    if warning:
        rep.data["warnings"] = [warning]
        rep.blocks.insert(0, ("p", f"**{warning}**"))
    for name in which:
        SECTIONS[name](rep, run, out / "charts")
    return rep


# rendering ----------------------------------------------------------------------------------------------------
def to_markdown(rep: Report) -> str:
    lines = [f"# {rep.title}", ""]
    for kind, value in rep.blocks:
        if kind == "h":
            lines += [f"## {value}", ""]
        elif kind == "p":
            lines += [str(value), ""]
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


def _inline(text: str) -> str:
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
            body.append(f"<p>{_inline(str(value))}</p>")
        elif kind == "table":
            assert isinstance(value, Table)
            head = "".join(f"<th>{html.escape(h)}</th>" for h in value.headers)
            rows = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in value.rows)
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


def write(run: Run, which: str, out: Path, fmt: str) -> Path:
    """Compute the report(s) ``which`` ('all' or one of REPORTS) and write it in ``fmt`` under ``out``."""
    names = list(REPORTS) if which == "all" else [which]
    out.mkdir(parents=True, exist_ok=True)
    rep = build(run, names, out)
    stem = "report" if which == "all" else which
    path = out / f"{stem}.{fmt}"
    text = {"md": to_markdown, "html": to_html, "json": to_json}[fmt](rep)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
