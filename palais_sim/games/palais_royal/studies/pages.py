"""Palais Royal's component studies on the published index (``study.publish``): its study pages facet
(``GAME.study_pages``). The overview gives every noble and privilege kind its verdict at each skill level, whether it
settled on a strength ladder and what the balance search proposes for it; the undecided table gets its cells' shares;
a balance search gets its summary (the proposed prices and the validation).

The subjects are every noble of the component set each nobles study used, read through the game
(``GAME.load_components`` and ``GAME.taken_ids``, the set's order), then every privilege kind the studies played; a
noble no study played is listed with a dash at every level. It reads only what the index's directory keeps
(``study.json``, ``balance.json``), so it works on a published copy as on the studies' own directory.
"""

from __future__ import annotations

from palais_sim.core.games import get_game
from palais_sim.study.index_page import (
    NONE,
    Source,
    cell_text,
    chosen_rows,
    markdown_table,
    merged_levels,
    rungs_text,
    settling,
    study_levels,
    subject_shares,
    superscript,
)

SUBJECTS = ("noble", "privilege")  # the rows of a nobles study: one noble, or every noble of a privilege kind
NAME = "palais-royal"  # the game whose pages these are
SEARCH = "balance-nobles"  # the study name in a balance search's balance.json


def component_nobles(source: Source) -> tuple[list[str], str | None]:
    """The nobles of the component set a study used, in the set's order; with a note when the set cannot be read or
    is no longer the one the study played ([] and None for a study that is not one of Palais Royal's)."""
    game = get_game(NAME)  # through the registry: this module is named by the game object it would import
    if str(source.data.get("study")) not in game.studies:
        return [], None
    where = (source.data.get("rules") or {}).get("components")
    try:
        comps = game.load_components(where)
    except (OSError, ValueError) as exc:
        return [], f"{source.name}: its component set {where} could not be read ({' '.join(str(exc).split())})"
    ids = [str(i) for i in game.taken_ids(comps)]
    played = source.data.get("components_hash")
    if played and getattr(comps, "hash", played) != played:
        return ids, (
            f"{source.name}: the component set {where or 'standard'} holds other nobles or prices today "
            f"(hash `{comps.hash}`) than the study played (`{played}`)"
        )
    return ids, None


def subjects(studies: list[Source]) -> tuple[list[tuple[str, str]], list[str]]:
    """(subject, key) in the table's order: every noble of the studies' component sets (set order), any other noble
    a study played, then every privilege kind the studies played; and the notes on sets that could not be read."""
    nobles: dict[str, None] = {}
    notes = []
    for source in studies:
        ids, note = component_nobles(source)
        nobles.update(dict.fromkeys(ids))
        if note:
            notes.append(note)
    rows = [r for source in studies for r in source.rows()]
    nobles.update(dict.fromkeys(str(r["key"]) for r in rows if r.get("subject") == "noble"))
    kinds = dict.fromkeys(str(r["key"]) for r in rows if r.get("subject") == "privilege")
    return [("noble", k) for k in nobles] + [("privilege", k) for k in kinds], notes


def change_text(change: dict) -> str:
    """A balance search's change in words: the whole price's (seals and points too), or the gold of a search that
    moved gold only."""
    if change.get("change"):
        return str(change["change"])
    gold, new = change.get("gold"), change.get("new_gold")
    return "unchanged" if gold == new else f"{gold} -> {new} gold"


def _not_balanced(change: dict, unbalanced: dict) -> bool:
    """The search found no balancing price: named in ``unbalanced``, or (a search that recorded no ``balanced``) still
    on a side after it."""
    if change["noble"] in unbalanced:
        return True
    return "balanced" not in change and change.get("now") not in (None, "fair")


def proposals(searches: list[Source]) -> dict[str, tuple[str, Source]]:
    """Per noble: what the balance search proposes (its last change, the later search by name if several)."""
    found: dict[str, tuple[str, Source]] = {}
    for source in searches:
        unbalanced = source.data.get("unbalanced") or {}
        last = {str(c["noble"]): c for c in source.data.get("changes") or [] if "noble" in c}
        for noble, c in last.items():
            if _not_balanced(c, unbalanced):
                nearest = f"nearest: {change_text(c)}, still {c.get('now')}"
                text = f"not balanced within the limits ({c.get('was')}; {nearest})"
            else:
                text = f"{change_text(c)} (was {c.get('was')})"
            found[noble] = (text, source)
        for noble in unbalanced:
            if noble not in last:
                found[str(noble)] = ("not balanced within the limits", source)
    return found


def _price(row: dict) -> str:
    seals = row.get("seals")
    if row.get("gold") is None or not seals:
        return ""
    points = row.get("points")
    worth = "" if points is None else f", {points} point{'s' * (points != 1)}"
    return f" ({row['gold']} gold, {seals[0]}+{seals[1]} seals{worth})"


def subject_table(studies: list[Source], searches: list[Source]) -> list[str]:
    """The index's first section: one table per player count of the nobles studies, a row per subject, a column
    per skill level, then whether it settled and the balance proposal; each cell marked with its study."""
    mine = [s for s in studies if any(r.get("subject") in SUBJECTS for r in s.rows())]
    if not mine:
        return []
    lines: list[str] = []
    numbers: dict[str, int] = {}

    def mark(source: Source) -> str:
        return superscript(numbers.setdefault(source.name, len(numbers) + 1))

    counts = sorted({s.data.get("players") for s in mine}, key=lambda p: (p is None, p))
    for players in counts:
        group = [s for s in mine if s.data.get("players") == players]
        levels = merged_levels([[lv for lv in study_levels(s) if _plays(s, lv)] for s in group])
        keys, notes = subjects(group)
        rows = chosen_rows(group, SUBJECTS)
        settled = settling(group, SUBJECTS)
        proposed = proposals([s for s in searches if s.data.get("players") == players])
        title = "Every noble and privilege" + (f" ({players} players)" if players else "")
        lines += [f"## {title}", ""]
        body = []
        for subject, key in keys:
            first = next((rows[(subject, key, lv)][0] for lv in levels if (subject, key, lv) in rows), {})
            name = key if subject == "noble" else f"{key} (privilege)"
            cells = [f"{name}{_price(first)}"]
            for lv in levels:
                found = rows.get((subject, key, lv))
                cells.append(NONE if found is None else f"{cell_text(found[0])} {mark(found[1])}")
            entry = settled.get((subject, key))
            cells.append(NONE if entry is None else f"{entry[0].get('state')} {mark(entry[1])}")
            proposal = proposed.get(key) if subject == "noble" else None
            cells.append(NONE if proposal is None else f"{proposal[0]} {mark(proposal[1])}")
            body.append(cells)
        lines += markdown_table(["subject", *[f"`{lv}`" for lv in levels], "settled", "balance proposal"], body)
        lines += _legend(numbers, group + searches, settled, proposed, notes)
    return lines


def _plays(source: Source, level: str) -> bool:
    return any(r.get("strategy") == level and r.get("subject") in SUBJECTS for r in source.rows())


def _legend(
    numbers: dict[str, int], sources: list[Source], settled: dict, proposed: dict, notes: list[str]
) -> list[str]:
    """The table's footnotes: which study each mark names, how a cell was chosen, what the last two columns read."""
    by_name = {s.name: s for s in sources}
    marks = ", ".join(f"{superscript(n)} {by_name[name].link}" for name, n in numbers.items() if name in by_name)
    lines = [
        f"Each cell: the verdict at that skill level with the effect and its interval (pp of win share; the study's "
        f"own level, 95% or the repeated interval of its looks), marked with the study it comes from: {marks}. "
        f"{NONE}: no study played it at that level. Where several studies played a subject at one level, the cell "
        "shows the one with more groups (on a tie, the narrower interval).",
        "",
    ]
    if settled:
        ladders = {source.name: source for _entry, source in settled.values()}
        rungs = "; ".join(f"{superscript(numbers[n])} {rungs_text(s)}" for n, s in ladders.items() if n in numbers)
        lines += [
            "**settled**: the effect's difference between the top two rungs of a strength ladder lies within the "
            "margin; **moving**: surely beyond it; **not settled**: neither yet; **no climb**: the ladder's rungs do "
            "not get stronger (its top rung not surely stronger than its first), so nothing settles on it. "
            f"{NONE}: no ladder played it. Rungs: {rungs}.",
            "",
        ]
    else:
        lines += [f"settled: {NONE} everywhere, no strength ladder among these studies.", ""]
    if not proposed:
        lines += [f"balance proposal: {NONE} everywhere, no balance search at this player count.", ""]
    else:
        searches = {source.name: source for _text, source in proposed.values()}
        at = "; ".join(f"{superscript(numbers[n])} at {', '.join(f'`{lv}`' for lv in study_levels(s))}"
                       for n, s in searches.items() if n in numbers)  # fmt: skip
        lines += [
            f"balance proposal: the change the balance search proposes and what the noble was before ({at}); "
            f"{NONE}: no change proposed (not called under- or overpriced there, or not searched).",
            "",
        ]
    if notes:
        lines += ["Component sets: " + "; ".join(notes) + ".", ""]
    return lines


def table_shares(studies: list[Source]) -> list[list[str]]:
    """The undecided share of the subject table's cells per level (per player count)."""
    return subject_shares(studies, SUBJECTS, "every noble and privilege")


def search_summary(name: str, data: dict) -> list[str] | None:
    """The index's lines for a `palais balance nobles` search: its command, the proposed changes, the validation
    (None for another game's search)."""
    if data.get("study", SEARCH) != SEARCH:
        return None
    lines = [f"## [{name}]({name}/balance.md)", "", "```", data.get("command", ""), "```", ""]
    lines.append(f"{data.get('games_spent', 0):,} of {data.get('budget', 0):,} games; root seed {data.get('seed')}, "
                 f"validation on fresh seeds (root seed {data.get('validation_seed')}).")  # fmt: skip
    lines.append("")
    changed = [c for c in data.get("changes", []) if c.get("new_price", c["new_gold"]) != c.get("price", c["gold"])]
    lines.append("Proposed: " + (", ".join(f"{c['noble']} {change_text(c)} ({c['was']})"
                                          for c in changed) or "no change") + ".")  # fmt: skip
    unbalanced = data.get("unbalanced") or {}
    if unbalanced:
        lines += ["", "Not balanced within the limits: " + "; ".join(f"{n}: {why}" for n, why in unbalanced.items())]
    still = sorted({r["key"] for r in data.get("validation", []) if r["verdict"] in ("favoured", "disfavoured")})
    lines += ["", "Still under- or overpriced on validation: " + (", ".join(still) or "none") + "."]
    validation = data.get("validation", [])
    undecided = sum(r["verdict"] == "undecided" for r in validation)
    if undecided:
        lines += ["", f"Undecided on validation: {undecided} of {len(validation)} rows (not shown balanced)."]
    lines.append("")
    return lines


class StudyPages:
    """Palais Royal's study pages facet (``GAME.study_pages``; :class:`palais_sim.core.game.StudyPages`)."""

    subjects = SUBJECTS
    # the columns its studies read beyond the common ones (``study.compact``): the layout, each seat's gold and the
    # tie column; the recruits table no study reads (the take rates come from the strategies' notes)
    evidence_columns = {"games": ("layout",), "seats": ("gold", "cardinal"), "recruits": ()}

    def overview(self, studies: list[Source], searches: list[Source]) -> list[str]:
        return subject_table(studies, searches)

    def overview_shares(self, studies: list[Source]) -> list[list[str]]:
        return table_shares(studies)

    def search_summary(self, name: str, data: dict) -> list[str] | None:
        return search_summary(name, data)


PAGES = StudyPages()
