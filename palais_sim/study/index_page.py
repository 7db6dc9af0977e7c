"""The published index's shared parts (``study.publish``): each game's overview of its component studies (its study
pages facet, ``GAME.study_pages``), the undecided share of each study at each level (the standard set's goal: at
most 30%), every study's rows at every level side by side, and the time the studies took, as recorded; and the
pieces a game's overview is made of (the chosen row per subject and level, whether a subject settled on a ladder).

It reads only what the index's directory keeps (``study.json``, ``balance.json``), so it works on a published copy
as on the studies' own directory.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from palais_sim.core.game import StudyPages, load_attribute
from palais_sim.study.render import ci_text, duration, pp

UNDECIDED_GOAL = 0.30  # the standard set's goal: at most 30% of a study's rows undecided at each level
NONE = "–"
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def game_pages() -> list[StudyPages]:
    """The study pages of every registered game that has them (``GAME.study_pages``), in the registry's order; a
    registered game that cannot be loaded has none (a broken plugin cannot break the index)."""
    from palais_sim.core.games import loadable_games

    targets = [getattr(game, "study_pages", None) for game in loadable_games()]
    return [load_attribute(target) for target in targets if target is not None]


def overview_subjects() -> frozenset[str]:
    """The row subjects the games' overviews show (their own tables hold them, not a study's level table)."""
    return frozenset(subject for pages in game_pages() for subject in pages.subjects)


def overview(studies: list[Source], searches: list[Source]) -> list[str]:
    """Every game's overview of its component studies (empty for a game none of these studies concerns)."""
    return [line for pages in game_pages() for line in pages.overview(studies, searches)]


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


def _weight(row: dict) -> tuple[int, float]:
    """Which of several rows of one subject at one level the index shows: more groups, then the narrower interval."""
    low, high = (row.get("ci") or [None, None])[:2]
    width = high - low if isinstance(low, int | float) and isinstance(high, int | float) else math.inf
    return int(row.get("n_groups") or 0), -width


def chosen_rows(studies: list[Source], subjects: Collection[str]) -> dict[tuple[str, str, str], tuple[dict, Source]]:
    """Per (subject, key, level) of the ``subjects``: the row of the study with the most groups there (on a tie the
    narrower interval, then the first study by name), with that study."""
    best: dict[tuple[str, str, str], tuple[dict, Source]] = {}
    for source in studies:
        for r in source.rows():
            if r.get("subject") not in subjects:
                continue
            key = (str(r["subject"]), str(r["key"]), str(r["strategy"]))
            if key not in best or _weight(r) > _weight(best[key][0]):
                best[key] = (r, source)
    return best


def cell_text(row: dict) -> str:
    """A verdict with its effect and interval (pp): "**balanced** +0.4 [-1.0, +1.8]", "undecided +2.5 [-0.5, +5.5]";
    a dead or passed-over subject says so."""
    verdict = str(row.get("verdict"))
    word = verdict if verdict == "undecided" else f"**{verdict}**"
    if row.get("reason") in ("dead", "passed over"):
        word += f" ({row['reason']})"
    if row.get("effect") is None or not row.get("n_groups"):
        return f"{word} (no groups played)"
    return f"{word} {pp(row['effect'])} {ci_text(row.get('ci'))}"


def level_table(source: Source) -> list[str]:
    """A study's rows outside the games' overviews (seats, setups, ...) at every skill level side by side: a row per
    subject (and player count), a column per level, so that how a verdict moves with strength reads along a line.
    Empty when every row is an overview's subject (the overview has them) or the study has one level."""
    shown = overview_subjects()
    rows = [r for r in source.rows() if r.get("subject") not in shown]
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
    return markdown_table(headers, lines)


def climbs(source: Source) -> bool:
    """Whether a study's strength ladder climbs (a study from before the check counts as climbing: it recorded no
    doubt)."""
    return (source.data.get("ladder") or {}).get("climbs") is not False


def settling(studies: list[Source], subjects: Collection[str]) -> dict[tuple[str, str], tuple[dict, Source]]:
    """Per (subject, key) of the ``subjects``: the ladder's reading of whether its effect settled between the top two
    rungs (of the ladder study with the most setups for it, a ladder that climbs before one that does not: its state
    there is *no climb*)."""
    found: dict[tuple[str, str], tuple[dict, Source]] = {}

    def rank(entry: dict, source: Source) -> tuple[bool, int]:
        return climbs(source), entry.get("setups") or 0

    for source in studies:
        for entry in (source.data.get("ladder") or {}).get("settling") or []:
            if entry.get("subject") not in subjects:
                continue
            key = (str(entry["subject"]), str(entry["key"]))
            if key not in found or rank(entry, source) > rank(*found[key]):
                found[key] = (entry, source)
    return found


def superscript(number: int) -> str:
    return str(number).translate(_SUPERSCRIPT)


def markdown_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines + [""]


def rungs_text(source: Source) -> str:
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
    a balance search's validation too (the study of its proposal: what decides whether the proposal holds); then the
    games' overview cells (``StudyPages.overview_shares``)."""
    body = []
    for source in studies:
        body += _level_shares(source.link, source.rows(), study_levels(source))
    for search in searches:
        rows = [r for r in search.data.get("validation") or [] if isinstance(r, dict)]
        body += _level_shares(f"{search.link} (validation)", rows, study_levels(search))
    body += [row for pages in game_pages() for row in pages.overview_shares(studies)]
    if not body:
        return []
    return [
        "## Undecided per level",
        "",
        f"The goal: at most {UNDECIDED_GOAL:.0%} of a study's rows undecided at each skill level (marked where it is "
        "missed). An undecided row needs more groups (its page says how many it has and needs).",
        "",
        *markdown_table(["study", "skill level", "undecided rows", "share"], body),
    ]


def by_players(studies: list[Source]) -> list[tuple[object, list[Source]]]:
    """The studies grouped by their player count (``players``), in increasing order, a study without one last."""
    counts = sorted({s.data.get("players") for s in studies}, key=lambda p: (p is None, p))
    return [(p, [s for s in studies if s.data.get("players") == p]) for p in counts]


def subject_shares(studies: list[Source], subjects: Collection[str], label: str) -> list[list[str]]:
    """The undecided table's rows for a game's overview table of ``subjects`` (one table per player count): per
    level, the share of its cells (``chosen_rows``) that are undecided, named "*label (the table above, P players)*"."""
    out = []
    for players, group in by_players([s for s in studies if any(r.get("subject") in subjects for r in s.rows())]):
        rows = [row for row, _source in chosen_rows(group, subjects).values()]
        name = f"{label} (the table above" + (f", {players} players)" if players else ")")
        for level in merged_levels([study_levels(s) for s in group]):
            cells = [r for r in rows if r.get("strategy") == level]
            if cells:
                out.append(share_row(f"*{name}*", level, cells))
    return out


def _level_shares(where: str, rows: list[dict], levels: list[str]) -> list[list[str]]:
    """The undecided table's rows of one study (or validation), a row per level that has rows."""
    out = []
    for level in levels:
        mine = [r for r in rows if r.get("strategy") == level]
        if mine:
            out.append(share_row(where, level, mine))
    return out


def share_row(where: str, level: str, rows: list[dict]) -> list[str]:
    """A row of the undecided table: undecided of all, the share, marked above the goal."""
    undecided = sum(r.get("verdict") == "undecided" for r in rows)
    share = undecided / len(rows)
    over = f" **above {UNDECIDED_GOAL:.0%}**" if share > UNDECIDED_GOAL else ""
    return [where, f"`{level}`", f"{undecided} of {len(rows)}", f"{share:.0%}{over}"]


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
        *markdown_table(["study", "games", "wall time", "CPU time", "cores"], body),
    ]
