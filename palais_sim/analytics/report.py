"""Assemble the reports: compute, draw, and write Markdown, one self-contained HTML page, or JSON.

A report is a list of blocks (``report_render``); every report opens with what is missing from the run (if
anything), the run's settings and a short summary of the findings, then the games (length, unfinished) and the
sections asked for: each game names its own in ``GAME.report_sections`` (in its package: Palais Royal's
``games/palais_royal/analysis/sections.py``; the common ones in ``sections_common``). Every table shows N and
intervals, effect sizes before p-values, and is sorted on a complete key, so the same run always gives the same text;
numbers are written by ``report_format``.
"""

from __future__ import annotations

import json
from pathlib import Path

from palais_sim.analytics.report_render import Report, to_html, to_json, to_markdown
from palais_sim.analytics.runs import Run, RunError
from palais_sim.analytics.sections_common import COMMON_SECTIONS, games_section, run_section
from palais_sim.core.game import load_attribute

FORMATS = ("md", "html", "json")
MARKER = ".palais-report.json"  # in a report directory: which run it reports on (so two runs never share one)


def game_sections(run: Run) -> dict:
    """The report sections of the run's game, by name."""
    target = run.game.report_sections
    return load_attribute(target) if target else COMMON_SECTIONS


def sections_of(run: Run, which: str) -> list[str]:
    """The report names ``which`` stands for in the run's game; raises RunError for one the game has not."""
    available = game_sections(run)
    if which == "all":
        return list(available)
    if which not in available:
        raise RunError(f"a {run.game.name} run has no {which} report; its reports: {', '.join(available)} or all")
    return [which]


def build(run: Run, which: list[str], out: Path, draw: bool = True) -> Report:
    """The report on ``run``: the run (what is missing, settings), a summary, the games, then ``which`` sections.

    ``draw=False`` (JSON) makes no chart."""
    rep = Report(title=f"palais-sim report: {run.name}", chart_dir=out / "charts" if draw else None)
    summary = run.summary
    rep.data["run"] = summary
    run_section(rep, run)
    head = len(rep.blocks)  # the summary goes here, once the sections have found what it says
    games_section(rep, run)
    for name in which:
        game_sections(run)[name](rep, run)
    summary_blocks: list[tuple[str, object]] = [("h", "Summary"), ("list", list(rep.headline))]
    rep.blocks[head:head] = summary_blocks
    from palais_sim.analytics.design import confound_warning

    warning = confound_warning(run)
    if warning:  # a design that cannot separate strategies from seats: said first, and no verdict depends on it
        rep.data["warnings"] = [warning]
        rep.blocks.insert(0, ("p", f"**{warning}**"))
    rep.data["summary"] = list(rep.headline)
    return rep


def _marker_run(directory: Path) -> str | None:
    try:
        return json.loads((directory / MARKER).read_text(encoding="utf-8")).get("run")
    except (OSError, ValueError, AttributeError):
        return None


def default_out(run: Run, base: Path = Path("reports")) -> Path:
    """``reports/<run name>/``, or ``<run name>-2``, ``-3``, ... when that directory holds the report of another run
    of the same name (a different path), so reports of two runs never overwrite each other."""
    source = str(run.path.resolve())
    number = 1
    while True:
        candidate = base / (run.name if number == 1 else f"{run.name}-{number}")
        if not candidate.exists() or _marker_run(candidate) == source:
            return candidate
        if candidate.is_dir() and not any(candidate.iterdir()):
            return candidate
        number += 1


def write(run: Run, which: str, out: Path, fmt: str) -> Path:
    """Compute the report(s) ``which`` ('all' or a report of the run's game) and write it in ``fmt`` under ``out``."""
    names = sections_of(run, which)
    out.mkdir(parents=True, exist_ok=True)
    rep = build(run, names, out, draw=fmt != "json")
    stem = "report" if which == "all" else which
    path = out / f"{stem}.{fmt}"
    text = {"md": to_markdown, "html": to_html, "json": to_json}[fmt](rep)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    marker = {"run": str(run.path.resolve()), "created": run.manifest.get("created")}
    (out / MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")
    return path
