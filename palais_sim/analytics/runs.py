"""Open a run directory for analysis: the manifest, lazy scans of its tables, and the component set it used.

Nothing here reads rows: every table is a ``polars.LazyFrame`` over ``DIR/<table>/*.parquet``. Analyses collect
aggregates with the streaming engine (``collect``), so a run larger than memory can be reported on.
Failed games (``error`` not null) are left out of every analysis and counted in the run summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl

from palais_sim.components import ComponentError, ComponentSet, load_components
from palais_sim.tournament.records import SCHEMA_VERSION, TABLES

ENGINE = "streaming"


class RunError(ValueError):
    """A directory that cannot be analysed; the message says what is wrong."""


def collect(frame: pl.LazyFrame) -> pl.DataFrame:
    return frame.collect(engine=ENGINE)


def collect_all(frames: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    return pl.collect_all(frames, engine=ENGINE)


@dataclass
class Run:
    path: Path
    manifest: dict
    components: ComponentSet | None  # None when the run's component set could not be found
    component_note: str = ""

    @property
    def name(self) -> str:
        return self.path.resolve().name

    def scan(self, table: str) -> pl.LazyFrame:
        files = sorted((self.path / table).glob("*.parquet"))
        if not files:
            return pl.LazyFrame(schema=TABLES[table])
        return pl.scan_parquet(files)

    def games(self) -> pl.LazyFrame:
        """Games that were played (no error)."""
        return self.scan("games").filter(pl.col("error").is_null())

    def seats(self) -> pl.LazyFrame:
        """Seat rows of played games, with the game's player count, layout and rounds."""
        games = self.games().select("game", "players", "layout", "rounds", "finished")
        return self.scan("seats").join(games, on="game", how="inner")

    def recruits(self) -> pl.LazyFrame:
        """Recruit rows of played games, with the seat's group, player count, win share and total."""
        seats = self.seats().select("game", "seat", "group", "players", "win", "total")
        return self.scan("recruits").join(seats, on=["game", "seat"], how="inner")

    @cached_property
    def summary(self) -> dict:
        games = self.scan("games")
        row = collect(
            games.select(
                pl.len().alias("games"),
                pl.col("error").is_not_null().sum().alias("failed"),
                (pl.col("error").is_null() & ~pl.col("finished")).sum().alias("unfinished"),
                pl.col("group").filter(pl.col("error").is_null()).n_unique().alias("groups"),
                pl.col("players").filter(pl.col("error").is_null()).unique().sort().implode().alias("player_counts"),
            )
        ).row(0, named=True)
        seats = collect(self.scan("seats").select(pl.len())).item()
        return {
            "run": self.name,
            "path": str(self.path),
            "games": int(row["games"]),
            "failed": int(row["failed"]),
            "unfinished": int(row["unfinished"]),
            "groups": int(row["groups"]),
            "player_counts": [int(p) for p in (row["player_counts"] or [])],
            "seat_rows": int(seats),
            "schema_version": self.manifest.get("schema_version"),
            "engine_version": self.manifest.get("engine_version"),
            "components_hash": self.manifest.get("components_hash"),
            "root_seed": self.manifest.get("root_seed"),
            "settings": self.manifest.get("settings", {}),
        }


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
    except (OSError, json.JSONDecodeError) as exc:
        raise RunError(f"{manifest_path} cannot be read ({exc})") from None
    if not isinstance(manifest, dict):
        raise RunError(f"{manifest_path} is not a run manifest")
    version = manifest.get("schema_version")
    if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise RunError(f"{path}: schema version {version!r} is not one this version reads (1 to {SCHEMA_VERSION})")
    if not any((path / "games").glob("*.parquet")):
        raise RunError(f"{path} has no games yet (no games/*.parquet)")
    comps, note = _components_for(manifest, components)
    return Run(path=path, manifest=manifest, components=comps, component_note=note)


def _components_for(manifest: dict, override: Path | None) -> tuple[ComponentSet | None, str]:
    wanted = manifest.get("components_hash")
    source = override or (manifest.get("settings") or {}).get("components")
    try:
        comps = load_components(Path(source) if source else None)
    except (ComponentError, OSError) as exc:
        return None, f"component set {source} could not be loaded ({exc}); noble costs count gold only"
    if wanted and comps.hash != wanted:
        return None, (
            f"the run used component set {wanted}, but {source or 'the standard set'} is {comps.hash}; "
            "noble costs count gold only (pass --components)"
        )
    return comps, ""


def noble_ids(run: Run) -> list[str]:
    """The component set's noble ids in order, then any others the run's recruits name."""
    ids = [n.id for n in run.components.nobles] if run.components else []
    seen = collect(run.scan("recruits").select(pl.col("noble").unique()))["noble"].to_list()
    return ids + sorted(set(seen) - set(ids))
