"""Copy finished studies into a directory small enough to commit (study.md, study.json and the PNG charts; not the
arm runs nor the self-contained HTML, which embeds the same PNGs) and write an index of their verdicts: each game's
overview of its component studies (its study pages, ``GAME.study_pages``), the undecided shares and the recorded time
(``study.index_page``), then each study's and balance search's summary. It reads only the files it copies, so a
published directory can be published again (``python -m palais_sim.study.publish reports/standard /tmp/out``).

    python -m palais_sim.study.publish runs/studies/standard reports/standard

Several sources merge (a study in a later one replaces the same name in an earlier one), so an installment played
on another machine or a cluster is published beside the studies already published:

    python -m palais_sim.study.publish reports/standard runs/studies/standard reports/standard
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from palais_sim.study import compact, index_page
from palais_sim.study.common import verified_text
from palais_sim.study.render import ci_text, pp

DECISIONS = ("favoured", "disfavoured", "balanced", "unbalanced")  # "unbalanced": a spread row of a block of setups


def _summary(name: str, data: dict) -> list[str]:
    rows = data.get("rows", [])
    games = data.get("games", {})
    lines = [f"## [{name}]({name}/study.md)", "", "```", data.get("command", ""), "```", ""]
    lines.append(
        f"Root seed {data.get('seed')}, {data.get('groups')} groups per arm, margin +-{data.get('margin_pp')} pp. "
        + "; ".join(
            f"`{s}`: {g['games']:,} games" + (f" ({g['seconds']:.0f} s)" if g.get("seconds") else "")
            for s, g in games.items()
        )
        + "."
    )
    codes = sorted({g["code_fingerprint"] for g in games.values() if g.get("code_fingerprint")})
    verified = verified_text(games)
    lines.append(
        f"Played{' (or verified by replay)' if verified else ''} by the code with fingerprint "
        f"{', '.join(f'`{c}`' for c in codes)} (`palais version` prints the current one: another means the rules or "
        "the strategies changed since)."
        if codes
        else "Played by code of unrecorded fingerprint (before studies recorded it)."
    )
    if verified:
        lines += ["", verified]
    if data.get("repricing_to_play"):
        lines += ["", f"Still to play: the repriced variants of {', '.join(data['repricing_to_play'])} (the study's "
                      "price lines); its verdicts below are final."]  # fmt: skip
    lines.append("")
    decided = [r for r in rows if r["verdict"] in DECISIONS]
    robust = sorted({(r["subject"], str(r["key"]), r.get("players"), r["verdict"]) for r in decided if r["robust"]})
    lines.append("Robust verdicts (every skill level agrees): " + (", ".join(
        f"{s} {k}" + (f" ({p}p)" if p else "") + f" **{v}**" for s, k, p, v in robust) or "none") + ".")  # fmt: skip
    lines.append("")
    table = index_page.level_table(index_page.Source(name, data))
    if table:
        lines += ["Every row at every skill level (effect in pp with its interval):", "", *table]
    single = [r for r in decided if not r["robust"]] if not table else []
    if single:
        lines.append("At one skill level only:")
        lines.append("")
        for r in sorted(single, key=lambda r: (r["subject"], str(r["key"]), r["strategy"])):
            where = f" ({r['players']}p)" if r.get("players") else ""
            lines.append(f"- {r['subject']} {r['key']}{where}, `{r['strategy']}`: {r['verdict']}, "
                         f"{pp(r['effect'])} pp {ci_text(r['ci'])}")  # fmt: skip
        lines.append("")
    undecided = sum(1 for r in rows if r["verdict"] == "undecided")
    lines += [f"Undecided: {undecided} of {len(rows)} rows (more groups would tell).", ""]
    return lines


def publish(source: Path | Sequence[Path], target: Path) -> Path:
    """Copy the finished studies and balance searches of ``source`` into ``target`` and write its README.md: the
    games' overviews of their component studies, the undecided shares and the time (``study.index_page``), then a
    summary of each study. Reads only the files it copies, so ``source`` may be a published directory itself; of several
    sources, a study in a later one replaces the same name in an earlier one."""
    sources = [source] if isinstance(source, Path) else list(source)
    target.mkdir(parents=True, exist_ok=True)
    found = _studies(sources)
    _drop_withdrawn(found, target)
    for name, path in found.items():  # the pages are rendered from the evidence, so that it re-renders them exactly
        here = target / name
        if path.resolve() == here.resolve():
            continue
        _copy(path, here, compact.PAGE_FILES)  # the page as played, replaced by its render where there is one
        if compact.arm_dirs(path):
            compact.export_study(path, here)
        elif (path / compact.EVIDENCE).is_dir():
            shutil.copytree(path / compact.EVIDENCE, here / compact.EVIDENCE)
        if (here / compact.EVIDENCE).is_dir() and compact.renderable(here):
            compact.render_study(here)
        found[name] = here
    studies = [index_page.Source(name, _read(p / "study.json"))
               for name, p in found.items() if (p / "study.json").exists()]  # fmt: skip
    searches = [index_page.Source(name, _read(p / "balance.json"), "balance.md")
                for name, p in found.items() if (p / "balance.json").exists()]  # fmt: skip
    index = [
        "# The standard component sets' balance verdicts",
        "",
        "Both games. Regenerated by `make reports`; the evidence "
        "beside each study (`evidence/`: every arm's per-game outcomes, its settings, code fingerprint and component "
        "hash) re-renders every page and study.json byte for byte with no runs (`make reports-render`), and "
        "`palais verify reports/standard --sample K` replays sampled groups of every arm with the installed code "
        "and says, per arm, whether it holds; `make reports` plays again only the arms that do not. Each study's "
        "page gives its exact command, seed, sizes, games, wall and CPU time and the machine at the top. "
        "Verdicts are decisions with an equivalence margin: **favoured** / **disfavoured** when the whole 95% "
        "interval lies beyond the margin, **balanced** when it lies inside it, otherwise undecided. A verdict is "
        "robust when every skill level gives it; one found at a single level is a lead (among many rows a few are "
        "expected by chance). Wall times are those of the machine that played the arms (sums of the runs' own "
        "summaries), which may have been shared with other work.",
        "",
        *index_page.overview(studies, searches),
        *index_page.undecided_table(studies, searches),
        *index_page.time_table(studies + searches),
    ]
    for study in studies:
        _copy(found[study.name], target / study.name, ("study.md", "study.json"))
        index += _summary(study.name, study.data)
        index += _evidence_lines(target / study.name)
    for search in searches:
        _copy(found[search.name], target / search.name, ("balance.md", "balance.json", "balanced.toml"))
        index += _balance_summary(search.name, search.data)
    path = target / "README.md"
    path.write_text("\n".join(index), encoding="utf-8")
    return path


def _evidence_lines(study: Path) -> list[str]:
    """The index's lines on a study's committed evidence: which code played its arms, and its last check by replay
    (``palais verify --record``)."""
    path = study / compact.EVIDENCE / compact.INDEX
    if not path.exists():
        return []
    index = _read(path)
    arms = index.get("arms", [])
    codes = ", ".join(f"`{c}`" for c in sorted({str(a.get("code_fingerprint")) for a in arms}))
    line = f"Evidence: {len(arms)} arms in [{compact.EVIDENCE}/]({study.name}/{compact.EVIDENCE}/), played by {codes}; "
    last = index.get("last_verified")
    held = all((a.get("last_verified") or {}).get("holds") for a in arms)
    if last:
        line += (f"last verified by replay with `{last['code_fingerprint']}` on {str(last['at'])[:10]}"
                 f"{'' if held else ' (some arms did not hold)'}.")  # fmt: skip
    else:
        line += "not verified by replay since (`palais verify` checks it)."
    return [line, ""]


def _studies(sources: list[Path]) -> dict[str, Path]:
    """Every study and balance search directory of the sources by name, sorted; a later source's wins."""
    found: dict[str, Path] = {}
    for source in sources:
        if not source.is_dir():
            raise ValueError(f"{source}: no such directory")
        for path in source.iterdir():
            if (path / "study.json").exists() or (path / "balance.json").exists():
                found[path.name] = path
    return dict(sorted(found.items()))


def _drop_withdrawn(found: dict[str, Path], target: Path) -> None:
    """Remove the studies and searches published in ``target`` earlier that no source has any more (a study
    ``make reports`` stopped playing must not stay beside the fresh ones, its old verdicts unlisted but readable).
    Only directories holding a study.json or balance.json are touched."""
    for old in sorted(p for p in target.iterdir() if p.is_dir()):
        published = (old / "study.json").exists() or (old / "balance.json").exists()
        if published and old.name not in found:
            shutil.rmtree(old)


def _read(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a study document (a JSON object)")
    return data


def _copy(source: Path, target: Path, names: tuple[str, ...]) -> None:
    """The files of a study worth committing (those present) and its PNG charts; ``target`` is replaced."""
    if source.resolve() == target.resolve():
        return
    if target.exists():
        shutil.rmtree(target)
    (target / "charts").mkdir(parents=True)
    for name in names:
        if (source / name).exists():
            shutil.copy2(source / name, target / name)
    for png in sorted((source / "charts").glob("*.png")):
        shutil.copy2(png, target / "charts" / png.name)


def _balance_summary(name: str, data: dict) -> list[str]:
    """The index's lines for a balance search: its game's summary (``StudyPages.search_summary``), or its command."""
    for pages in index_page.game_pages():
        lines = pages.search_summary(name, data)
        if lines is not None:
            return lines
    return [f"## [{name}]({name}/balance.md)", "", "```", data.get("command", ""), "```", ""]


def main(argv: list[str]) -> int:
    """``python -m palais_sim.study.publish SOURCE... TARGET``: a bad argument or file is one line and exit status 1."""
    if len(argv) < 2:
        print("error: usage: python -m palais_sim.study.publish SOURCE... TARGET", file=sys.stderr)
        return 1
    try:
        print(publish([Path(a) for a in argv[:-1]], Path(argv[-1])))
    except compact.RenderFailed as exc:  # the study command printed its error line
        return exc.code
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"error: {' '.join(str(exc).split()) or type(exc).__name__}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover - make reports
    sys.exit(main(sys.argv[1:]))
