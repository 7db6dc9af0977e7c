"""The studies' charts (matplotlib's object API, headless): forest plots of effects with the equivalence band, the
seat chart per skill level and a subject's value against its price. Each returns a Figure; ``save`` writes a PNG.

Like the reports' charts: every colour is named in a legend, titles are wrapped to the figure's width (never cut),
and the PNG is at the reports' print resolution, so a page can show it at its full width and still read it."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from palais_sim.analytics.charts import PNG_DPI, suptitle

COLOURS = {"favoured": "#1a7f37", "disfavoured": "#c0392b", "balanced": "#1f4e79", "undecided": "#888888"}


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    fig.savefig(path, format="png", dpi=PNG_DPI, metadata={"Software": None})
    return path


def _finite(x: object) -> float:
    return float(x) if x is not None and math.isfinite(float(x)) else np.nan  # type: ignore[arg-type]


def forest(rows: list[dict], title: str, margin: float, label=None, xlabel: str = "effect on win share (pp)") -> Figure:
    """One line per row: effect with its interval, coloured by verdict; the band is the equivalence margin."""
    label = label or (lambda r: f"{r['key']}  ({r['strategy']})")
    n = len(rows)
    width = 7.5
    # at least 3 inches: a study of two rows had its rows on the frame under a two-line title and the legend
    fig = _figure(width, max(3.0, 1.5 + 0.26 * max(n, 1)))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    ax.set_ylim(-0.7, n - 0.3)  # half a row of room above the first row and below the last
    eff = np.array([_finite(r["effect"]) for r in rows])
    low = np.array([_finite(r["ci"][0]) for r in rows])
    high = np.array([_finite(r["ci"][1]) for r in rows])
    ax.axvspan(-margin, margin, color="#dde8f3", zorder=0, label=f"balanced band +-{margin:g} pp")
    ax.axvline(0, color="#555", lw=0.8)
    for i, r in enumerate(rows):
        colour = COLOURS.get(r["verdict"], "#888")
        ax.plot([low[i], high[i]], [y[i], y[i]], color=colour, lw=1.6)
        ax.plot([eff[i]], [y[i]], "o", color=colour, ms=4)
    ax.set_yticks(y, [label(r) for r in rows], fontsize=8)
    ax.set_xlabel(xlabel)
    suptitle(fig, title, width)
    fig.legend(handles=_verdict_handles(margin), loc="outside lower center", ncols=3, fontsize=8)  # never over a row
    ax.grid(axis="x", alpha=0.3)
    return fig


def _verdict_handles(margin: float) -> list:
    """The legend of the verdict colours, the balanced band and the interval line."""
    return [Line2D([], [], marker="o", color=c, label=v) for v, c in COLOURS.items()] + [
        Patch(color="#dde8f3", label=f"balanced band +-{margin:g} pp")
    ]


def seat_chart(rows: list[dict], title: str, margin: float) -> Figure:
    """Seat effects of one skill level, one panel per player count; bars coloured by verdict, named in the legend."""
    counts = sorted({r["players"] for r in rows})
    width = max(6.0, 3.2 * max(len(counts), 1) + 1)
    fig = _figure(width, 3.8)
    axes = fig.subplots(1, max(len(counts), 1), squeeze=False)[0]
    for ax, p in zip(axes, counts, strict=False):
        part = sorted((r for r in rows if r["players"] == p), key=lambda r: r["key"])
        x = np.arange(len(part))
        eff = np.array([_finite(r["effect"]) for r in part])
        err = np.abs(np.array([[_finite(r["ci"][0]) for r in part], [_finite(r["ci"][1]) for r in part]]) - eff)
        ax.axhspan(-margin, margin, color="#dde8f3", zorder=0)
        ax.axhline(0, color="#555", lw=0.8)
        ax.bar(x, eff, color=[COLOURS.get(r["verdict"], "#888") for r in part], alpha=0.8)
        ax.errorbar(x, eff, yerr=err, fmt="none", ecolor="#222", capsize=3)
        ax.set_xticks(x, [f"seat {r['key']}" for r in part])
        ax.set_title(f"{p} players", fontsize=9)
        ax.set_ylabel("win share above 1/P (pp)")
    handles = [Patch(color=c, alpha=0.8, label=v) for v, c in COLOURS.items()] + [
        Patch(color="#dde8f3", label=f"balanced band +-{margin:g} pp"),
        Line2D([], [], color="#222", label="95% interval"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8)
    suptitle(fig, title, width)
    return fig


def price_lines(series: dict[str, dict], title: str, margin: float, xlabel: str) -> Figure:
    """A subject's value (pp) at each price (its game's words for it: ``xlabel``) with its interval, one series per
    skill level, each with its fitted line and the price where the line crosses 0 (when it surely slopes down)."""
    width = 6.0
    fig = _figure(width, 4.0)
    ax = fig.add_subplot()
    ax.axhspan(-margin, margin, color="#dde8f3", zorder=0, label=f"balanced band +-{margin:g} pp")
    ax.axhline(0, color="#555", lw=0.8)
    palette = ["#1f4e79", "#c0392b", "#1a7f37", "#8e44ad"]
    for i, (strategy, line) in enumerate(series.items()):
        colour = palette[i % len(palette)]
        pts = line["points"]
        price = np.array([p["price"] for p in pts], dtype=float) + 0.06 * (i - (len(series) - 1) / 2)
        eff = np.array([_finite(p["effect"]) for p in pts])
        err = np.abs(np.array([[_finite(p["ci"][0]) for p in pts], [_finite(p["ci"][1]) for p in pts]]) - eff)
        ax.errorbar(price, eff, yerr=err, fmt="o", color=colour, capsize=3, label=strategy)
        if line.get("slope") is not None:
            xs = np.linspace(price.min() - 0.4, price.max() + 0.4, 20)
            ax.plot(xs, line["intercept"] + line["slope"] * xs, "--", color=colour, lw=1)
        if line.get("fair_price") is not None:
            ax.axvline(line["fair_price"], color=colour, lw=0.8, ls=":")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("value of having it available (pp)")
    suptitle(fig, title, width)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def ladder_chart(
    rows: list[dict], elos: dict[str, float], title: str, margin: float, label: str = "seat {}",
    ylabel: str = "win share above 1/P (pp)",
) -> Figure:  # fmt: skip
    """Each subject's effect (pp, with its interval; a seat's edge, a component's value) against the strength of the
    rung that played it (Elo against the first rung), one panel per player count: does the effect settle as the
    players get stronger? ``label`` names a subject's line from its key."""
    counts = sorted({r["players"] for r in rows})
    width = max(6.0, 3.4 * max(len(counts), 1) + 1) + 1.8  # the legend beside the panels, not over the lines
    fig = _figure(width, 3.8)
    axes = fig.subplots(1, max(len(counts), 1), squeeze=False)[0]
    # a colour and a marker per subject: nine subjects on one ladder need more than a five-colour cycle, which gave
    # two subjects one colour
    palette = [colormaps["tab10"](k) for k in range(10)]
    markers = "osD^vP<>Xh"
    for ax, p in zip(axes, counts, strict=False):
        ax.axhspan(-margin, margin, color="#dde8f3", zorder=0, label=f"balanced band +-{margin:g} pp")
        ax.axhline(0, color="#555", lw=0.8)
        seats = sorted({r["key"] for r in rows if r["players"] == p})
        for i, seat in enumerate(seats):
            part = [r for r in rows if r["players"] == p and r["key"] == seat and r["strategy"] in elos]
            part.sort(key=lambda r: elos[r["strategy"]])
            x = np.array([elos[r["strategy"]] for r in part]) + 4.0 * (i - (len(seats) - 1) / 2)
            eff = np.array([_finite(r["effect"]) for r in part])
            err = np.abs(np.array([[_finite(r["ci"][0]) for r in part], [_finite(r["ci"][1]) for r in part]]) - eff)
            colour, marker = palette[i % len(palette)], markers[i % len(markers)]
            ax.errorbar(x, eff, yerr=err, fmt=f"{marker}-", color=colour, capsize=3, lw=1, ms=4,
                        label=label.format(seat))  # fmt: skip
        ax.set_title(f"{p} players", fontsize=9)
        ax.set_xlabel("rung strength: Elo against the first rung")
        ax.set_ylabel("\n".join(textwrap.wrap(ylabel, 34)))  # a long label would run past the axes' height
        ax.grid(alpha=0.3)
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    suptitle(fig, title, width)
    return fig


def bars(labels: list[str], values: list[float], title: str, xlabel: str) -> Figure:
    width = 6.0
    fig = _figure(width, 1.4 + 0.3 * max(len(labels), 1))
    ax = fig.add_subplot()
    y = np.arange(len(labels))[::-1]
    ax.barh(y, values, color="#1f4e79")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(xlabel)
    suptitle(fig, title, width)
    ax.grid(axis="x", alpha=0.3)
    return fig
