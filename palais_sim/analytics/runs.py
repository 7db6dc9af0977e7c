"""Open a run directory for analysis: the manifest, the check of the run against it, lazy scans of its tables, and
the component set it used.

Nothing here reads rows but the games' error column: every table is a ``polars.LazyFrame`` over the run's chunk
files. Analyses collect aggregates with the streaming engine (``collect``), so a run larger than memory can be
reported on. Failed games (``error`` not null) are left out of every analysis and counted in the run summary.

A chunk is read when its files (one per table of the run's game) are all there, the rule every analysis follows
(``batches.chunk_names`` too). :func:`open_run` checks the run against its manifest first: a chunk file that is
truncated or unreadable, or holds another number of games than the manifest says, is an error (nothing is
reported from a damaged run); chunks not played yet, and done chunks with a file missing, are left out and listed
in :attr:`Run.problems`, which the reports print at the top and on the console.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from palais_sim.core.game import Game
from palais_sim.games import get_game
from palais_sim.tournament import records
from palais_sim.tournament.ledger import LEDGER, chunk_plan, read_ledger
from palais_sim.tournament.records import SCHEMA_VERSION, game_of

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
class Run:
    path: Path
    manifest: dict
    components: Any  # the game's component set; None when the run's could not be found
    component_note: str = ""
    check: RunCheck | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.resolve().name

    @property
    def game(self) -> str:
        """The game the run played (``palais games``)."""
        return game_of(self.manifest)

    @property
    def table_names(self) -> tuple[str, ...]:
        return table_names(self.manifest)

    @property
    def tie_column(self) -> str:
        """The seats column that breaks a tie on total score in this run's game and rules (ranks, head-to-head and
        the paired tests use it, so they agree with the engine's ``win`` column)."""
        return get_game(self.game).tie_column(self.manifest.get("settings") or {})

    @property
    def problems(self) -> list[str]:
        """What is missing from the run (see :class:`RunCheck`), for the top of a report and the console."""
        return self.check.problems(self.path) if self.check is not None else []

    def files(self, table: str) -> list[Path]:
        """The table's chunk files that are read: those of chunks whose three files are all there."""
        names = self.check.names if self.check is not None else check_run(self.path, self.manifest).names
        return [self.path / table / name for name in names]

    def scan(self, table: str) -> pl.LazyFrame:
        files = self.files(table)
        if not files:
            return pl.LazyFrame(schema=records.tables(self.game)[table])
        return pl.scan_parquet(files)

    def games(self) -> pl.LazyFrame:
        """Games that were played (no error)."""
        return self.scan("games").filter(pl.col("error").is_null())

    def seats(self) -> pl.LazyFrame:
        """Seat rows of played games, with the game's player count, setup columns (the layout) and rounds."""
        setup = list(get_game(self.game).setup_columns)
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


def open_run(path: Path, components: Path | None = None) -> Run:
    """Check ``path`` is a run directory this version can read and open it (reads only the manifest)."""
    path = Path(path)
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
        except (KeyError, TypeError, ValueError) as exc:
            raise RunError(f"{manifest_path}: no chunk plan ({exc})") from None
        manifest = {**manifest, "chunks": plan}
    version = manifest.get("schema_version")
    if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise RunError(f"{path}: schema version {version!r} is not one this version reads (1 to {SCHEMA_VERSION})")
    check = check_run(path, manifest)
    if not check.names:
        detail = f"{len(check.pending):,} of {check.chunks:,} chunks not played yet" if check.chunks else "no chunks"
        raise RunError(f"{path} has no complete chunk to report on ({detail}); nothing to report yet")
    comps, note = _components_for(get_game(game_of(manifest)), manifest, components)
    run = Run(path=path, manifest=manifest, components=comps, component_note=note, check=check)
    _require_played_games(run)
    return run


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


def _components_for(game: Game, manifest: dict, override: Path | None) -> tuple[Any, str]:
    """The run's component set as its game loads it (None, with a note, when it cannot be had)."""
    wanted = manifest.get("components_hash")
    source = override or (manifest.get("settings") or {}).get("components")
    try:
        comps = game.load_components(str(source) if source else None)
    except (ValueError, OSError) as exc:
        return None, f"component set {source} could not be loaded ({exc}); noble costs count gold only"
    if comps is None:
        return None, ""
    if wanted and comps.hash != wanted:
        return None, (
            f"the run used component set {wanted}, but {source or 'the standard set'} is {comps.hash}; "
            "noble costs count gold only (pass --components)"
        )
    return comps, ""


def taken_ids(run: Run) -> list[str]:
    """The ids of what a seat takes in the run's game (``GAME.taken``: Palais Royal's nobles), the component set's
    in its order, then any others the run's rows name; empty in a game where a seat takes nothing."""
    game = get_game(run.game)
    if game.taken is None or game.taken[0] not in run.table_names:
        return []
    if "_taken_ids" not in run.__dict__:  # read once per run (a pass over every row of the table)
        table, column = game.taken
        ids = game.taken_ids(run.components) if run.components is not None else []
        seen = collect(run.scan(table).select(pl.col(column).unique()))[column].to_list()
        run.__dict__["_taken_ids"] = ids + sorted(set(seen) - set(ids))
    return list(run.__dict__["_taken_ids"])
