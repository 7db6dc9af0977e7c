"""Palais Royal's report sections: the nobles (described, not valued) and the setup (seats, start gold, room
layout, the castle picture); its win rates are the common section."""

from __future__ import annotations

import polars as pl

from palais_sim.analytics.report_format import ci, lift_with_ci, num, pct, pp, pp_plain, pval, rate_with_ci
from palais_sim.analytics.report_render import Report
from palais_sim.analytics.runs import Run, collect
from palais_sim.analytics.sections_common import ordered, seat_tables, winrates_section
from palais_sim.games.palais_royal.analysis import charts, nobles, setup_balance


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
            ("win lift [95%]", lift_with_ci),
            ("round", lambda r: num(r["mean_round"], 1)),
            ("gold paid", lambda r: num(r["mean_gold_paid"], 1)),
        ],
    )  # fmt: skip
    caption = ("Points associated with each noble against its cost (a description, not a value), every noble named "
               "and coloured by its privilege; dashed = the mean points per cost.")  # fmt: skip
    rep.chart("nobles_value", lambda: charts.noble_value(table, n.mean_ratio), caption)


def _layouts(run: Run) -> list[str]:
    return sorted(collect(run.games().select(pl.col("layout").unique()))["layout"].to_list())


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
    seat_tables(rep, seats, balance)
    rep.h("Start gold")
    rep.table(
        gold,
        [
            ("players", lambda r: str(r["players"])),
            ("start gold", lambda r: str(r["start_gold"])),
            ("games", lambda r: f"{r['games']:,}"),
            ("win share [95%]", rate_with_ci),
            ("mean score", lambda r: num(r["mean_score"], 1)),
            ("win share per gold [95%]",
             lambda r: f"{pp(r['slope_per_gold'])} {ci(r['slope_ci_low'], r['slope_ci_high'], pp_plain)}"),
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
            ("effect per unit [95%]", lambda r: f"{pp(r['effect'])} {ci(r['ci_low'], r['ci_high'], pp_plain)}"),
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
                 lambda r: f"{pp(r['seat1_difference'])} {ci(r['seat1_ci_low'], r['seat1_ci_high'], pp_plain)}"),
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


# Palais Royal's reports by name (GAME.report_sections names this dict); its "setup" report is about what the setup
# and the seats decide.
SECTIONS = {"winrates": winrates_section, "nobles": nobles_section, "setup": setup_section}
