"""The reports' charts, drawn with matplotlib's object API (``Figure``, never pyplot's global state), headless.

Each function takes a finished table and returns a ``Figure``; ``save`` writes it as PNG (at ``PNG_DPI``, enough
to print at the figure's size) and SVG. Every chart says what its colours and marks mean in a legend or a colour
bar, percentages are shown as percentages, and titles fit the figure.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Sequence
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

PNG_DPI = 200  # a 7-inch-wide chart is 1400 pixels: sharp in print and on screen
FONT = {"font.size": 9, "axes.titlesize": 10.5, "axes.labelsize": 9.5, "legend.fontsize": 8.5}
BLUE, LIGHT_BLUE, RED, ORANGE, GREY = "#1f4e79", "#5b8db8", "#c0392b", "#e67e22", "#7f8c8d"


def styled(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """Draw with the charts' font sizes (matplotlib reads them when each text is made)."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs) -> Figure:
        with matplotlib.rc_context(FONT):
            return draw(*args, **kwargs)

    return wrapper


def figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def suptitle(fig: Figure, text: str, width: float) -> None:
    """A figure title wrapped to the figure's width, so it is never cut off."""
    chars = max(30, int(width * 12))
    fig.suptitle("\n".join(textwrap.wrap(text, chars)), fontsize=FONT["axes.titlesize"])


def footnote(fig: Figure, text: str, width: float) -> None:
    """A grey note under the figure, wrapped to its width; the constrained arrangement makes room for it (a
    ``fig.text`` at the bottom edge would sit on the x-axis label)."""
    chars = max(40, int(width * 15))
    fig.supxlabel("\n".join(textwrap.wrap(text, chars, break_on_hyphens=False)), fontsize=8, color=GREY)


def save(fig: Figure, directory: Path, name: str) -> dict[str, Path]:
    """Write ``name.png`` (at ``PNG_DPI``) and ``name.svg`` into ``directory``; returns the paths by format."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {fmt: directory / f"{name}.{fmt}" for fmt in ("png", "svg")}
    fig.savefig(paths["png"], format="png", dpi=PNG_DPI, metadata={"Software": None})
    # The arrangement found for the PNG serves the SVG too (the same figure in inches): frozen, not computed again.
    fig.set_layout_engine("none")
    fig.savefig(paths["svg"], format="svg", metadata={"Date": None})
    return paths


def signed_labels(ticks: Sequence[float], unit: str = "") -> list[str]:
    """Tick labels with a sign and as many decimals as the step between the ticks needs, 0 unsigned: a colour bar
    from -2.5 to +2.5 pp read "+2, +1, +0, +0, -0" with whole numbers, and one of 0 to 10 by 2.5 "+10, +8, +5"."""
    values = sorted(float(t) for t in ticks)
    steps = [b - a for a, b in zip(values, values[1:], strict=False) if b > a]
    step = min(steps) if steps else 1.0
    decimals = 0
    while decimals < 3 and abs(round(step, decimals) - step) > 1e-9 * max(1.0, abs(step)):
        decimals += 1
    suffix = f" {unit}" if unit else ""
    return [("0" if abs(t) < step * 1e-6 else f"{t:+.{decimals}f}") + suffix for t in ticks]


def _pct_axis(axis, digits: int = 0) -> None:
    axis.set_major_formatter(PercentFormatter(xmax=1, decimals=digits))


@styled
def forest(strategies: pl.DataFrame) -> Figure:
    """Win rate per (strategy, player count) with its interval; the fair share 1/P marked on every row."""
    rounded = pl.col("win_rate").round(9)  # ties are not broken by the last bit of a float
    df = strategies.sort(["players", rounded, "strategy"], descending=[True, False, True], nulls_last=True)
    n = len(df)
    width = 7.0
    fig = figure(width, 1.3 + 0.36 * max(n, 1))
    ax = fig.add_subplot()
    y = np.arange(n)
    rate = df["win_rate"].to_numpy()
    err = np.maximum(np.vstack([rate - df["ci_low"].to_numpy(), df["ci_high"].to_numpy() - rate]), 0)
    label = "win rate, 95% interval clustered on rotation groups"  # as the caption says (not Wilson's)
    ax.errorbar(rate, y, xerr=err, fmt="o", color=BLUE, ecolor=LIGHT_BLUE, capsize=3, label=label)
    ax.scatter(df["fair_share"].to_numpy(), y, marker="|", s=220, color=RED, label="fair share 1/P", zorder=3)
    rows = zip(df["strategy"], df["players"], df["seats"], strict=True)
    labels = [f"{s}  ({p} players, n={g:,})" for s, p, g in rows]
    ax.set_yticks(y, labels)
    _pct_axis(ax.xaxis)
    ax.set_xlabel("win rate (a shared win counts as a share)")
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2)  # below the axes: inside ("best") it covered a row's interval
    suptitle(fig, "Win rate by strategy and player count", width)
    return fig


@styled
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
    fig = figure(size + 1.4, size + 0.3)
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
        footnote(fig, "Coloured: differs from 50% (95%, Holm-adjusted over the pairs). Pale, hatched: within noise.",
                 size + 1.4)  # fmt: skip
    ax.set_xticks(range(k), names, rotation=45, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    bar = fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(xmax=1))
    bar.set_label("meetings the row strategy finished ahead (50% = even)")
    suptitle(fig, "Head to head: how often the row strategy finished ahead of the column one", size + 1.4)
    return fig


@styled
def seat_bars(seats: pl.DataFrame) -> Figure:
    """Win share per seat with its 95% interval (clustered on the rotation groups where the run has them, Wilson
    where it has none: the caption says which), one panel per player count, the fair share dashed."""
    counts = sorted(set(seats["players"].to_list()))
    width = max(6.0, 2.9 * max(len(counts), 1) + 0.6)
    fig = figure(width, 3.9)
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
    axes[0].set_ylabel("win share, 95% interval")
    handles = [
        Patch(color=LIGHT_BLUE, label="within its interval of 1/P"),
        Patch(color=ORANGE, label="flagged: differs from 1/P"),
        Line2D([], [], color=RED, linestyle="--", label="fair share 1/P"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3)
    suptitle(fig, "Seat advantage: win share per seat", width)
    return fig


@styled
def game_length(hist: pl.DataFrame) -> Figure:
    """Games by the round they ended in, one panel per player count; games stopped unfinished stacked on top."""
    counts = sorted(set(hist["players"].to_list()))
    width = max(6.0, 3.2 * max(len(counts), 1) + 0.6)
    fig = figure(width, 3.6)
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
        # room around the bars: the tallest stays clear of the frame, the outer ones of the sides
        ax.set_ylim(0, 1.12 * max(float((done + stopped).max()) if len(rounds) else 1.0, 1.0))
        if len(rounds):
            ax.set_xlim(rounds.min() - 0.8, rounds.max() + 0.8)
    axes[0].set_ylabel("games")
    handles = [Patch(color=LIGHT_BLUE, label="finished"), Patch(color=ORANGE, label="stopped at max_rounds")]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)
    suptitle(fig, "Game length: games by the round they ended in", width)
    return fig


@styled
def score_distribution(scores: pl.DataFrame) -> Figure:
    """Final scores per strategy and player count as boxes: median, quartiles, whiskers at the 5th and 95th
    percentiles, the mean as a diamond (from a table of those quantiles, so any run size draws the same way)."""
    df = scores.sort(["players", pl.col("median").round(9), "strategy"], descending=[False, True, False])
    n = len(df)
    width = 7.0
    fig = figure(width, 1.3 + 0.36 * max(n, 1))
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
    suptitle(fig, "Final scores by strategy and player count", width)
    return fig
