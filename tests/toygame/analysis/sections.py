"""The toy race's report sections (``GAME.report_sections``): the common win rates, and its own seat table."""

from __future__ import annotations

import polars as pl

from palais_sim.analytics.report_format import num, pct
from palais_sim.analytics.report_render import Report
from palais_sim.analytics.runs import Run
from palais_sim.analytics.sections_common import winrates_section


def seats_section(rep: Report, run: Run) -> None:
    """Win share, mean position and spy cards by seat and player count (what the seating decides)."""
    table = (
        run.seats()
        .group_by("players", "seat")
        .agg(pl.len().alias("games"), pl.col("win").mean(), pl.col("total").mean(), pl.col("peeks").mean())
        .sort("players", "seat")
        .collect()
    )
    rep.data["seat_balance"] = table
    rep.h("Seats")
    rep.rows(
        ["players", "seat", "games", "win share", "mean position", "mean peeks"],
        [[str(r["players"]), str(r["seat"]), f"{r['games']:,}", pct(r["win"]), num(r["total"], 1), num(r["peeks"])]
         for r in table.iter_rows(named=True)],
    )  # fmt: skip
    if table.height:
        first = table.filter(pl.col("seat") == 1)
        rep.headline.append(f"Seat 1 wins {pct(first['win'].mean())} of the toy races.")


SECTIONS = {"winrates": winrates_section, "setup": seats_section}
