"""Palastgeflüster's report sections: its setup section (the seat balance by player count, how rounds end, ties for
the win); its win rates are the common section."""

from __future__ import annotations

from palais_sim.analytics.report_format import num, pct
from palais_sim.analytics.report_render import Report
from palais_sim.analytics.runs import Run
from palais_sim.analytics.sections_common import seat_tables, winrates_section
from palais_sim.games.palastgefluester.analysis import tables


def setup_section(rep: Report, run: Run) -> None:
    """Palastgeflüster's setup report: the seat balance by player count and how rounds end."""
    s = tables.compute(run)
    seats, balance = s.seats.sort("players", "seat"), s.balance.sort("players")
    rep.data.update(seats=seats, balance=balance, round_ends=s.round_ends, game_length=s.game_length)
    seat_tables(rep, seats, balance)
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


# Palastgeflüster's reports by name (GAME.report_sections names this dict).
SECTIONS = {"winrates": winrates_section, "setup": setup_section}
