"""The top of the published index (``study.publish``): every noble and privilege kind with its verdict at each skill
level, whether it settled on a strength ladder and what the balance search proposes for it; the undecided share of
each study at each level (the standard set's goal: at most 30%); and the time the studies took, as recorded.

It reads only what the index's directory keeps (``study.json``, ``balance.json``), so it works on a published copy
as on the studies' own directory. The subjects are every noble of the component set each nobles study used, read
through its game (``Game.load_components`` and ``Game.taken_ids``, the set's order), then every privilege kind the
studies played; a noble no study played is listed with a dash at every level.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from palais_sim.core.games import games_with_study, get_game
from palais_sim.study.render import ci_text, duration, pp

SUBJECTS = ("noble", "privilege")  # the rows of a nobles study: one noble, or every noble of a privilege kind
UNDECIDED_GOAL = 0.30  # the standard set's goal: at most 30% of a study's rows undecided at each level
NONE = "–"
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Source:
    """A study or a balance search as the index reads it: its directory's name, its document and its page."""

    name: str
    data: dict
    page: str = "study.md"

    @property
    def link(self) -> str:
        return f"[{self.name}]({self.name}/{self.page})"

    def rows(self) -> list[dict]:
        return [r for r in self.data.get("rows", []) if isinstance(r, dict)]


def study_levels(source: Source) -> list[str]:
    """A study's skill levels in its own order (weakest first; a ladder's rungs), then any level only its rows name."""
    listed = [str(s) for s in source.data.get("strategies") or []]
    return list(dict.fromkeys(listed + [str(r.get("strategy")) for r in source.rows()]))


def merged_levels(orders: list[list[str]]) -> list[str]:
    """The levels of several studies in one order that keeps each study's own: a level comes after every level some
    study lists before it; between levels no study orders, the order of first appearance (also for a study that
    contradicts another)."""
    first = list(dict.fromkeys(s for order in orders for s in order))
    before: dict[str, set[str]] = {s: set() for s in first}
    for order in orders:
        for a, b in zip(order, order[1:], strict=False):
            before[b].add(a)
    out: list[str] = []
    while len(out) < len(first):
        left = [s for s in first if s not in out]
        ready = [s for s in left if before[s] <= set(out)]
        out.append(ready[0] if ready else left[0])
    return out


def component_nobles(source: Source) -> tuple[list[str], str | None]:
    """The nobles of the component set a study used, in the set's order, through the game that declares the study;
    with a note when the set cannot be read or is no longer the one the study played ([] and None for a study of
    no game's components)."""
    names = games_with_study(str(source.data.get("study")))
    if not names:
        return [], None
    game = get_game(names[0])
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


def _weight(row: dict) -> tuple[int, float]:
    """Which of several rows of one subject at one level the index shows: more groups, then the narrower interval."""
    low, high = (row.get("ci") or [None, None])[:2]
    width = high - low if isinstance(low, int | float) and isinstance(high, int | float) else math.inf
    return int(row.get("n_groups") or 0), -width


def chosen_rows(studies: list[Source]) -> dict[tuple[str, str, str], tuple[dict, Source]]:
    """Per (subject, key, level): the row of the study with the most groups there (on a tie the narrower interval,
    then the first study by name), with that study."""
    best: dict[tuple[str, str, str], tuple[dict, Source]] = {}
    for source in studies:
        for r in source.rows():
            if r.get("subject") not in SUBJECTS:
                continue
            key = (str(r["subject"]), str(r["key"]), str(r["strategy"]))
            if key not in best or _weight(r) > _weight(best[key][0]):
                best[key] = (r, source)
    return best


def cell_text(row: dict) -> str:
    """A verdict with its effect and interval (pp): "**balanced** +0.4 [-1.0, +1.8]", "undecided +2.5 [-0.5, +5.5]";
    a dead or passed-over noble says so."""
    verdict = str(row.get("verdict"))
    word = verdict if verdict == "undecided" else f"**{verdict}**"
    if row.get("reason") in ("dead", "passed over"):
        word += f" ({row['reason']})"
    if row.get("effect") is None or not row.get("n_groups"):
        return f"{word} (no groups played)"
    return f"{word} {pp(row['effect'])} {ci_text(row.get('ci'))}"


def level_table(source: Source) -> list[str]:
    """A study's rows outside the overview (seats, start golds, layouts, persons) at every skill level side by side:
    a row per subject (and player count), a column per level, so that how a verdict moves with strength reads along
    a line. Empty when every row is a noble or privilege (the overview has them) or the study has one level."""
    rows = [r for r in source.rows() if r.get("subject") not in SUBJECTS]
    levels = study_levels(source)
    if not rows or len(levels) < 2:
        return []
    with_players = any(r.get("players") for r in rows)
    cells: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        cells.setdefault((r.get("players"), str(r.get("subject")), str(r.get("key"))), {})[str(r.get("strategy"))] = r
    headers = (["players"] if with_players else []) + ["row", *[f"`{level}`" for level in levels], "robust"]
    lines = []
    for (players, subject, key), by_level in cells.items():
        robust = "yes" if any(r.get("robust") for r in by_level.values()) else ""
        verdicts = [cell_text(by_level[level]) if level in by_level else NONE for level in levels]
        lines.append(([str(players)] if with_players else []) + [f"{subject} {key}", *verdicts, robust])
    return _table(headers, lines)


def climbs(source: Source) -> bool:
    """Whether a study's strength ladder climbs (a study from before the check counts as climbing: it recorded no
    doubt)."""
    return (source.data.get("ladder") or {}).get("climbs") is not False


def settling(studies: list[Source]) -> dict[tuple[str, str], tuple[dict, Source]]:
    """Per (subject, key): the ladder's reading of whether its effect settled between the top two rungs (of the
    ladder study with the most setups for it, a ladder that climbs before one that does not: its state there is
    *no climb*)."""
    found: dict[tuple[str, str], tuple[dict, Source]] = {}

    def rank(entry: dict, source: Source) -> tuple[bool, int]:
        return climbs(source), entry.get("setups") or 0

    for source in studies:
        for entry in (source.data.get("ladder") or {}).get("settling") or []:
            if entry.get("subject") not in SUBJECTS:
                continue
            key = (str(entry["subject"]), str(entry["key"]))
            if key not in found or rank(entry, source) > rank(*found[key]):
                found[key] = (entry, source)
    return found


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


def _mark(number: int) -> str:
    return str(number).translate(_SUPERSCRIPT)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines + [""]


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
        return _mark(numbers.setdefault(source.name, len(numbers) + 1))

    counts = sorted({s.data.get("players") for s in mine}, key=lambda p: (p is None, p))
    for players in counts:
        group = [s for s in mine if s.data.get("players") == players]
        levels = merged_levels([[lv for lv in study_levels(s) if _plays(s, lv)] for s in group])
        keys, notes = subjects(group)
        rows = chosen_rows(group)
        settled = settling(group)
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
        lines += _table(["subject", *[f"`{lv}`" for lv in levels], "settled", "balance proposal"], body)
        lines += _legend(numbers, group + searches, settled, proposed, notes)
    return lines


def _plays(source: Source, level: str) -> bool:
    return any(r.get("strategy") == level and r.get("subject") in SUBJECTS for r in source.rows())


def _legend(
    numbers: dict[str, int], sources: list[Source], settled: dict, proposed: dict, notes: list[str]
) -> list[str]:
    """The table's footnotes: which study each mark names, how a cell was chosen, what the last two columns read."""
    by_name = {s.name: s for s in sources}
    marks = ", ".join(f"{_mark(n)} {by_name[name].link}" for name, n in numbers.items() if name in by_name)
    lines = [
        f"Each cell: the verdict at that skill level with the effect and its interval (pp of win share; the study's "
        f"own level, 95% or the repeated interval of its looks), marked with the study it comes from: {marks}. "
        f"{NONE}: no study played it at that level. Where several studies played a subject at one level, the cell "
        "shows the one with more groups (on a tie, the narrower interval).",
        "",
    ]
    if settled:
        ladders = {source.name: source for _entry, source in settled.values()}
        rungs = "; ".join(f"{_mark(numbers[n])} {_rungs_text(s)}" for n, s in ladders.items() if n in numbers)
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
        at = "; ".join(f"{_mark(numbers[n])} at {', '.join(f'`{lv}`' for lv in study_levels(s))}"
                       for n, s in searches.items() if n in numbers)  # fmt: skip
        lines += [
            f"balance proposal: the change the balance search proposes and what the noble was before ({at}); "
            f"{NONE}: no change proposed (not called under- or overpriced there, or not searched).",
            "",
        ]
    if notes:
        lines += ["Component sets: " + "; ".join(notes) + ".", ""]
    return lines


def _rungs_text(source: Source) -> str:
    """A ladder's rungs with their Elo against the first rung."""
    parts = []
    for rung in (source.data.get("ladder") or {}).get("rungs") or []:
        elo = rung.get("elo")
        strength = " (the reference)" if not rung.get("groups") else "" if elo is None else f" {round(elo):+d} Elo"
        parts.append(f"`{rung.get('strategy')}`{strength}")
    text = ", ".join(parts) or "not recorded"
    return text if climbs(source) else f"{text} (does not climb)"


def undecided_table(studies: list[Source], searches: Sequence[Source] = ()) -> list[str]:
    """Per study and level: undecided rows of all rows and the share, marked above the goal (``UNDECIDED_GOAL``);
    a balance search's validation too (the nobles study of its proposal: what decides whether the proposal holds)."""
    body = []
    for source in studies:
        body += _level_shares(source.link, source.rows(), study_levels(source))
    for search in searches:
        rows = [r for r in search.data.get("validation") or [] if isinstance(r, dict)]
        body += _level_shares(f"{search.link} (validation)", rows, study_levels(search))
    body += _table_shares(studies)
    if not body:
        return []
    return [
        "## Undecided per level",
        "",
        f"The goal: at most {UNDECIDED_GOAL:.0%} of a study's rows undecided at each skill level (marked where it is "
        "missed). An undecided row needs more groups (its page says how many it has and needs).",
        "",
        *_table(["study", "skill level", "undecided rows", "share"], body),
    ]


def _level_shares(where: str, rows: list[dict], levels: list[str]) -> list[list[str]]:
    """The undecided table's rows of one study (or validation), a row per level that has rows."""
    out = []
    for level in levels:
        mine = [r for r in rows if r.get("strategy") == level]
        if mine:
            out.append(_share_row(where, level, mine))
    return out


def _share_row(where: str, level: str, rows: list[dict]) -> list[str]:
    """A row of the undecided table: undecided of all, the share, marked above the goal."""
    undecided = sum(r.get("verdict") == "undecided" for r in rows)
    share = undecided / len(rows)
    over = f" **above {UNDECIDED_GOAL:.0%}**" if share > UNDECIDED_GOAL else ""
    return [where, f"`{level}`", f"{undecided} of {len(rows)}", f"{share:.0%}{over}"]


def _table_shares(studies: list[Source]) -> list[list[str]]:
    """The undecided share of the subject table's cells per level (per player count)."""
    mine = [s for s in studies if any(r.get("subject") in SUBJECTS for r in s.rows())]
    out = []
    for players in sorted({s.data.get("players") for s in mine}, key=lambda p: (p is None, p)):
        group = [s for s in mine if s.data.get("players") == players]
        rows = [row for row, _source in chosen_rows(group).values()]
        name = "every noble and privilege (the table above" + (f", {players} players)" if players else ")")
        for level in merged_levels([study_levels(s) for s in group]):
            cells = [r for r in rows if r.get("strategy") == level]
            if cells:
                out.append(_share_row(f"*{name}*", level, cells))
    return out


def _seconds(seconds: float) -> str:
    """Seconds, and in minutes and hours from a minute on: "38 s", "2,750 s (46 min)"."""
    return f"{seconds:,.0f} s" + (f" ({duration(seconds)})" if seconds >= 60 else "")


def _as_list(value: object) -> list:
    """A level's recorded cores: a list of counts (one per machine), or one count."""
    if isinstance(value, list | tuple):
        return [v for v in value if v]
    return [value] if value else []


def time_table(sources: list[Source]) -> list[str]:
    """Per study and search: its games, the sum of its arms' recorded wall and CPU seconds, and the machine's cores
    where recorded; the total over all."""
    body, total_games, total_wall, total_cpu, cpu_known = [], 0, 0.0, 0.0, True
    cores: set[int] = set()
    for source in sources:
        levels = [g for g in (source.data.get("games") or {}).values() if isinstance(g, dict)]
        if not levels:
            continue
        games = sum(int(g.get("games") or 0) for g in levels)
        wall = sum(float(g.get("seconds") or 0.0) for g in levels)
        has_cpu = all(g.get("cpu_seconds") is not None for g in levels)
        cpu = sum(float(g.get("cpu_seconds") or 0.0) for g in levels)
        mine = {int(c) for g in levels for c in _as_list(g.get("cores"))}
        cores |= mine
        total_games, total_wall, total_cpu = total_games + games, total_wall + wall, total_cpu + cpu
        cpu_known = cpu_known and has_cpu
        body.append([source.link, f"{games:,}", _seconds(wall), _seconds(cpu) if has_cpu else "not recorded",
                     ", ".join(map(str, sorted(mine))) or "not recorded"])  # fmt: skip
    if not body:
        return []
    body.append(["**all**", f"**{total_games:,}**", f"**{_seconds(total_wall)}**",
                 f"**{_seconds(total_cpu)}**" if cpu_known else "not recorded for every study",
                 ", ".join(map(str, sorted(cores))) or "not recorded"])  # fmt: skip
    on = f" on {' and '.join(map(str, sorted(cores)))} cores" if cores else " (the machine's cores not recorded)"
    return [
        "## Time",
        "",
        f"The studies took {duration(total_wall)} of wall time{on}: the recorded times of the machine that played "
        "them (the sums of their arms' own run summaries, wall and, where recorded, CPU seconds in the workers; the "
        "arms of a study play one after another), which may have been shared with other work. An arm reused from an "
        "earlier session counts with the time it took then.",
        "",
        *_table(["study", "games", "wall time", "CPU time", "cores"], body),
    ]
