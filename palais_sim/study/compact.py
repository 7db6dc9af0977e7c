"""A published study's evidence: its arms as compact runs, committed beside its page, and the page rendered from them.

``STUDY/evidence/`` holds, for every arm the study played, a *compact run* at the arm's own path under ``runs/``:
its manifest.json as recorded (settings, code fingerprint, components hash, sessions and timings), rewritten as one
chunk; per table ONE Parquet file (zstd) with every game's rows but only the columns the studies read
(:data:`COMMON_COLUMNS` and the game's own, :class:`EvidenceColumns`; a game's seed is implied by the root seed and
the game number and is left out); and run.log's session summaries (the wall and CPU times a page prints).
``evidence/MANIFEST.json`` lists each arm (path, settings summary, code fingerprint, components hash, games, its
verification record) and the study's command; ``evidence/COLUMNS.md`` says what each kept column means.

A compact run is a run directory every analysis opens as it opens the run itself (``analytics.runs.open_run``), so
the study's own code renders the page from it: the recorded command, with ``--out`` the evidence directory, under
``PALAIS_RENDER_ONLY=1`` (``arms.play_arm`` plays nothing; a missing arm is an error). Publishing renders every page
this way, so re-rendering from the evidence alone gives the committed page byte for byte.

    python -m palais_sim.study.compact render reports/standard
    python -m palais_sim.study.compact restore reports/standard runs/studies/standard   # make reports, first

``restore`` puts the published arms back under runs/ where none is, so ``make reports`` on a fresh clone keeps
every arm that still holds (played by today's code, or verified by replaying its first and last groups) and plays
only the others.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from palais_sim.analytics.runs import open_run
from palais_sim.core.game import Game, load_attribute
from palais_sim.study.environment import RECORDED_COMMAND_ENV, RENDER_ONLY_ENV
from palais_sim.tournament import records
from palais_sim.tournament.ledger import COUNTS, LEDGER, read_ledger
from palais_sim.tournament.records import game_of
from palais_sim.tournament.worker import chunk_name

EVIDENCE = "evidence"
INDEX = "MANIFEST.json"
COLUMNS_FILE = "COLUMNS.md"
PAGE_FILES = ("study.md", "study.json", "balance.md", "balance.json", "balanced.toml")  # a study's or a search's

# The columns every study's analysis reads, by table, whatever the game: what identifies a row (game, group, rotation,
# seat), what every analysis filters on (error) and the outcome (total, rank, win, the strategies' notes). A game adds
# its own (``EvidenceColumns`` on its study pages, ``GAME.study_pages``): the columns its studies read beyond these, and
# its tables no study reads (kept empty). Not kept: the seed (implied by the root seed and the game number), the engine
# version, the component set's name, per-seat details no study reads. A game that does not say keeps every column.
COMMON_COLUMNS: dict[str, tuple[str, ...]] = {
    "games": ("game", "group", "rotation", "players", "rounds", "finished", "error", "max_rounds"),
    "seats": ("game", "group", "seat", "strategy", "total", "rank", "win", "strategy_notes"),
}


@runtime_checkable
class EvidenceColumns(Protocol):
    """What a game's study pages say about its evidence: per table, the columns its studies read beyond
    :data:`COMMON_COLUMNS` (an empty tuple for a table no study reads: kept as an empty file)."""

    evidence_columns: Mapping[str, tuple[str, ...]]


RUN_LOG_KEPT = re.compile(r"Wall time ")  # run.log's session summaries (wall and CPU time, cores)


class RenderFailed(Exception):  # noqa: N818 - not a ValueError: the study command printed its one error line already
    """The study command failed on the evidence (a missing arm): it has printed its error line."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def arm_dirs(study: Path) -> list[Path]:
    """Every arm run of the study (a directory with a manifest.json under a ``runs/``: its own, or a part's, such as
    a balance search's ``before/runs/...`` and ``validation/runs/...``), sorted; its evidence is not searched."""
    found = (p.parent for p in study.rglob("manifest.json") if "runs" in p.relative_to(study).parts)
    return sorted(p for p in found if p.relative_to(study).parts[0] != EVIDENCE)


def kept_columns(game: Game, table: str, present: Iterable[str]) -> list[str]:
    """The columns of ``table`` the evidence keeps, in the table's order (every one for a game that does not say)."""
    pages = load_attribute(game.study_pages) if game.study_pages else None
    if not isinstance(pages, EvidenceColumns) or table not in pages.evidence_columns:
        return list(present)
    own = pages.evidence_columns[table]
    wanted = set(own) | set(COMMON_COLUMNS.get(table, ())) if own else set()
    if own and table == "seats" and game.seat_values is not None:
        wanted.add(game.seat_values.option)  # the seats study's values per seat (its factorial's columns)
    return [c for c in present if c in wanted]


def export_arm(run_dir: Path, target: Path) -> dict:
    """Write the compact run of the finished arm ``run_dir`` into ``target`` (replaced); its entry for MANIFEST.json."""
    run = open_run(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    game = game_of(manifest)
    if target.exists():
        shutil.rmtree(target)
    columns: dict[str, list[str]] = {}
    for table in records.columns(game):
        frame = pl.concat([records.read_table(f) for f in run.files(table)], how="vertical_relaxed")
        columns[table] = kept_columns(game, table, frame.columns)
        (target / table).mkdir(parents=True)
        _write_compact(frame.select(columns[table]) if columns[table] else frame.select("game").head(0),
                       target / table / chunk_name(0))  # fmt: skip
    done = read_ledger(run_dir / LEDGER) or {int(c["chunk"]): c for c in manifest.get("chunks", ())}  # compact
    counts = {k: sum(int(c.get(k, 0)) for c in done.values()) for k in COUNTS}
    games = run.check.games_read if run.check else counts["games"]
    compact = {
        **manifest, "chunk_size": max(games, 1), "chunk_count": 1,
        "chunks": [{"chunk": 0, "first": 0, "count": games, "state": "done", **counts}],
        EVIDENCE: {"chunk_size": (manifest.get(EVIDENCE) or manifest)["chunk_size"], "columns": columns,
                   "components_file": _copy_components(manifest, run_dir, target)},
    }  # fmt: skip
    (target / "manifest.json").write_text(json.dumps(compact, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    log = run_dir / "run.log"
    if log.exists():
        kept = [line for line in log.read_text(encoding="utf-8").splitlines() if RUN_LOG_KEPT.search(line)]
        (target / "run.log").write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
    return arm_entry(target, compact)


def _copy_components(manifest: dict, run_dir: Path, target: Path) -> str | None:
    """Keep the arm's component file (a repriced variant the study wrote) beside its compact run, so the arm can be
    replayed on another machine; its name there (None: the game's standard set)."""
    given = (manifest.get("settings") or {}).get("components")
    if not given:
        return None
    kept = (manifest.get(EVIDENCE) or {}).get("components_file")  # a compact run exported again
    source = Path(given) if Path(given).is_file() else run_dir / str(kept)
    if not source.is_file():
        return None
    shutil.copy2(source, target / "components.toml")
    return "components.toml"


def _write_compact(frame: pl.DataFrame, path: Path) -> None:
    """One table's rows in one Parquet file, small: zstd, integers delta-encoded (game and group numbers climb by
    one), other columns dictionary-encoded, no statistics."""
    table = frame.to_arrow()
    ints = [f.name for f in table.schema if pa.types.is_integer(f.type)]
    pq.write_table(table, path, compression="zstd", compression_level=19, write_statistics=False,
                   use_dictionary=[n for n in table.schema.names if n not in ints],
                   column_encoding={n: "DELTA_BINARY_PACKED" for n in ints})  # fmt: skip


def stored_tables(manifest: dict) -> dict[str, list[str]] | None:
    """A compact run's stored columns by table (a table kept empty: none); None for a run played here."""
    evidence = manifest.get(EVIDENCE)
    return dict(evidence["columns"]) if isinstance(evidence, dict) else None


def arm_entry(target: Path, manifest: dict) -> dict:
    """An arm's line in MANIFEST.json: where it is, what it played, which code, and its check by replay."""
    settings = manifest.get("settings") or {}
    summary = {k: settings.get(k) for k in ("game", "players", "strategies", "groups", "components", "rules")
               if k in settings}  # fmt: skip
    return {
        "path": target.as_posix(), "settings": summary, "code_fingerprint": manifest.get("code_fingerprint"),
        "engine_version": manifest.get("engine_version"), "components_hash": manifest.get("components_hash"),
        "games": manifest.get("total_games"), "verified": manifest.get("verified"),
    }  # fmt: skip


def export_study(source: Path, target: Path) -> Path:
    """Export every arm of the study played in ``source`` into ``target/evidence`` (replaced), with MANIFEST.json
    (the study's command from its study.json, every arm) and COLUMNS.md. Returns the evidence directory."""
    evidence = target / EVIDENCE
    if evidence.exists():
        shutil.rmtree(evidence)
    evidence.mkdir(parents=True)
    document = source / "study.json" if (source / "study.json").exists() else source / "balance.json"
    study = json.loads(document.read_text(encoding="utf-8"))
    finished = [arm for arm in arm_dirs(source) if read_manifest(arm).get("state") == "done"]  # not an abandoned one
    arms = [export_arm(arm, evidence / arm.relative_to(source)) for arm in finished]
    for arm in arms:
        arm["path"] = Path(arm["path"]).relative_to(evidence).as_posix()
    index = {"study": target.name, "command": study.get("command"), "arms": arms}
    (evidence / INDEX).write_text(json.dumps(index, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (evidence / COLUMNS_FILE).write_text(columns_page(evidence, arms), encoding="utf-8")
    return evidence


def columns_page(evidence: Path, arms: list[dict]) -> str:
    """COLUMNS.md: per game and table, the kept columns with their meaning (the recorded column docs)."""
    lines = [
        "# Columns of the evidence",
        "",
        "Each arm under runs/ is a compact run: per table one Parquet file (chunk-000000.parquet) with every game's "
        "rows and these columns only. A game's seed is implied by the root seed and the game number.",
        "",
    ]
    seen: set[tuple[str, str]] = set()
    for arm in arms:
        manifest = json.loads((evidence / arm["path"] / "manifest.json").read_text(encoding="utf-8"))
        game = game_of(manifest)
        docs = {t: {c.name: c.meaning for c in cols} for t, cols in records.columns(game).items()}
        for table, columns in manifest[EVIDENCE]["columns"].items():
            if (game.name, table) in seen:
                continue
            seen.add((game.name, table))
            lines += [f"## {game.name}: {table}", ""]
            lines += [f"- `{c}`: {' '.join(docs[table].get(c, '').split())}" for c in columns]
            lines += [] if columns else ["Not kept (no study reads it): an empty file, so the run opens as a run."]
            lines.append("")
    return "\n".join(lines)


def evidence_studies(root: Path) -> list[Path]:
    """The studies with evidence at ``root``: the study itself, or every one of a published set; ValueError if none."""
    if not root.is_dir():
        raise ValueError(f"{root}: no such directory")
    studies = [root] if (root / EVIDENCE).is_dir() else sorted(p.parent for p in root.glob(f"*/{EVIDENCE}"))
    if not studies:
        raise ValueError(f"{root}: no study with evidence there (a study directory or a published set)")
    return studies


def read_manifest(arm: Path) -> dict:
    """A compact run's manifest.json."""
    return json.loads((arm / "manifest.json").read_text(encoding="utf-8"))


def evidence_arms(study: Path) -> list[Path]:
    """The compact runs of a study's evidence, sorted."""
    return arm_dirs(study / EVIDENCE)


def missing_arms(study: Path) -> list[str]:
    """The arms the study's MANIFEST.json lists whose compact run is not there (a clone that lost them: an ignore
    rule, a partial copy), by their path under ``evidence/``."""
    path = study / EVIDENCE / INDEX
    listed = json.loads(path.read_text(encoding="utf-8")).get("arms", []) if path.is_file() else []
    return [arm["path"] for arm in listed if not (study / EVIDENCE / arm["path"] / "manifest.json").is_file()]


def record_verification(study: Path, checks: dict[str, dict]) -> None:
    """Write each arm's check by replay (``palais verify --record``) and the study's latest into MANIFEST.json."""
    path = study / EVIDENCE / INDEX
    index = json.loads(path.read_text(encoding="utf-8"))
    for arm in index.get("arms", []):
        if arm["path"] in checks:
            arm["last_verified"] = checks[arm["path"]]
    latest = [a.get("last_verified") for a in index.get("arms", [])]
    if latest and all(latest):
        index["last_verified"] = {k: max(str(v[k]) for v in latest) for k in ("at", "code_fingerprint")}
    path.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _with_out(argv: list[str], out: Path) -> list[str]:
    """The command's arguments with its ``--out`` replaced by ``out``."""
    result, skip = [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg == "--out" and i + 1 < len(argv):
            result += ["--out", str(out)]
            skip = True
        elif arg.startswith("--out="):
            result.append(f"--out={out}")
        else:
            result.append(arg)
    return result


def renderable(study: Path) -> bool:
    """Whether the study's recorded command is a ``palais study``/``palais balance`` command line to render with
    (a study run in-process by a test records its test runner's arguments instead: its page is copied as it is)."""
    index = json.loads((study / EVIDENCE / INDEX).read_text(encoding="utf-8"))
    argv = shlex.split(str(index.get("command") or ""))
    return len(argv) > 2 and argv[0] == "palais" and argv[1] in ("study", "balance")


def render_study(study: Path) -> Path:
    """Render the study page (study.md, study.json, charts) in ``study`` from its evidence alone: its recorded
    command run on the evidence with nothing played (``palais`` in a process of its own, ``RENDER_ONLY_ENV`` set:
    ``arms.play_arm`` then only accepts finished arms). A missing arm: the command's one error line, then
    :class:`RenderFailed`."""
    evidence = study / EVIDENCE
    try:
        index = json.loads((evidence / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{evidence / INDEX}: no evidence manifest ({exc})") from None
    command = str(index.get("command") or "")
    argv = shlex.split(command)[1:]
    if not argv:
        raise ValueError(f"{evidence / INDEX}: no recorded command to render")
    made = _rendered_files(evidence)
    env = {**os.environ, RENDER_ONLY_ENV: "1", RECORDED_COMMAND_ENV: command}
    done = subprocess.run([sys.executable, "-m", "palais_sim.cli", *_with_out(argv, evidence)], env=env,
                          stdout=subprocess.DEVNULL, check=False)  # fmt: skip
    if done.returncode:
        raise RenderFailed(f"{study}: not rendered from its evidence", done.returncode)
    _move_page(evidence, study, made)
    return study / ("study.md" if (study / "study.md").exists() else "balance.md")


def _rendered_files(evidence: Path) -> set[Path]:
    """What the evidence directory holds before rendering (everything else the study wrote there is removed)."""
    return set(evidence.rglob("*"))


def _move_page(evidence: Path, study: Path, before: set[Path]) -> None:
    """Move the rendered page (study.md, study.json, the PNG charts) out of the evidence into the study directory,
    and remove whatever else the render wrote there (the HTML page, repriced component files)."""
    charts = study / "charts"
    if charts.exists():
        shutil.rmtree(charts)
    charts.mkdir(parents=True)
    for png in sorted((evidence / "charts").glob("*.png")):
        shutil.copy2(png, charts / png.name)
    for name in PAGE_FILES:
        if (evidence / name).exists():
            shutil.copy2(evidence / name, study / name)
    for path in sorted(set(evidence.rglob("*")) - before, reverse=True):  # a directory after what it holds
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def restore(published: Path, studies: Path) -> list[Path]:
    """Copy every arm of the published evidence into the studies' run directories where no run is there yet, so a
    study played again keeps each arm that holds for today's code (``arms.play_arm``: played by it, or verified by
    replaying a sample) and plays only the others. Returns the arms restored."""
    restored: list[Path] = []
    if not any(published.glob(f"*/{EVIDENCE}")) and not (published / EVIDENCE).is_dir():
        return restored  # a set published before it carried evidence: nothing to restore
    for study in evidence_studies(published):
        for arm in evidence_arms(study):
            target = studies / study.name / arm.relative_to(study / EVIDENCE)
            if not (target / "manifest.json").exists():
                shutil.copytree(arm, target, dirs_exist_ok=True)
                restored.append(target)
    return restored


def main(argv: list[str]) -> int:
    """``python -m palais_sim.study.compact render DIR...``: re-render every study with evidence under each DIR (a
    study directory or a published set) and the set's index; errors are one line and exit status 1."""
    usage = "usage: python -m palais_sim.study.compact render DIR... | restore PUBLISHED STUDIES"
    if len(argv) < 2 or argv[0] not in ("render", "restore") or (argv[0] == "restore" and len(argv) != 3):
        print(f"error: {usage}", file=sys.stderr)
        return 1
    try:
        if argv[0] == "restore":
            if Path(argv[1]).is_dir():  # a fresh set has no evidence yet: nothing to restore
                print(f"{len(restore(Path(argv[1]), Path(argv[2])))} arms restored from {argv[1]}")
            return 0
        for root in (Path(a) for a in argv[1:]):
            for study in evidence_studies(root):
                print(render_study(study))
    except RenderFailed as exc:
        return exc.code
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"error: {' '.join(str(exc).split()) or type(exc).__name__}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover - make reports-render
    sys.exit(main(sys.argv[1:]))
