"""The standard component set as an editable TOML with a guide to every field (`palais components show`).

The guide is written from the same constants the loader checks against (privileges, card kinds, edge fields, room
codes), so what it calls allowed is what ``components.parse_components`` accepts; the data below it is the packaged
``data/standard.toml`` as it is, so the file loads back to the standard set (the same content hash).
"""

from __future__ import annotations

from palais_sim.core.toml_guide import commented_guide, guided_data_file
from palais_sim.games.palais_royal.board import EDGE_FIELDS, PARK_SIZE, ROOM_CODES
from palais_sim.games.palais_royal.components import CARD_KEYS, PRIVILEGES


def guide() -> str:
    """What every table and key of a component file means and which values the loader accepts."""
    intro = (
        "Palais Royal: a component set to edit. Load it with --components FILE (simulate, ladder, match, the studies, "
        "balance nobles); `palais components show` wrote it. Every table and key below is required unless it says "
        "optional; an unknown table or key is an error that names it. The components column of every run holds the "
        "set's content hash: two files with the same data play the same games."
    )
    entries = [
        ("[meta]", "optional. name: any string, the reports show it (default: the file's name); description: text; "
                   "reconstructed: true or false (the standard values are a reconstruction: the manual's rules page, "
                   "'The default component set')."),
        ("[park]", f"x2_fields: the park fields that count double, a list of distinct field numbers 0-{PARK_SIZE - 1} "
                   "(row by row, 0 top left, row 5 nearest the castle) on an edge row "
                   f"({', '.join(str(f) for f in sorted(EDGE_FIELDS))}); [] for none."),
        ("[layouts]", "optional. first_game: the layout of --layout first-game (default PMS/KGD/COB), three rows of "
                      f"three room codes separated by '/', each of {''.join(ROOM_CODES)} once: G gate, P parade "
                      "ground, S stairway, M mint, K king, D madame, O office, B back entrance, C cardinal."),
        ("[cards]", "copies: how many of each privilege card the deck holds, a whole number >= 1 (optional: 4)."),
        ("[cards.prices]", f"the gold it costs to play each of the {len(CARD_KEYS)} privilege cards, a whole number "
                           f">= 0, one key each: {', '.join(CARD_KEYS)}."),
        ("[[nobles]]", f"one table per noble tile, at least {PARK_SIZE} (one per park field). id: a unique "
                       "non-empty string (N01, ...); gold: its price, >= 0; violet and turquoise: the seals of each "
                       "colour it needs (Madame's violet, the King's turquoise), >= 0; points: its points at the "
                       f"end, >= 0; privilege: optional, one of {', '.join(PRIVILEGES)}."),
    ]  # fmt: skip
    return commented_guide(intro, entries)


def standard_toml() -> str:
    """The guide, then the packaged standard set unchanged (it loads back to the standard set's hash)."""
    return guided_data_file(guide(), "palais_sim.games.palais_royal")
