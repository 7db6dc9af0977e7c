"""The standard Palastgeflüster component set as an editable TOML with a guide to every field (`palais components
show --game palastgefluester`).

The guide is written from the constants the loader checks against (the persons), so what it calls allowed is what
``components.parse_pg_components`` accepts; the data below it is the packaged ``data/standard.toml`` as it
is, so the file loads back to the standard set (the same content hash).
"""

from __future__ import annotations

from palais_sim.core.toml_guide import commented_guide, guided_data_file
from palais_sim.games.palastgefluester.components import PERSON_IDS, PERSONS


def guide() -> str:
    """What every table and key of a component file means and which values the loader accepts."""
    ids = ", ".join(PERSON_IDS)
    intro = (
        "Palastgeflüster: a component set to edit. Load it with --game palastgefluester --components FILE "
        "(simulate, ladder, match, study seats and persons); `palais components show` wrote it. Every table and key "
        "below is required unless it says optional; an unknown table is an error that names it. The components "
        "column of every run holds the set's content hash: two files with the same data play the same games."
    )
    entries = [
        ("[meta]", "optional. name: any string, the reports show it (default: the file's name); description: text."),
        ("[persons]", f"ids: exactly [{ids}] in this order (the rules give each person its action); names: optional, "
                      f"{PERSONS} non-empty display names in the same order."),
        ("[colours]", "names: one colour per seat (seat 1 plays the first), at least 3 distinct non-empty strings; "
                      "each colour has one card of each person, and the player counts a set allows are 2 up to the "
                      "number of colours."),
        ("[brown]", "copies: how many brown cards of each person the deck holds, a whole number >= 0."),
        ("[kings]", f"persons: the person each king card names, a non-empty list of ids from: {ids}."),
        ("[game]", f"hand_size: cards in a hand, >= 1; different_to_end: a display with this many different persons "
                   f"ends the round, 2 to {PERSONS}; win_points: a table of player count = the points that win at "
                   "it, each count 2 up to the number of colours, each points >= 1 (a count missing here cannot be "
                   "played)."),
    ]  # fmt: skip
    return commented_guide(intro, entries)


def standard_toml() -> str:
    """The guide, then the packaged standard set unchanged (it loads back to the standard set's hash)."""
    return guided_data_file(guide(), "palais_sim.games.palastgefluester")
