"""The reports' charts, drawn with matplotlib's object API (``Figure``, never pyplot's global state), headless.

Each function takes a finished table and returns a ``Figure``; ``save`` writes it as PNG and SVG.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from palais_sim.board import ROOM_CODES, ROOM_KEYS

ROOM_LABEL = dict(zip(ROOM_CODES, ROOM_KEYS, strict=True))


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, directory: Path, name: str) -> dict[str, Path]:
    """Write ``name.png`` and ``name.svg`` into ``directory``; returns the paths by format."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for fmt in ("png", "svg"):
        path = directory / f"{name}.{fmt}"
        if fmt == "svg":
            fig.savefig(path, format=fmt, metadata={"Date": None})
        else:
            fig.savefig(path, format=fmt, dpi=110)
        paths[fmt] = path
    return paths


def forest(strategies: pl.DataFrame) -> Figure:
    """Win rate per (strategy, player count) with its interval; the fair share 1/P marked on every row."""
    df = strategies.sort("players", "win_rate", descending=[False, False])
    n = len(df)
    fig = _figure(7, 1.2 + 0.38 * max(n, 1))
    ax = fig.add_subplot()
    y = np.arange(n)
    rate = df["win_rate"].to_numpy()
    err = np.maximum(np.vstack([rate - df["ci_low"].to_numpy(), df["ci_high"].to_numpy() - rate]), 0)
    ax.errorbar(rate, y, xerr=err, fmt="o", color="#1f4e79", ecolor="#5b8db8", capsize=3)
    fair = df["fair_share"].to_numpy()
    ax.scatter(fair, y, marker="|", s=200, color="#c0392b", label="fair share 1/P", zorder=3)
    labels = [f"{s}  ({p}p, n={g})" for s, p, g in zip(df["strategy"], df["players"], df["seats"], strict=True)]
    ax.set_yticks(y, labels)
    ax.set_xlabel("win rate (shared wins as shares), Wilson 95% interval")
    ax.set_title("Win rate by strategy and player count")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    return fig


def head_to_head(h2h: pl.DataFrame) -> Figure:
    """How often the row strategy finished ahead of the column strategy (ties count half)."""
    names = sorted(set(h2h["strategy"].to_list()) | set(h2h["opponent"].to_list()))
    k = len(names)
    index = {s: i for i, s in enumerate(names)}
    grid = np.full((k, k), np.nan)
    for row in h2h.iter_rows(named=True):
        grid[index[row["strategy"]], index[row["opponent"]]] = row["ahead"]
    size = 2.5 + 0.7 * k
    fig = _figure(size + 1, size)
    ax = fig.add_subplot()
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_xticks(range(k), names, rotation=45, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    ax.set_title("Head to head: share of meetings finishing ahead")
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def noble_value(nobles: pl.DataFrame, mean_ratio: float) -> Figure:
    """Points associated with each noble against its cost, with intervals (a description: no verdicts)."""
    fig = _figure(8, 6)
    ax = fig.add_subplot()
    df = nobles.filter(pl.col("points_associated").is_not_nan())
    cost = df["cost"].to_numpy()
    value = df["points_associated"].to_numpy()
    err = np.maximum(np.vstack([value - df["points_ci_low"].to_numpy(), df["points_ci_high"].to_numpy() - value]), 0)
    flags = [None] * len(df)
    colours = ["#607d8b"] * len(df)
    jitter = (np.arange(len(cost)) % 5 - 2) * 0.04
    ax.errorbar(cost + jitter, value, yerr=err, fmt="none", ecolor="#b0bec5", zorder=1)
    ax.scatter(cost + jitter, value, c=colours, s=28, zorder=2)
    if np.isfinite(mean_ratio) and len(cost):
        xs = np.linspace(0, cost.max() + 0.5, 10)
        ax.plot(xs, mean_ratio * xs, color="#90a4ae", linestyle="--", label=f"mean points per cost ({mean_ratio:.2f})")
    for x, v, name, f in zip(cost + jitter, value, df["noble"], flags, strict=True):
        if f:
            ax.annotate(f"{name} ({f})", (x, v), xytext=(5, 4), textcoords="offset points", fontsize=8)
    ax.set_xlabel("cost (gold + 1 per seal)")
    ax.set_ylabel("points associated with taking it (95% interval)")
    ax.set_title("Nobles: points associated against cost (descriptive)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return fig


def seat_bars(seats: pl.DataFrame) -> Figure:
    """Win share per seat with Wilson intervals, one panel per player count, the fair share dashed."""
    counts = sorted(set(seats["players"].to_list()))
    fig = _figure(3.2 * max(len(counts), 1) + 0.5, 3.6)
    axes = fig.subplots(1, max(len(counts), 1), squeeze=False)[0]
    for ax, players in zip(axes, counts, strict=False):
        df = seats.filter(pl.col("players") == players).sort("seat")
        rate = df["win_rate"].to_numpy()
        err = np.maximum(np.vstack([rate - df["ci_low"].to_numpy(), df["ci_high"].to_numpy() - rate]), 0)
        colours = ["#e67e22" if f else "#5b8db8" for f in df["flagged"].to_list()]
        ax.bar(df["seat"].to_numpy(), rate, yerr=err, capsize=4, color=colours)
        ax.axhline(1 / players, color="#c0392b", linestyle="--", linewidth=1)
        ax.set_xticks(df["seat"].to_numpy())
        ax.set_xlabel("seat")
        ax.set_title(f"{players} players (n={int(df['games'].max())})")
    axes[0].set_ylabel("win share (Wilson 95%)")
    fig.suptitle("Seat advantage: win share per seat against 1/P (dashed); orange = flagged")
    return fig


CASTLE_TITLE = "Start player's win share above 1/P, by where each room stands"


def castle(positions: pl.DataFrame, title: str = CASTLE_TITLE) -> Figure:
    """Nine small 3 x 3 castles, one per room, each cell coloured by the effect when the room stands there."""
    fig = _figure(9, 9.4)
    axes = fig.subplots(3, 3)
    limit = float(np.nanmax(np.abs(positions["effect"].to_numpy()))) if len(positions) else 0.01
    norm = TwoSlopeNorm(vcenter=0, vmin=-max(limit, 1e-6), vmax=max(limit, 1e-6))
    image = None
    for ax, code in zip(axes.flat, ROOM_CODES, strict=True):
        grid = np.full(9, np.nan)
        games = np.zeros(9, dtype=int)
        for row in positions.filter(pl.col("code") == code).iter_rows(named=True):
            grid[row["cell"]] = row["effect"]
            games[row["cell"]] = row["games"]
        image = ax.imshow(grid.reshape(3, 3), cmap="RdBu_r", norm=norm)
        for cell in range(9):
            r, c = divmod(cell, 3)
            if not np.isnan(grid[cell]):
                ax.text(c, r, f"{100 * grid[cell]:+.1f}\nn={games[cell]}", ha="center", va="center", fontsize=7)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{ROOM_LABEL[code]} ({code})", fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="win share above 1/P (cells: percentage points)")
    fig.suptitle(title)
    return fig
