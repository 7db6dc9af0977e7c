"""Open a run directory for analysis: the manifest, the check of the run against it, lazy scans of its tables, and
the component set it used.

Nothing here reads rows but the games' error column: every table is a ``polars.LazyFrame`` over the run's chunk
files. Analyses collect aggregates with the streaming engine (``collect``), so a run larger than memory can be
reported on. Failed games (``error`` not null) are left out of every analysis and counted in the run summary.

A run played in parts (``palais simulate --shard K/N``, on several machines) is opened from the N directories as
the one run: :class:`Run` holds every part, :meth:`Run.files` lists every part's chunk files in the chunk order of
the run played whole (the file names are the whole run's), and the manifest is the whole schedule's, so every
analysis reads the parts as it reads the run played whole and gives the same numbers. Parts of different schedules,
a part given twice and missing parts are refused (:func:`open_run`).

A chunk is read when its files (one per table of the run's game) are all there, the rule every analysis follows
(``batches.chunk_names`` too). :func:`open_run` checks the run against its manifest first: a chunk file that is
truncated or unreadable, or holds another number of games than the manifest says, is an error (nothing is
reported from a damaged run); chunks not played yet, and done chunks with a file missing, are left out and listed
in :attr:`Run.problems`, which the reports print at the top and on the console.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from palais_sim.core.game import Game
from palais_sim.tournament import records
from palais_sim.tournament.ledger import LEDGER, chunk_plan, read_ledger
from palais_sim.tournament.records import SCHEMA_VERSION, game_of
from palais_sim.tournament.shards import Shard, plan_range, schedule_hash

ENGINE = "streaming"


class RunError(ValueError):
    """A directory that cannot be analysed; the message says what is wrong."""


CHUNK_FILE = re.compile(r"chunk-(\d+)\.parquet")


def table_names(manifest: dict) -> tuple[str, ...]:
    """The tables of the run's game, games and seats first."""
    return tuple(records.columns(game_of(manifest)))


@dataclass
class RunCheck:
    """The run on disk against its manifest."""

    chunks: int  # chunks in the manifest
    total_games: int  # games the run was set up to play
    names: list[str]  # the chunk files read: present in all three tables
    games_read: int  # games in those files
    pending: list[int]  # chunks the manifest does not mark done and whose files are not all on disk
    pending_games: int
    damaged: dict[int, list[str]]  # chunks marked done with a table's file missing -> those tables
    damaged_games: int
    unmarked: list[int]  # chunks complete on disk but not marked done (the run was killed before it could)
    state: str

    @property
    def complete(self) -> bool:
        return not self.pending and not self.damaged

    def problems(self, path: Path) -> list[str]:
        """What is missing, one sentence each, for the top of a report and the console."""
        out = []
        if self.pending:
            out.append(
                f"Incomplete run: {len(self.pending):,} of {self.chunks:,} chunks ({self.pending_games:,} of "
                f"{self.total_games:,} games) are not played yet (manifest state '{self.state}'); this report covers "
                f"the {self.games_read:,} games played. Finish the run with: palais simulate --out {path} --resume"
            )
        if self.damaged:
            parts = [f"chunk {c} ({', '.join(t)} missing)" for c, t in sorted(self.damaged.items())]
            out.append(
                f"Damaged run: {len(self.damaged)} chunk(s) marked done have files missing and are left out "
                f"({self.damaged_games:,} games): {_listing(parts)}. To play them again: "
                f"palais simulate --out {path} --resume"
            )
        if self.unmarked:
            out.append(
                f"{len(self.unmarked)} chunk(s) complete on disk are not marked done in the manifest (the run was "
                f"stopped before it could): {_listing([str(c) for c in self.unmarked])}; they are included, and "
                "palais simulate --resume counts them."
            )
        return out


def _listing(items: list[str], most: int = 8) -> str:
    return ", ".join(items[:most]) + (f" and {len(items) - most} more" if len(items) > most else "")


def check_run(path: Path, manifest: dict) -> RunCheck:
    """Which chunk files to read, and what is missing or damaged; raises RunError on an unreadable chunk file."""
    entries = manifest.get("chunks")
    names_of_tables = table_names(manifest)
    present: dict[str, dict[int, str]] = {}
    for table in names_of_tables:
        found = {}
        for file in (path / table).glob("chunk-*.parquet"):
            match = CHUNK_FILE.fullmatch(file.name)
            if match:
                found[int(match.group(1))] = file.name
        present[table] = found
    complete = set.intersection(*(set(present[t]) for t in names_of_tables))
    listed = {int(c["chunk"]): c for c in entries} if isinstance(entries, list) else {}
    done = {c for c, e in listed.items() if e.get("state") == "done"}
    names, games_read = [], 0
    for chunk in sorted(complete):
        rows = {}
        for table in names_of_tables:
            file = path / table / present[table][chunk]
            try:
                rows[table] = pq.read_metadata(file).num_rows
            except Exception as exc:  # noqa: BLE001 - truncated, not Parquet, unreadable: the run is damaged
                reason = " ".join(str(exc).split())[:160]
                raise RunError(
                    f"{file} is truncated or unreadable ({reason}); the run is damaged. To play chunk {chunk} "
                    f"again: palais simulate --out {path} --resume"
                ) from None
        expected = listed.get(chunk, {}).get("count")
        if expected is not None and rows["games"] != expected:
            raise RunError(
                f"{path / 'games' / present['games'][chunk]} holds {rows['games']} games, the manifest says "
                f"{expected}: not this run's file?"
            )
        names.append(present["games"][chunk])
        games_read += rows["games"]
    damaged = {c: [t for t in names_of_tables if c not in present[t]] for c in sorted(done - complete)}
    pending = sorted(set(listed) - done - complete)
    return RunCheck(
        chunks=len(listed),
        total_games=int(manifest.get("total_games") or sum(int(e.get("count", 0)) for e in listed.values())),
        names=names,
        games_read=games_read,
        pending=pending,
        pending_games=sum(int(listed[c].get("count", 0)) for c in pending),
        damaged=damaged,
        damaged_games=sum(int(listed[c].get("count", 0)) for c in damaged),
        unmarked=sorted(complete - done) if listed else [],
        state=str(manifest.get("state", "unknown")),
    )


def collect(frame: pl.LazyFrame) -> pl.DataFrame:
    return frame.collect(engine=ENGINE)


def collect_all(frames: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    return pl.collect_all(frames, engine=ENGINE)


@dataclass
class Part:
    """One directory of a run played in parts: its own manifest (with its chunk plan) and its check."""

    path: Path
    manifest: dict
    check: RunCheck


@dataclass
class Run:
    path: Path  # the run directory (a run played in parts: its first part's; every part in ``parts``)
    manifest: dict  # a run played in parts: the whole schedule's (see :func:`merged_manifest`)
    components: Any  # the game's component set; None when the run's could not be found
    component_note: str = ""
    check: RunCheck | None = field(default=None, repr=False)
    parts: list[Part] = field(default_factory=list, repr=False)  # a run played in parts: each part, in order

    @property
    def name(self) -> str:
        """The directory's name (parts: their names joined with '+', shortened when long)."""
        names = [p.path.resolve().name for p in self.parts] or [self.path.resolve().name]
        joined = "+".join(names)
        return joined if len(names) == 1 or len(joined) <= 60 else f"{names[0]}+{len(names) - 1}-more"

    @property
    def directories(self) -> list[Path]:
        """Every directory the run's files are in (one, or its parts' in order)."""
        return [p.path for p in self.parts] or [self.path]

    @property
    def game(self) -> Game:
        """The game the run played (its manifest names it; looked up here, where the run is read)."""
        return game_of(self.manifest)

    @property
    def table_names(self) -> tuple[str, ...]:
        return table_names(self.manifest)

    @property
    def tie_column(self) -> str:
        """The seats column that breaks a tie on total score in this run's game and rules (ranks, head-to-head and
        the paired tests use it, so they agree with the engine's ``win`` column)."""
        return self.game.tie_column(self.manifest.get("settings") or {})

    @property
    def problems(self) -> list[str]:
        """What is missing from the run (see :class:`RunCheck`), for the top of a report and the console (a run in
        parts: each part's, which names the part's directory)."""
        if self.parts:
            return [problem for p in self.parts for problem in p.check.problems(p.path)]
        return self.check.problems(self.path) if self.check is not None else []

    def files(self, table: str) -> list[Path]:
        """The table's chunk files that are read: those of chunks whose files are all there (every table's), in chunk
        order (a run in parts: every part's, in the order of the run played whole)."""
        return [self.file(table, name) for name in self.chunk_names()]

    def chunk_names(self) -> list[str]:
        """The names of the chunk files read (the same name in every table), in chunk order."""
        return list(self.check.names if self.check is not None else check_run(self.path, self.manifest).names)

    def file(self, table: str, name: str) -> Path:
        """The path of a table's chunk file by its name (in the part that holds it)."""
        if self.parts:
            return self._where()[name] / table / name
        return self.path / table / name

    def _where(self) -> dict[str, Path]:
        """Which part holds each chunk file (worked out once)."""
        if "_located" not in self.__dict__:
            self.__dict__["_located"] = {name: p.path for p in self.parts for name in p.check.names}
        return self.__dict__["_located"]

    def scan(self, table: str) -> pl.LazyFrame:
        files = self.files(table)
        if not files:
            return pl.LazyFrame(schema=records.tables(self.game)[table])
        return pl.scan_parquet(files)

    def games(self) -> pl.LazyFrame:
        """Games that were played (no error)."""
        return self.scan("games").filter(pl.col("error").is_null())

    def seats(self) -> pl.LazyFrame:
        """Seat rows of played games, with the game's player count, setup columns (``GAME.setup_columns``) and
        rounds."""
        setup = list(self.game.setup_columns)
        games = self.games().select("game", "players", *setup, "rounds", "finished")
        return self.scan("seats").join(games, on="game", how="inner")

    @cached_property
    def summary(self) -> dict:
        games = self.scan("games")
        row = collect(
            games.select(
                pl.len().alias("games"),
                pl.col("error").is_not_null().sum().alias("failed"),
                (pl.col("error").is_null() & ~pl.col("finished")).sum().alias("unfinished"),
            )
        ).row(0, named=True)
        # a group-by, which the streaming engine runs a batch at a time (a filtered unique() holds the column)
        counts = collect(self.games().group_by("players").len())["players"].sort().to_list()
        seats = collect(self.scan("seats").select(pl.len())).item()
        return {
            "run": self.name,
            "path": str(self.path),
            **({"parts": [str(p.path) for p in self.parts]} if self.parts else {}),
            "games": int(row["games"]),
            "failed": int(row["failed"]),
            "unfinished": int(row["unfinished"]),
            "groups": self._played_groups(),
            "player_counts": [int(p) for p in counts],
            "seat_rows": int(seats),
            "schema_version": self.manifest.get("schema_version"),
            "engine_version": self.manifest.get("engine_version"),
            "components_hash": self.manifest.get("components_hash"),
            "root_seed": self.manifest.get("root_seed"),
            "settings": self.manifest.get("settings", {}),
            "problems": self.problems,
        }

    def _played_groups(self, games_at_once: int = 200_000) -> int:
        """Distinct seat-rotation groups of played games, counted a few chunk files (``games_at_once`` games) at a
        time, as a set of every group of the run would grow with it: the chunk plan deals the groups in order, so a
        group lies in one chunk or runs on into the next ones, and only the groups of the files before are kept."""
        count, before = 0, pl.Series("group", [], dtype=pl.Int64)
        files = sorted(self.files("games"), key=lambda f: f.name)
        while files:
            some, games = [], 0
            while files and (not some or games < games_at_once):
                some.append(files.pop(0))
                games += pq.read_metadata(some[-1]).num_rows
            here = collect(pl.scan_parquet(some).filter(pl.col("error").is_null()).select(pl.col("group").unique()))
            count += len(here) - int(here["group"].is_in(before.cast(here["group"].dtype).implode()).sum())
            before = here["group"]
        return count


def open_run(path: Path | Sequence[Path], components: Path | None = None) -> Run:
    """Check ``path`` is a run directory this version can read and open it (reads only the manifest); several
    directories (or one) that are the parts of one schedule (``palais simulate --shard``) open as the one run."""
    paths = [Path(path)] if isinstance(path, str | Path) else [Path(p) for p in path]
    if not paths:
        raise RunError("no run directory given")
    parts = [_open_part(p) for p in paths]
    if len(parts) == 1 and Shard.of(parts[0].manifest) is None:
        joined, manifest, check, path = [], parts[0].manifest, parts[0].check, parts[0].path
    else:
        joined = _ordered_parts(parts)
        manifest, check, path = merged_manifest(joined), merged_check(joined), joined[0].path
    if not check.names:
        detail = f"{len(check.pending):,} of {check.chunks:,} chunks not played yet" if check.chunks else "no chunks"
        where = path if not joined else " + ".join(str(p.path) for p in joined)
        raise RunError(f"{where} has no complete chunk to report on ({detail}); nothing to report yet")
    comps, note = _components_for(game_of(manifest), manifest, components)
    run = Run(path=path, manifest=manifest, components=comps, component_note=note, check=check, parts=joined)
    _require_played_games(run)
    return run


def _open_part(path: Path) -> Part:
    """A run directory's manifest (with its chunk plan: a part's block of the whole plan) and its check."""
    if not path.is_dir():
        raise RunError(f"{path} is not a directory")
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise RunError(f"{path} has no manifest.json; not a palais-sim run directory")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8 text at all
        raise RunError(f"{manifest_path} cannot be read ({exc})") from None
    if not isinstance(manifest, dict):
        raise RunError(f"{manifest_path} is not a run manifest")
    if "chunks" not in manifest:  # the chunk states are in the run's ledger
        try:
            done = read_ledger(path / LEDGER)
            plan = chunk_plan(int(manifest["total_games"]), int(manifest["chunk_size"]), done)
            block = plan_range(manifest)
        except (KeyError, TypeError, ValueError) as exc:
            raise RunError(f"{manifest_path}: no chunk plan ({exc})") from None
        manifest = {**manifest, "chunks": plan[block.start : block.stop]}
    version = manifest.get("schema_version")
    if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise RunError(f"{path}: schema version {version!r} is not one this version reads (1 to {SCHEMA_VERSION})")
    check = check_run(path, manifest)
    if isinstance(manifest.get("shard"), dict):  # a part plans its block's games, not the schedule's
        check.total_games = int(manifest["shard"].get("games", check.total_games))
    return Part(path, manifest, check)


def _ordered_parts(parts: list[Part]) -> list[Part]:
    """The parts in order, once each, all of one schedule and none missing; else a RunError in one line."""
    seen: dict[Path, Path] = {}
    for p in parts:
        key = p.path.resolve()
        if key in seen:
            raise RunError(f"{p.path} is given twice; give each part's directory once")
        seen[key] = p.path
    shards = [Shard.of(p.manifest) for p in parts]
    for p, shard in zip(parts, shards, strict=True):
        if shard is None:
            raise RunError(f"{p.path} holds a run played whole, not a part (palais simulate --shard); report it alone")
    first, first_hash = parts[0], schedule_hash(parts[0].manifest)
    for p, shard in zip(parts[1:], shards[1:], strict=True):
        if schedule_hash(p.manifest) != first_hash:
            raise RunError(
                f"{first.path} and {p.path} are parts of different schedules ({_difference(first.manifest, p.manifest)}"
                "); only the parts of one schedule report as one run"
            )
        if shard.count != shards[0].count:  # type: ignore[union-attr]
            raise RunError(
                f"{first.path} is part {shards[0]} but {p.path} is part {shard} (a split of the schedule into "
                "another number of parts); only the parts of one split report as one run"
            )
    by_index: dict[int, Part] = {}
    for p, shard in zip(parts, shards, strict=True):
        assert shard is not None
        if shard.index in by_index:
            raise RunError(f"{by_index[shard.index].path} and {p.path} are both part {shard}; give each part once")
        by_index[shard.index] = p
    count = shards[0].count  # type: ignore[union-attr]
    missing = [str(k) for k in range(1, count + 1) if k not in by_index]
    if missing:
        given = ", ".join(str(p.path) for p in parts)
        which = f"part {missing[0]}" if len(missing) == 1 else f"parts {', '.join(missing[:-1])} and {missing[-1]}"
        raise RunError(
            f"{which} of {count} of this schedule {'is' if len(missing) == 1 else 'are'} missing (given: {given}); "
            f"report every part's directory together (palais simulate --shard K/{count} plays part K)"
        )
    ordered = [by_index[k] for k in range(1, count + 1)]
    holder: dict[str, Path] = {}
    for p in ordered:
        for name in p.check.names:
            if name in holder:
                raise RunError(
                    f"{holder[name]} and {p.path} both hold {name}; a part's directory holds only its own chunks"
                )
            holder[name] = p.path
    return ordered


def _difference(a: dict, b: dict) -> str:
    """The first thing that differs between two runs' schedules, as ``name: this vs that``."""
    from palais_sim.tournament.shards import SCHEDULE_KEYS, normalised_settings

    sa, sb = normalised_settings(dict(a.get("settings") or {})), normalised_settings(dict(b.get("settings") or {}))
    for key in sorted(set(sa) | set(sb)):
        if sa.get(key) != sb.get(key):
            return f"{key}: {sa.get(key)!r} vs {sb.get(key)!r}"
    for key in SCHEDULE_KEYS:
        if a.get(key) != b.get(key):
            return f"{key}: {a.get(key)!r} vs {b.get(key)!r}"
    return "schedule hashes differ"


def merged_manifest(parts: list[Part]) -> dict:
    """The manifest of the run the parts make, as the run played whole would have it: the whole chunk plan, the
    state 'done' when every part is done (else the first part's that is not), the first creation and the last
    update, every part's sessions, the totals summed; its ``parts`` says how many there are."""
    manifests = [p.manifest for p in parts]
    merged = {k: v for k, v in manifests[0].items() if k != "shard"}
    merged["chunks"] = [entry for m in manifests for entry in m["chunks"]]
    states = [str(m.get("state", "unknown")) for m in manifests]
    merged["state"] = next((s for s in states if s != "done"), "done")
    stamps = [m.get("created") for m in manifests if m.get("created")]
    merged["created"] = min(stamps) if stamps else None
    updates = [m.get("updated") for m in manifests if m.get("updated")]
    merged["updated"] = max(updates) if updates else None
    sessions = [s for m in manifests for s in (m.get("sessions") or [])]
    merged["sessions"] = sorted(sessions, key=lambda s: str(s.get("started", "")))
    totals = [m.get("totals") or {} for m in manifests]
    merged["totals"] = {k: sum(int(t.get(k, 0)) for t in totals) for k in totals[0]}
    merged["parts"] = len(parts)
    return merged


def merged_check(parts: list[Part]) -> RunCheck:
    """The check of the run the parts make (what each part misses stays with its part: :attr:`Run.problems`)."""
    checks = [p.check for p in parts]
    manifest = parts[0].manifest
    return RunCheck(
        chunks=sum(c.chunks for c in checks),
        total_games=int(manifest.get("total_games") or sum(c.total_games for c in checks)),
        names=[n for c in checks for n in c.names],
        games_read=sum(c.games_read for c in checks),
        pending=[n for c in checks for n in c.pending],
        pending_games=sum(c.pending_games for c in checks),
        damaged={k: v for c in checks for k, v in c.damaged.items()},
        damaged_games=sum(c.damaged_games for c in checks),
        unmarked=[n for c in checks for n in c.unmarked],
        state=next((c.state for c in checks if c.state != "done"), "done"),
    )


def _require_played_games(run: Run) -> None:
    """A run where every game failed has nothing to analyse: say so, with the first error."""
    counts = collect(
        run.scan("games").select(
            pl.len().alias("games"),
            pl.col("error").is_null().sum().alias("played"),
            pl.col("error").drop_nulls().first().alias("first_error"),
        )
    ).row(0, named=True)
    if counts["games"] and not counts["played"]:
        first = " ".join(str(counts["first_error"]).split())[:200]
        raise RunError(
            f"every one of the {counts['games']:,} games read from {run.path} failed; nothing to report "
            f"(first error: {first}; all of them are in {run.path / 'run.log'})"
        )


# What a report does without the run's component set: the sections that read a component's details go without them.
WITHOUT_COMPONENTS = "the report reads the tables alone (a component's price counts as recorded there)"


def _components_for(game: Game, manifest: dict, override: Path | None) -> tuple[Any, str]:
    """The run's component set as its game loads it (None, with a note, when it cannot be had)."""
    wanted = manifest.get("components_hash")
    source = override or (manifest.get("settings") or {}).get("components")
    try:
        comps = game.load_components(str(source) if source else None)
    except (ValueError, OSError) as exc:
        return None, f"component set {source} could not be loaded ({exc}); {WITHOUT_COMPONENTS}"
    if comps is None:
        return None, ""
    if wanted and comps.hash != wanted:
        return None, (
            f"the run used component set {wanted}, but {source or 'the standard set'} is {comps.hash}; "
            f"{WITHOUT_COMPONENTS} (pass --components)"
        )
    return comps, ""


def taken_ids(run: Run) -> list[str]:
    """The ids of what a seat takes in the run's game (``GAME.taken``), the component set's
    in its order, then any others the run's rows name; empty in a game where a seat takes nothing."""
    game = run.game
    if game.taken is None or game.taken[0] not in run.table_names:
        return []
    if "_taken_ids" not in run.__dict__:  # read once per run (a pass over every row of the table)
        table, column = game.taken
        ids = game.taken_ids(run.components) if run.components is not None else []
        seen = collect(run.scan(table).select(pl.col(column).unique()))[column].to_list()
        run.__dict__["_taken_ids"] = ids + sorted(set(seen) - set(ids))
    return list(run.__dict__["_taken_ids"])
