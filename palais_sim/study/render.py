"""A study's outputs: ``study.json`` (the rows and everything needed to redo them), a Markdown page and one
self-contained HTML page (charts embedded), charts as PNG beside them.

Rows are the study's verdicts, one per (subject, key, skill level): ``subject`` (``seat``, a seat value's option,
a component kind of a game's own study, ...), ``key`` (which seat, value, component), ``strategy`` (the skill level),
``effect`` in percentage points of win share, ``ci`` [low, high] in percentage points, ``n_groups``, ``verdict``
(favoured, disfavoured, balanced, undecided), ``robust`` (every skill level gives the same verdict), and the evidence
behind it (``study.evidence``): ``differing_groups``, ``min_differing``, ``confidence`` and ``evidence`` (why the row
may not decide yet, or None).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from palais_sim.analytics import report_format
from palais_sim.analytics.paired import Estimate, robust, verdict
from palais_sim.analytics.report_render import Block, Table, html_page, markdown
from palais_sim.study.evidence import differing, level, min_differing, shortfall

FORMAT = "palais-study/1"


def pp(x: float | None, digits: int = 1) -> str:
    """A study row's effect: in percentage points already, the unit in its column header."""
    return report_format.pp(x, digits, scale=1.0, unit="")


def duration(seconds: float) -> str:
    """Seconds in words: "38 s", "1 min 26 s" (under ten minutes, where a rounded minute would be off by up to a
    third), "14 min", "2 h 44 min"."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min" + (f" {rest} s" if rest else "")
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def ci_text(ci: list | tuple | None, digits: int = 1) -> str:
    """A study row's interval ``[low, high]`` in percentage points."""
    if not ci:
        return "–"
    return report_format.ci(ci[0], ci[1], lambda x: pp(x, digits))


def row(
    subject: str, key: object, strategy: str, est: Estimate, margin_pp: float, values: object = None,
    confidence: float = 0.95, **extra: object,
) -> dict:  # fmt: skip
    """A verdict row from an estimate on the share scale (0..1); effect and interval in percentage points.

    ``values``: the per-group values the estimate was made of (the no-effect value is 0); the row decides only with
    at least ``min_differing(confidence)`` groups that differ and an interval of some width (``study.evidence``).
    Without them (an estimate from a model) every group counts as differing."""
    effect, low, high = 100 * est.mean, 100 * est.low, 100 * est.high
    differ = est.n_groups if values is None else differing(values)  # type: ignore[arg-type]
    why = shortfall(differ, est.n_groups, low, high, confidence)
    out = {
        "subject": subject,
        "key": key,
        "strategy": strategy,
        "effect": _num(effect),
        "ci": [_num(low), _num(high)],
        "n_groups": est.n_groups,
        "verdict": verdict(low, high, margin_pp) if why is None else "undecided",
        "robust": False,
        "differing_groups": differ,
        "min_differing": min_differing(confidence),
        "confidence": confidence,
        "evidence": why,
    }
    out.update(extra)
    return out


def verdict_text(r: dict) -> str:
    """The verdict cell: a decision in bold, an undecided row with what it lacks."""
    if r["verdict"] != "undecided":
        return f"**{r['verdict']}**"
    return f"undecided ({r['evidence']})" if r.get("evidence") else "undecided"


def mark_robust(rows: list[dict], by: tuple[str, ...] = ("subject", "key", "players")) -> None:
    """``robust``: every skill level that studied the same subject gives the same (decided) verdict."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(json.dumps(r.get(k)) for k in by), []).append(r)
    for members in groups.values():
        ok = robust([m["verdict"] for m in members]) and len({m["strategy"] for m in members}) == len(members)
        for m in members:
            m["robust"] = ok


def _num(x: float) -> float | None:
    return round(float(x), 4) if x is not None and math.isfinite(x) else None


@dataclass
class Page:
    """A study page: the blocks of a report (``analytics.report_render``), rendered by the same Markdown and HTML
    renderers; the JSON document is the study's own."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    charts: dict[str, Path] = field(default_factory=dict)

    def h(self, text: str) -> None:
        self.blocks.append(("h", text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def code(self, text: str) -> None:
        self.blocks.append(("code", text))

    def table(self, rows: list[dict], columns: list[tuple[str, Callable[[dict], str]]]) -> None:
        self.blocks.append(("table", Table([c for c, _ in columns], [[f(r) for _, f in columns] for r in rows])))

    def chart(self, name: str, path: Path, caption: str) -> None:
        self.charts[name] = path
        self.blocks.append(("chart", (name, caption)))


def interval_column(confidence: float = 0.95, looks: int = 1) -> tuple[str, Callable[[dict], str]]:
    """A verdict table's interval column, one name for one meaning on every page: "95% interval (pp)" for a
    single look; with looks, "repeated 95% interval (pp)", each row's at its own look's level, which its cell
    states (the intervals of all looks hold the truth together at 95%, each one alone at its look's level)."""
    if looks <= 1:
        return f"{level(confidence)} interval (pp)", lambda r: ci_text(r["ci"])

    def cell(r: dict) -> str:
        at = r.get("confidence")
        return ci_text(r["ci"]) + (f" at {level(at)}" if at is not None else "")

    return f"repeated {level(confidence)} interval (pp), each at its look's level", cell


def verdict_columns(
    key_name: str, key: Callable[[dict], str] | None = None, confidence: float = 0.95, looks: int = 1
) -> list[tuple[str, Callable[[dict], str]]]:
    """The columns of a verdict table; the interval's header names its level (``interval_column``)."""
    return [
        (key_name, key or (lambda r: str(r["key"]))),
        ("skill level", lambda r: f"`{r['strategy']}`"),
        ("effect (pp)", lambda r: pp(r["effect"])),
        interval_column(confidence, looks),
        ("groups", lambda r: f"{r['n_groups']:,}"),
        ("verdict", verdict_text),
        ("robust", lambda r: "yes" if r["robust"] else ""),
    ]


def level_order(strategies: Sequence[str]) -> Callable[[str], tuple[int, str]]:
    """A sort key of a row's skill level: its place in the study's levels (weakest first, a ladder's rungs by
    budget), not its text, which put budget=16 and 32 before budget=8 and made a rung's line zigzag."""
    place = {strategy: i for i, strategy in enumerate(strategies)}
    return lambda strategy: (place.get(strategy, len(place)), strategy)


def to_markdown(page: Page) -> str:
    return markdown(page.title, page.blocks)


def to_html(page: Page) -> str:
    return html_page(page.title, page.blocks, page.charts.__getitem__)


def _clean(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def write(out: Path, page: Page, document: dict, stem: str = "study") -> dict[str, Path]:
    """Write ``stem.json``, ``stem.md`` and ``stem.html`` into ``out`` (atomically each); returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    texts = {
        "json": json.dumps(_clean({"format": FORMAT, **document}), indent=1, allow_nan=False) + "\n",
        "md": to_markdown(page),
        "html": to_html(page),
    }
    paths = {}
    for ext, text in texts.items():
        path = out / f"{stem}.{ext}"
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths[ext] = path
    return paths
