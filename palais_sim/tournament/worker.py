"""What runs in a worker: play one chunk of scheduled games and write its Parquet files (one per table) atomically.

Static data (settings, component set) arrives once through :func:`init_worker`; a task is only
``(chunk, first, count, out_dir)``. Strategies are created fresh for every game, so a strategy that keeps state
cannot make results depend on how games were chunked.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from palais_sim.core.errors import StrategyError
from palais_sim.core.game import Game
from palais_sim.registry import load_strategy
from palais_sim.tournament import records
from palais_sim.tournament.schedule import GameSpec, Schedule, Settings

log = logging.getLogger("palais_sim.worker")

_CTX: dict = {}


class ChunkTask(NamedTuple):
    chunk: int
    first: int
    count: int
    out_dir: str | None  # None: play only, write nothing (bench)
    fail_fast: bool = False  # stop the chunk at its first failed game and write nothing
    time_strategies: bool = False  # time every strategy's decisions (ChunkReport.clock; the ladder's speeds)


class ChunkReport(NamedTuple):
    chunk: int
    games: int
    errors: int
    decisions: int
    seconds: float
    first_error: str | None
    cpu_seconds: float = 0.0  # CPU time of the chunk in its worker (robust to other load on the machine)
    stopped: bool = False  # --fail-fast: the chunk stopped at its first failed game; nothing was written
    clock: tuple[tuple[str, int, float], ...] = ()  # time_strategies: (spec, decisions, CPU seconds) per strategy


class TimedStrategy:
    """A strategy whose decisions are counted and timed in CPU time (``clock[spec] = [decisions, seconds]``); every
    other attribute is the strategy's own. Only where asked for: the two clock reads cost a fast strategy a few
    per cent."""

    __slots__ = ("_clock", "_inner")

    def __init__(self, inner: object, clock: list) -> None:
        self._inner = inner
        self._clock = clock

    def choose(self, view: object, decision: object) -> object:
        start = time.process_time()
        choice = self._inner.choose(view, decision)  # type: ignore[attr-defined]
        self._clock[1] += time.process_time() - start
        self._clock[0] += 1
        return choice

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


def chunk_name(chunk: int) -> str:
    return f"chunk-{chunk:06d}.parquet"


def init_worker(settings: Settings, context: object, log_queue, in_worker: bool) -> None:
    """Once per worker: keep the static data (the settings with their game, the game's context: component set, rule
    options), route log records to the parent, leave Ctrl-C to the parent. (Settings pickle with the game's name: a
    worker process gets the game object its own registry holds.)"""
    _CTX["schedule"] = Schedule(settings)
    _CTX["game"] = settings.game
    _CTX["context"] = context
    if in_worker:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the pool
        root = logging.getLogger()
        root.handlers[:] = [logging.handlers.QueueHandler(log_queue)] if log_queue is not None else root.handlers
        root.setLevel(logging.INFO)
        log.debug("worker %d ready (POLARS_MAX_THREADS=%s)", os.getpid(), os.environ.get("POLARS_MAX_THREADS"))


def play_one(spec: GameSpec, clock: dict[str, list] | None = None) -> tuple[dict[str, list[dict]], int]:
    """One game's rows of every table and its decision count; a failure becomes a games row with the seed and the
    error (and no rows in the other tables). With ``clock``, every strategy's decisions are timed into it."""
    game, context = _CTX["game"], _CTX["context"]
    try:
        strategies = [load_strategy(s, game) for s in spec.matchup]
        if clock is not None:
            strategies = [
                TimedStrategy(strategy, clock.setdefault(s, [0, 0.0]))
                for strategy, s in zip(strategies, spec.matchup, strict=True)
            ]
        result = game.play(context, spec.seed, strategies)
    except Exception as exc:  # noqa: BLE001 - whatever goes wrong fails only this game
        message = str(exc) if isinstance(exc, StrategyError) else f"{type(exc).__name__}: {exc}"  # it says where
        log.warning("game %d (seed %d) failed: %s", spec.game, spec.seed, message)
        row = records.failed_game_row(
            game, context, spec.game, spec.seed, spec.group, spec.rotation, list(spec.matchup), message
        )
        return {"games": [row]}, 0
    rows = game.rows(context, result, spec.game, spec.group, spec.rotation)
    for row in rows.get("seats", ()):
        row["strategy_notes"] = strategy_notes(strategies[row["seat"] - 1])
    return rows, result.decisions


def strategy_notes(strategy: object) -> str | None:
    """A strategy's ``notes()`` about the game it has just played, as JSON (the seats table's strategy_notes)."""
    notes = getattr(strategy, "notes", None)
    return json.dumps(notes(), sort_keys=True) if callable(notes) else None


def run_chunk(task: ChunkTask) -> ChunkReport:
    """Play a chunk; write every table of it under a temporary name, then rename them all."""
    start, cpu_start = time.perf_counter(), time.process_time()
    game = _CTX["game"]
    tables: dict[str, list[dict]] = {table: [] for table in game.columns()}
    games = tables["games"]
    decisions = errors = 0
    first_error = None
    clock: dict[str, list] | None = {} if task.time_strategies else None
    for spec in _CTX["schedule"].games(task.first, task.count):
        rows, d = play_one(spec, clock)
        for table, table_rows in rows.items():
            tables[table].extend(table_rows)
        g = rows["games"][0]
        decisions += d
        if g["error"] is not None:
            errors += 1
            first_error = first_error or f"game {spec.game} (seed {spec.seed}): {g['error']}"
            if task.fail_fast:  # stop here: the chunk stays pending, a resume plays it again
                log.info("chunk %d stopped by --fail-fast at game %d (pid %d)", task.chunk, spec.game, os.getpid())
                seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
                return ChunkReport(task.chunk, len(games), errors, decisions, seconds, first_error, cpu, True)
    if task.out_dir is not None:
        write_chunk(Path(task.out_dir), task.chunk, tables, game)
    seconds = time.perf_counter() - start
    log.info("chunk %d: %d games, %d failed, %.1f s (pid %d)", task.chunk, len(games), errors, seconds, os.getpid())
    cpu = time.process_time() - cpu_start
    timed = tuple((spec, n, t) for spec, (n, t) in (clock or {}).items())
    return ChunkReport(task.chunk, len(games), errors, decisions, seconds, first_error, cpu, clock=timed)


def write_chunk(out: Path, chunk: int, rows: dict[str, list[dict]], game: Game) -> None:
    """The chunk's files (one per table) under temporary names, then renamed: games last, so a games file on disk
    means the chunk's other files are complete too (see :func:`chunk_on_disk`)."""
    tmp_suffix = f".tmp-{os.getpid()}"
    written = []
    for table, table_rows in rows.items():
        final = out / table / chunk_name(chunk)
        tmp = final.with_name(final.name + tmp_suffix)
        records.write_table(records.frame(table_rows, table, game), table, tmp, game)
        written.append((tmp, final))
    for tmp, final in sorted(written, key=lambda w: w[1].parent.name == "games"):
        os.replace(tmp, final)


def chunk_files_intact(out: Path, chunk: int, count: int, tables: Iterable[str]) -> bool:
    """The chunk's files (one per table of the run, ``tables``) are there and readable (their Parquet footers), the
    games file with ``count`` rows."""
    import pyarrow.parquet as pq

    name = chunk_name(chunk)
    try:
        rows = {table: pq.read_metadata(out / table / name).num_rows for table in tables}
    except Exception:  # noqa: BLE001 - missing, truncated or not Parquet
        return False
    return rows["games"] == count


def remove_chunk_files(out: Path, chunk: int, tables: Iterable[str]) -> None:
    for table in tables:
        (out / table / chunk_name(chunk)).unlink(missing_ok=True)


def chunk_on_disk(out: Path, chunk: int, count: int, tables: Iterable[str]) -> ChunkReport | None:
    """The report of a chunk whose files are complete on disk (every table's renamed into place, the games file
    readable with the chunk's ``count`` rows), or None. The runner uses it for chunks a worker finished but could
    not report (an interruption, a killed parent) so that no finished chunk is played twice or lost."""
    name = chunk_name(chunk)
    if not all((out / table / name).is_file() for table in tables):
        return None
    try:
        games = records.read_table(out / "games" / name, columns=["error", "decisions"])
    except Exception:  # noqa: BLE001 - unreadable: the chunk is played again
        return None
    if games.height != count:
        return None
    failed = games.filter(games["error"].is_not_null())
    first = failed["error"][0] if failed.height else None
    return ChunkReport(chunk, games.height, failed.height, int(games["decisions"].sum()), 0.0, first)
