"""Palais Royal's report charts: the nobles' points against their cost, and the castle picture (where each room
stands against the start player's win share). Drawn like every report chart (``palais_sim.analytics.charts``)."""

from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from palais_sim.analytics.charts import GREY, figure, footnote, signed_labels, styled, suptitle
from palais_sim.games.palais_royal.board import ROOM_CODES, ROOM_KEYS

ROOM_LABEL = dict(zip(ROOM_CODES, ROOM_KEYS, strict=True))
# one colour per privilege (tab10 without its grey), grey for nobles without one
PRIVILEGE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]
JITTER_HALF_WIDTH = 0.25  # how far nobles of one cost spread sideways, in cost units
NO_PRIVILEGE = "#9aa5ad"


@styled
def noble_value(nobles: pl.DataFrame, mean_ratio: float) -> Figure:
    """Points associated with each noble against its cost, with intervals (a description, not a value): every
    noble named and coloured by its privilege."""
    width = 9.0
    fig = figure(width, 6.8)
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
        # within +-0.25 of the cost: ten nobles of one cost spread by 0.1 reached 0.45 to the right, and their labels
        # (right of the column) then covered the next column's points
        step = min(0.1, JITTER_HALF_WIDTH * 2 / max(len(order) - 1, 1))
        jitter[order] = (np.arange(len(order)) - (len(order) - 1) / 2) * step
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
    suptitle(fig, "Nobles: points associated against cost (descriptive)", width)
    return fig


CASTLE_TITLE = "Start player's win share by where each room stands, relative to the start player's overall share"


@styled
def castle(positions: pl.DataFrame, centre: float = 0.0, title: str = CASTLE_TITLE) -> Figure:
    """Nine small 3 x 3 castles, one per room, each cell coloured by the start player's win share (percentage
    points above ``centre``, e.g. the start player's overall excess over 1/P) when the room stands there.

    Only the cells that differ from ``centre`` after Holm's adjustment over all cells (the ``distinguishable``
    column of ``setup_balance.finish_positions``) get a colour and a frame; the others are drawn pale and hatched
    with their interval, so chance hot spots of a few hundred games are not painted as findings."""
    width = 9.0
    fig = figure(width, 9.9)
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
        bar = fig.colorbar(image, ax=axes, shrink=0.6)
        # only the ticks on the scale: one beyond its ends (+-6 pp for a largest cell of 5) stretched the bar's axis
        # past the two-slope scale, which maps it to nothing, and the bar was drawn empty
        ticks = [tick for tick in bar.get_ticks() if -limit <= tick <= limit]
        bar.set_ticks(ticks, labels=signed_labels(ticks, "pp"))
        bar.set_label("start player's win share when the room stands in the cell (percentage points)")
    if has_ci:
        shown = int(positions["distinguishable"].sum())
        footnote(fig, f"Coloured and framed: {shown} of {len(positions)} cells differ from the overall share (95%, "
                 "Holm-adjusted over all cells). Pale, hatched: within noise. Each cell: pp ± 95% half-width, games.",
                 width)  # fmt: skip
    suptitle(fig, title, width)
    return fig
