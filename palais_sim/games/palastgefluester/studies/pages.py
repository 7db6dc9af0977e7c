"""Palastgeflüster's component studies on the published index (``study.publish``): its study pages facet
(``GAME.study_pages``). The overview names its studies on the index (its persons study and its seats study, told
apart from Palais Royal's by the game their ``study.json`` records) and gives every person its verdict at each skill
level, a table per player count; the undecided table gets those cells' shares. It has no balance search.

It reads only what the index's directory keeps (``study.json``), so it works on a published copy as on the studies'
own directory.
"""

from __future__ import annotations

from palais_sim.games.palastgefluester.components import PERSON_IDS, load_pg_components
from palais_sim.study import index_page
from palais_sim.study.index_page import NONE, Source, cell_text, superscript

SUBJECTS = ("person",)  # the rows of a persons study: one person each
NAME = "palastgefluester"  # the game whose pages these are (its studies record it as "game")
TITLE = "Palastgeflüster"


def mine(studies: list[Source]) -> list[Source]:
    """The studies this game played (the game their document records)."""
    return [s for s in studies if s.data.get("game") == NAME]


def _person_studies(studies: list[Source]) -> list[Source]:
    return [s for s in mine(studies) if any(r.get("subject") in SUBJECTS for r in s.rows())]


def person_names(source: Source) -> dict[str, str]:
    """Person id -> display name of the component set a study used (the ids themselves if it cannot be read)."""
    try:
        names = load_pg_components((source.data.get("rules") or {}).get("components")).person_names
    except (OSError, ValueError):
        return {}
    return dict(zip(PERSON_IDS, names, strict=True))


def person_table(studies: list[Source]) -> list[str]:
    """A table per player count of the persons studies: a row per person (the game's order, then any other a study
    played), a column per skill level, each cell marked with its study."""
    lines: list[str] = []
    numbers: dict[str, int] = {}

    def mark(source: Source) -> str:
        return superscript(numbers.setdefault(source.name, len(numbers) + 1))

    for players, group in index_page.by_players(_person_studies(studies)):
        levels = index_page.merged_levels([index_page.study_levels(s) for s in group])
        rows = index_page.chosen_rows(group, SUBJECTS)
        played = dict.fromkeys(str(r["key"]) for s in group for r in s.rows() if r.get("subject") in SUBJECTS)
        keys = [p for p in PERSON_IDS if p in played] + [k for k in played if k not in PERSON_IDS]
        names = person_names(group[0])
        body = []
        for key in keys:
            cells = [names.get(key, key)]
            for level in levels:
                found = rows.get(("person", key, level))
                cells.append(NONE if found is None else f"{cell_text(found[0])} {mark(found[1])}")
            body.append(cells)
        where = f" ({players} players)" if players else ""
        lines += [f"### Every person{where}", ""]
        lines += index_page.markdown_table(["person", *[f"`{level}`" for level in levels]], body)
        by_name = {s.name: s for s in group}
        marks = ", ".join(f"{superscript(n)} {by_name[name].link}" for name, n in numbers.items() if name in by_name)
        lines += [
            "Each cell: the effect of playing the person whenever possible against never (pp of the focus "
            f"player's win share, 95% interval), marked with the study it comes from: {marks}. **favoured**: a strong "
            f"person, **disfavoured**: a weak one. {NONE}: no study played it at that level.",
            "",
        ]
    return lines


def overview(studies: list[Source]) -> list[str]:
    """The game's studies on the index, then its persons table ([] when none of the studies is its)."""
    own = mine(studies)
    if not own:
        return []
    links = ", ".join(s.link for s in own)
    return [f"## {TITLE}", "", f"{TITLE}'s studies: {links}.", "", *person_table(studies)]


def table_shares(studies: list[Source]) -> list[list[str]]:
    """The undecided share of the persons tables' cells per level (per player count)."""
    return index_page.subject_shares(mine(studies), SUBJECTS, f"{TITLE}: every person")


class StudyPages:
    """Palastgeflüster's study pages facet (``GAME.study_pages``; :class:`palais_sim.core.game.StudyPages`)."""

    subjects = SUBJECTS
    # the columns its studies read beyond the common ones (``study.compact``): the tie-break and the tie column under
    # either; the round_ends table no study reads
    evidence_columns = {"games": ("tiebreak",), "seats": ("noted", "display"), "round_ends": ()}

    def overview(self, studies: list[Source], searches: list[Source]) -> list[str]:
        return overview(studies)

    def overview_shares(self, studies: list[Source]) -> list[list[str]]:
        return table_shares(studies)

    def search_summary(self, name: str, data: dict) -> list[str] | None:
        return None  # no balance search of its own


PAGES = StudyPages()
