"""The reports' charts, drawn with matplotlib's object API (``Figure``, never pyplot's global state), headless.

Each function takes a finished table and returns a ``Figure``; ``save`` writes it as PNG (at ``PNG_DPI``, enough
to print at the figure's size) and SVG. Every chart says what its colours and marks mean in a legend or a colour
bar, percentages are shown as percentages, and titles fit the figure.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, PercentFormatter

from palais_sim.games.palais_royal.board import ROOM_CODES, ROOM_KEYS

ROOM_LABEL = dict(zip(ROOM_CODES, ROOM_KEYS, strict=True))
PNG_DPI = 200  # a 7-inch-wide chart is 1400 pixels: sharp in print and on screen
FONT = {"font.size": 9, "axes.titlesize": 10.5, "axes.labelsize": 9.5, "legend.fontsize": 8.5}
BLUE, LIGHT_BLUE, RED, ORANGE, GREY = "#1f4e79", "#5b8db8", "#c0392b", "#e67e22", "#7f8c8d"
# one colour per privilege (tab10 without its grey), grey for nobles without one
PRIVILEGE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]
NO_PRIVILEGE = "#9aa5ad"


def _styled(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """Draw with the charts' font sizes (matplotlib reads them when each text is made)."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs) -> Figure:
        with matplotlib.rc_context(FONT):
            return draw(*args, **kwargs)

    return wrapper


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _title(fig: Figure, text: str, width: float) -> None:
    """A figure title wrapped to the figure's width, so it is never cut off."""
    chars = max(30, int(width * 12))
    fig.suptitle("\n".join(textwrap.wrap(text, chars)), fontsize=FONT["axes.titlesize"])


def save(fig: Figure, directory: Path, name: str) -> dict[str, Path]:
    """Write ``name.png`` (at ``PNG_DPI``) and ``name.svg`` into ``directory``; returns the paths by format."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {fmt: directory / f"{name}.{fmt}" for fmt in ("png", "svg")}
    fig.savefig(paths["png"], format="png", dpi=PNG_DPI, metadata={"Software": None})
    # The layout found for the PNG serves the SVG too (the same figure in inches): frozen, not computed again.
    fig.set_layout_engine("none")
    fig.savefig(paths["svg"], format="svg", metadata={"Date": None})
    return paths


def _pct_axis(axis, digits: int = 0) -> None:
    axis.set_major_formatter(PercentFormatter(xmax=1, decimals=digits))


@_styled
def forest(strategies: pl.DataFrame) -> Figure:
    """Win rate per (strategy, player count) with its interval; the fair share 1/P marked on every row."""
    rounded = pl.col("win_rate").round(9)  # ties are not broken by the last bit of a float
    df = strategies.sort(["players", rounded, "strategy"], descending=[True, False, True], nulls_last=True)
    n = len(df)
    width = 7.0
    fig = _figure(width, 1.3 + 0.36 * max(n, 1))
    ax = fig.add_subplot()
    y = np.arange(n)
    rate = df["win_rate"].to_numpy()
    err = np.maximum(np.vstack([rate - df["ci_low"].to_numpy(), df["ci_high"].to_numpy() - rate]), 0)
    ax.errorbar(rate, y, xerr=err, fmt="o", color=BLUE, ecolor=LIGHT_BLUE, capsize=3, label="win rate, Wilson 95%")
    ax.scatter(df["fair_share"].to_numpy(), y, marker="|", s=220, color=RED, label="fair share 1/P", zorder=3)
    rows = zip(df["strategy"], df["players"], df["seats"], strict=True)
    labels = [f"{s}  ({p} players, n={g:,})" for s, p, g in rows]
    ax.set_yticks(y, labels)
    _pct_axis(ax.xaxis)
    ax.set_xlabel("win rate (a shared win counts as a share)")
    ax.legend(loc="best")
    ax.grid(axis="x", alpha=0.3)
    _title(fig, "Win rate by strategy and player count", width)
    return fig


@_styled
def head_to_head(h2h: pl.DataFrame) -> Figure:
    """How often the row strategy finished ahead of the column strategy (ties count half)."""
    names = sorted(set(h2h["strategy"].to_list()) | set(h2h["opponent"].to_list()))
    k = len(names)
    index = {s: i for i, s in enumerate(names)}
    grid = np.full((k, k), np.nan)
    real = np.ones((k, k), dtype=bool)  # differs from even after Holm's adjustment (every cell if no p_holm column)
    for row in h2h.iter_rows(named=True):
        i, j = index[row["strategy"]], index[row["opponent"]]
        grid[i, j] = row["ahead"]
        if "p_holm" in h2h.columns:
            real[i, j] = row["p_holm"] is not None and row["p_holm"] < 0.05
    spread = np.nanmax(np.abs(grid - 0.5)) if np.isfinite(grid).any() else 0.0
    limit = min(0.5, max(0.1, float(spread)))
    size = 2.8 + 0.75 * k
    fig = _figure(size + 1.4, size + 0.3)
    ax = fig.add_subplot()
    shown = np.where(real, grid, np.nan)
    image = ax.imshow(shown, cmap="RdBu", norm=TwoSlopeNorm(vcenter=0.5, vmin=0.5 - limit, vmax=0.5 + limit))
    for i in range(k):
        for j in range(k):
            if i == j:
                ax.text(j, i, "–", ha="center", va="center", color=GREY)
            elif np.isnan(grid[i, j]):
                continue
            elif real[i, j]:
                dark = abs(grid[i, j] - 0.5) > 0.6 * limit
                ax.text(j, i, f"{100 * grid[i, j]:.0f}%", ha="center", va="center", fontweight="bold",
                        color="white" if dark else "black")  # fmt: skip
            else:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#f4f4f4", hatch="///",
                                       edgecolor="#dddddd", linewidth=0))  # fmt: skip
                ax.text(j, i, f"{100 * grid[i, j]:.0f}%", ha="center", va="center", color=GREY,
                        bbox={"facecolor": "#f4f4f4", "edgecolor": "none", "pad": 1})  # fmt: skip
    if "p_holm" in h2h.columns:
        fig.text(0.02, 0.005, "Coloured: differs from 50% (95%, Holm-adjusted over the pairs). Pale, hatched: "
                 "within noise.", fontsize=8, color=GREY, ha="left", va="bottom")  # fmt: skip
    ax.set_xticks(range(k), names, rotation=45, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    bar = fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(xmax=1))
    bar.set_label("meetings the row strategy finished ahead (50% = even)")
    _title(fig, "Head to head: how often the row strategy finished ahead of the column one", size + 1.4)
    return fig


@_styled
def noble_value(nobles: pl.DataFrame, mean_ratio: float) -> Figure:
    """Points associated with each noble against its cost, with intervals (a description, not a value): every
    noble named and coloured by its privilege."""
    width = 9.0
    fig = _figure(width, 6.8)
    ax = fig.add_subplot()
    df = nobles.filter(pl.col("points_associated").is_not_nan()).sort("cost", "noble")
    cost = df["cost"].to_numpy().astype(float)
    value = df["points_associated"].to_numpy()
    err = np.maximum(np.vstack([value - df["points_ci_low"].to_numpy(), df["points_ci_high"].to_numpy() - value]), 0)
    privileges = sorted({p for p in df["privilege"].to_list() if p})
    colour_of = {p: PRIVILEGE_COLOURS[i % len(PRIVILEGE_COLOURS)] for i, p in enumerate(privileges)}
    colours = [colour_of.get(p, NO_PRIVILEGE) if p else NO_PRIVILEGE for p in df["privilege"].to_list()]
    # spread nobles of the same cost sideways so their intervals do not sit on each other
    jitter = np.zeros(len(cost))
    for c in np.unique(cost):
        idx = np.flatnonzero(cost == c)
        order = idx[np.argsort(value[idx], kind="stable")]
        jitter[order] = (np.arange(len(order)) - (len(order) - 1) / 2) * 0.1
    x = cost + jitter
    ax.errorbar(x, value, yerr=err, fmt="none", ecolor="#c5ced4", zorder=1)
    ax.scatter(x, value, c=colours, s=30, zorder=2, edgecolors="none")
    flags: list[str | None] = [None] * len(df)  # a description: no noble is flagged here
    ringed = [i for i, f in enumerate(flags) if f]
    if ringed:
        ax.scatter(x[ringed], value[ringed], s=120, facecolors="none", edgecolors="black", linewidths=1.2, zorder=3)
    if np.isfinite(mean_ratio) and len(cost):
        xs = np.linspace(0, cost.max() + 0.6, 10)
        ax.plot(xs, mean_ratio * xs, color=GREY, linestyle="--", linewidth=1)
    # every noble named: labels to the right of their cost column, pushed apart vertically where they would touch
    span = (np.nanmax(value) - np.nanmin(value)) if len(value) else 1.0
    gap = 0.028 * (span if np.isfinite(span) and span > 0 else 1.0)
    names = df["noble"].to_list()
    for c in np.unique(cost):
        idx = np.flatnonzero(cost == c)
        order = idx[np.argsort(value[idx], kind="stable")]
        label_y = value[order].astype(float).copy()
        for k in range(1, len(label_y)):
            label_y[k] = max(label_y[k], label_y[k - 1] + gap)
        shift = (label_y - value[order]).mean() if len(order) else 0.0
        label_y -= min(shift, (label_y - value[order]).max() / 2) if len(order) > 1 else 0.0
        label_x = x[order].max() + 0.12
        for i, ly in zip(order, label_y, strict=True):
            flag = flags[i]
            ax.annotate(
                names[i] + (f" ({flag})" if flag else ""), (x[i], value[i]), xytext=(label_x, ly), textcoords="data",
                fontsize=6.5, va="center", fontweight="bold" if flag else "normal",
                arrowprops={"arrowstyle": "-", "color": "#b0bec5", "linewidth": 0.5, "shrinkA": 0, "shrinkB": 2},
            )  # fmt: skip
    handles = [Patch(color=colour_of[p], label=p) for p in privileges]
    handles.append(Patch(color=NO_PRIVILEGE, label="no privilege"))
    if np.isfinite(mean_ratio):
        handles.append(Line2D([], [], color=GREY, linestyle="--", label=f"mean points per cost ({mean_ratio:.2f})"))
    handles.append(Line2D([], [], color="#c5ced4", label="95% interval"))
    if ringed:
        handles.append(Line2D([], [], marker="o", color="black", markerfacecolor="none", linestyle="none",
                              markersize=9, label="flagged (under- or overpriced)"))  # fmt: skip
    ax.legend(handles=handles, loc="upper left", ncols=2, title="privilege", title_fontsize=8.5)
    ax.set_xlabel("cost (gold + 1 per seal)")
    ax.set_ylabel("points associated with taking it (95% interval)")
    ax.grid(alpha=0.3)
    _title(fig, "Nobles: points associated against cost (descriptive)", width)
    return fig


@_styled
def seat_bars(seats: pl.DataFrame) -> Figure:
    """Win share per seat with Wilson intervals, one panel per player count, the fair share dashed."""
    counts = sorted(set(seats["players"].to_list()))
    width = max(6.0, 2.9 * max(len(counts), 1) + 0.6)
    fig = _figure(width, 3.9)
    axes = fig.subplots(1, max(len(counts), 1), squeeze=False, sharey=True)[0]
    for ax, players in zip(axes, counts, strict=False):
        df = seats.filter(pl.col("players") == players).sort("seat")
        rate = df["win_rate"].to_numpy()
        err = np.maximum(np.vstack([rate - df["ci_low"].to_numpy(), df["ci_high"].to_numpy() - rate]), 0)
        colours = [ORANGE if f else LIGHT_BLUE for f in df["flagged"].to_list()]
        ax.bar(df["seat"].to_numpy(), rate, yerr=err, capsize=4, color=colours)
        ax.axhline(1 / players, color=RED, linestyle="--", linewidth=1)
        ax.set_xticks(df["seat"].to_numpy())
        ax.set_xlabel("seat (seat 1 starts)")
        ax.set_title(f"{players} players (n={int(df['games'].max()):,} games)")
        _pct_axis(ax.yaxis)
    axes[0].set_ylabel("win share, Wilson 95%")
    handles = [
        Patch(color=LIGHT_BLUE, label="within its interval of 1/P"),
        Patch(color=ORANGE, label="flagged: differs from 1/P"),
        Line2D([], [], color=RED, linestyle="--", label="fair share 1/P"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3)
    _title(fig, "Seat advantage: win share per seat", width)
    return fig


CASTLE_TITLE = "Start player's win share by where each room stands, relative to the start player's overall share"


@_styled
def castle(positions: pl.DataFrame, centre: float = 0.0, title: str = CASTLE_TITLE) -> Figure:
    """Nine small 3 x 3 castles, one per room, each cell coloured by the start player's win share (percentage
    points above ``centre``, e.g. the start player's overall excess over 1/P) when the room stands there.

    Only the cells that differ from ``centre`` after Holm's adjustment over all cells (the ``distinguishable``
    column of ``setup_balance.finish_positions``) get a colour and a frame; the others are drawn pale and hatched
    with their interval, so chance hot spots of a few hundred games are not painted as findings."""
    width = 9.0
    fig = _figure(width, 9.9)
    axes = fig.subplots(3, 3)
    effect = 100 * (positions["effect"].to_numpy() - centre) if len(positions) else np.array([])
    finite = effect[np.isfinite(effect)]
    limit = max(1.0, float(np.max(np.abs(finite)))) if len(finite) else 1.0  # never a colour scale below 1 pp
    norm = TwoSlopeNorm(vcenter=0, vmin=-limit, vmax=limit)
    has_ci = "distinguishable" in positions.columns
    image = None
    for ax, code in zip(axes.flat, ROOM_CODES, strict=True):
        grid = np.full(9, np.nan)
        games = np.zeros(9, dtype=int)
        half = np.full(9, np.nan)
        real = np.zeros(9, dtype=bool)
        for row in positions.filter(pl.col("code") == code).iter_rows(named=True):
            cell = row["cell"]
            grid[cell] = 100 * (row["effect"] - centre)
            games[cell] = row["games"]
            if has_ci:
                half[cell] = 100 * (row["ci_high"] - row["ci_low"]) / 2
                real[cell] = bool(row["distinguishable"])
            else:
                real[cell] = True
        image = ax.imshow(np.where(real, grid, np.nan).reshape(3, 3), cmap="RdBu_r", norm=norm)
        for cell in range(9):
            r, c = divmod(cell, 3)
            if np.isnan(grid[cell]):
                continue
            spread = f" ± {half[cell]:.1f}" if np.isfinite(half[cell]) else ""
            label = f"{grid[cell]:+.1f}{spread}\nn={games[cell]:,}"
            if real[cell]:
                dark = abs(grid[cell]) > 0.6 * limit
                ax.add_patch(Rectangle((c - 0.47, r - 0.47), 0.94, 0.94, fill=False, edgecolor="black", linewidth=1.6))
                ax.text(c, r, label, ha="center", va="center", fontsize=7.5, fontweight="bold",
                        color="white" if dark else "black")  # fmt: skip
            else:
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#f4f4f4", hatch="///", edgecolor="#dddddd",
                                       linewidth=0))  # fmt: skip
                ax.text(c, r, label, ha="center", va="center", fontsize=7.5, color=GREY,
                        bbox={"facecolor": "#f4f4f4", "edgecolor": "none", "pad": 1})  # fmt: skip
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{ROOM_LABEL[code]} ({code})")
    if image is not None:
        bar = fig.colorbar(image, ax=axes, shrink=0.6, format=FuncFormatter(lambda v, _: f"{v:+.0f} pp"))
        bar.set_label("start player's win share when the room stands in the cell (percentage points)")
    if has_ci:
        shown = int(positions["distinguishable"].sum())
        fig.text(0.02, 0.005, f"Coloured and framed: {shown} of {len(positions)} cells differ from the overall share "
                 "(95%, Holm-adjusted over all cells). Pale, hatched: within noise. Each cell: pp ± 95% half-width, "
                 "games.", fontsize=8, color=GREY, ha="left", va="bottom", wrap=True)  # fmt: skip
    _title(fig, title, width)
    return fig


@_styled
def game_length(hist: pl.DataFrame) -> Figure:
    """Games by the round they ended in, one panel per player count; games stopped unfinished stacked on top."""
    counts = sorted(set(hist["players"].to_list()))
    width = max(6.0, 3.2 * max(len(counts), 1) + 0.6)
    fig = _figure(width, 3.6)
    axes = fig.subplots(1, max(len(counts), 1), squeeze=False)[0]
    for ax, players in zip(axes, counts, strict=False):
        df = hist.filter(pl.col("players") == players).sort("rounds")
        rounds = df["rounds"].to_numpy()
        done, stopped = df["finished"].to_numpy(), df["unfinished"].to_numpy()
        ax.bar(rounds, done, color=LIGHT_BLUE, width=0.85)
        ax.bar(rounds, stopped, bottom=done, color=ORANGE, width=0.85)
        ax.set_xlabel("round the game ended in")
        ax.set_title(f"{players} players (n={int(done.sum() + stopped.sum()):,} games)")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("games")
    handles = [Patch(color=LIGHT_BLUE, label="finished"), Patch(color=ORANGE, label="stopped at max_rounds")]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)
    _title(fig, "Game length: games by the round they ended in", width)
    return fig


@_styled
def score_distribution(scores: pl.DataFrame) -> Figure:
    """Final scores per strategy and player count as boxes: median, quartiles, whiskers at the 5th and 95th
    percentiles, the mean as a diamond (from a table of those quantiles, so any run size draws the same way)."""
    df = scores.sort(["players", pl.col("median").round(9), "strategy"], descending=[False, True, False])
    n = len(df)
    width = 7.0
    fig = _figure(width, 1.3 + 0.36 * max(n, 1))
    ax = fig.add_subplot()
    stats = [
        {"med": r["median"], "q1": r["q25"], "q3": r["q75"], "whislo": r["p05"], "whishi": r["p95"], "mean": r["mean"],
         "fliers": [], "label": f"{r['strategy']}  ({r['players']} players, n={r['seats']:,})"}
        for r in df.iter_rows(named=True)
    ]  # fmt: skip
    ax.bxp(stats, orientation="horizontal", showmeans=True, widths=0.6,
           boxprops={"color": BLUE}, medianprops={"color": RED}, whiskerprops={"color": LIGHT_BLUE},
           capprops={"color": LIGHT_BLUE},
           meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": BLUE, "markersize": 5})  # fmt: skip
    ax.invert_yaxis()
    ax.set_xlabel("final score (points)")
    ax.grid(axis="x", alpha=0.3)
    handles = [
        Patch(facecolor="white", edgecolor=BLUE, label="middle half (25th-75th percentile)"),
        Line2D([], [], color=RED, label="median"),
        Line2D([], [], marker="D", color=BLUE, markerfacecolor="white", linestyle="none", label="mean"),
        Line2D([], [], color=LIGHT_BLUE, label="5th to 95th percentile"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=4)
    _title(fig, "Final scores by strategy and player count", width)
    return fig
