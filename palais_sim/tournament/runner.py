"""Run a tournament: check the output directory, stream chunks through an executor, keep the manifest current.

The parent holds only the manifest: workers write their chunks' Parquet files themselves and send back counts, so
memory stays flat however many games. A chunk is marked done in the manifest only after its three files are renamed
into place; ``--resume`` replays the chunks not marked done, which gives the same tables as an uninterrupted run
because every game depends only on the settings and its index.
"""

from __future__ import annotations

import dataclasses
import logging
import logging.handlers
import math
import os
import platform
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tqdm import tqdm

from palais_sim import __version__, build_info
from palais_sim.registry import run_parameters
from palais_sim.tournament import records
from palais_sim.tournament.executor_protocol import WorkerLost, default_workers
from palais_sim.tournament.fingerprint import code_fingerprint
from palais_sim.tournament.manifest import MANIFEST, Manifest, RunDirError, now
from palais_sim.tournament.pools import make_executor
from palais_sim.tournament.schedule import Schedule, Settings
from palais_sim.tournament.shards import Shard
from palais_sim.tournament.worker import (
    ChunkReport,
    ChunkTask,
    chunk_files_intact,
    chunk_on_disk,
    init_worker,
    remove_chunk_files,
    run_chunk,
)

log = logging.getLogger("palais_sim.runner")

MAX_CONSOLE_FAILURES = 10


class RunStopped(RuntimeError):
    """The run stopped before its end (fail-fast, interrupted, worker lost); finished chunks are kept."""

    def __init__(self, message: str, code: int, advice: str = "") -> None:
        super().__init__(f"{message}; {advice}" if advice else message)
        self.code = code
        self.stopped = message  # why it stopped and what is safe where, without the advice (a command adds its own)


@dataclass
class RunSummary:
    out: Path
    total: int
    games: int
    errors: int
    decisions: int
    played_now: int
    seconds: float
    workers: int
    first_error: str | None
    settings: Settings
    # with time_strategies: every strategy's decisions and their CPU seconds, over the games played in this session
    strategy_clock: dict[str, tuple[int, float]] = field(default_factory=dict)
    shard: Shard | None = None  # the part of the schedule this run plays (--shard), None for all of it
    cpu_seconds: float = 0.0  # the workers' CPU time for the chunks played in this session
    cores: int | None = None  # the machine's cores (a local run; None on a Ray cluster)

    def text(self) -> str:
        s = self.settings
        rate = self.played_now / self.seconds if self.seconds > 0 else 0.0
        # a resumed run that was complete played nothing: no rate to give ("0 games/s" read as a stalled pool)
        speed = f"{rate:.0f} games/s" if self.played_now else "nothing left to play: the run was complete"
        rot = f"in rotation groups of {s.players}" if s.rotate_seats else "without seat rotation"
        err = "no game failed" if not self.errors else f"{self.errors} failed (kept with seed and error; see run.log)"
        resumed = "" if self.played_now == self.games else f" ({self.played_now} of them in this session)"
        tables = list(records.columns(s.game))
        rules = "".join(f", {name.replace('_', ' ')} {_shown(v)}" for name, v in s.rules.items())
        game = f"{s.game.title}: "
        played = f"{self.games} games{resumed}"
        if self.shard is not None:
            played += f" (part {self.shard} of a {s.games}-game schedule)"
        return (
            f"{game}Played {played} of {s.format} {','.join(s.strategies)} for {s.players} players "
            f"{rot}{rules}, root seed {s.seed}: {err}. Wall time {self.seconds:.1f} s (CPU {self.cpu_seconds:.1f} s "
            f"in the workers) with {self.workers} worker{'s' if self.workers > 1 else ''}"
            f"{f' on {self.cores} cores' if self.cores else ''}, {speed}. Results in {self.out}: "
            f"{', '.join(t + '/' for t in tables[:-1])} and {tables[-1]}/ Parquet (one file per chunk), manifest.json "
            "and run.log."
        )


def _shown(value: object) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple | list) else str(value)


def auto_chunk_size(total: int, workers: int) -> int:
    """Chunks of at most 500 games (a few seconds each: coarse enough for any pool), at least 4 per worker."""
    return max(10, min(500, math.ceil(total / (4 * workers))))


def shard_auto_chunk_size(total: int, parts: int) -> int:
    """The automatic chunk size of a part (``--shard``): from the games and the number of parts only (never the
    workers, which differ from machine to machine, so every part computes the same plan): at most 500, about 8
    chunks a part."""
    return max(10, min(500, -(-total // (8 * parts))))


def longer_run(stored: Settings, wanted: Settings) -> bool:
    """``wanted`` is ``stored`` with more games: ``stored``'s games are its first (a game depends only on the settings
    and its index), so a run of ``stored`` can be extended to it rather than played again."""
    return stored.games < wanted.games and dataclasses.replace(stored, games=wanted.games) == wanted


def engine_compiled() -> bool:
    """Whether the engine runs compiled with mypyc rather than as pure Python (``palais_sim.build_info``)."""
    return bool(build_info()["compiled"])


class Checked(NamedTuple):
    """A run's settings checked before any worker starts: what the workers and the manifest need of them."""

    context: object  # the game's context of the run (component set, rule options)
    schedule: Schedule
    parameters: dict[str, dict[str, object]]  # each strategy spec with every parameter it runs with


def validate(settings: Settings) -> Checked:
    """The run's context, schedule and strategy parameters, with its strategies and rule options checked before any
    worker starts."""
    schedule = Schedule(settings)
    context = settings.game.context(settings.to_dict())  # raises on impossible options (one line)
    return Checked(context, schedule, run_parameters(settings.strategies, settings.game))


def prepare(
    out: Path, settings: Settings, checked: Checked, tables: tuple[str, ...], chunk_size: int, resume: bool,
    shard: Shard | None = None,
) -> Manifest:  # fmt: skip
    """The manifest to run: a new one in an empty directory, or the stored one when resuming the same run (with
    ``shard``, the run of that part of the schedule).

    Everything is checked before anything is written, so a refused run leaves ``out`` as it was. A stored run of
    other settings that has nothing on disk yet (it stopped before its first chunk) is replaced: nothing is lost.
    Resuming with more games than the stored run extends it (``Manifest.grows``, ``Manifest.extend``).
    When resuming, chunks a killed run finished but could not mark done are found on disk and counted.
    """
    context, schedule, parameters = checked
    game = settings.game
    fresh = Manifest.new(
        settings, schedule.total, schedule.group_size, chunk_size, __version__, game.components_hash(context),
        records.SCHEMA_VERSION, code_fingerprint(game), shard,
    )  # fmt: skip
    fresh.data["game"] = game.name
    fresh.data["strategy_parameters"] = parameters
    fresh.data["components_name"] = game.components_name(context)
    if out.exists() and not out.is_dir():
        raise RunDirError(f"{out} is a file, not a directory; choose a new or empty directory for --out")
    existing = Manifest.load(out) if out.exists() else None
    replacing = growing = False
    if existing is not None:
        diffs = fresh.differences(existing)
        growing = bool(diffs) and fresh.grows(existing)
        if diffs and not resume and _nothing_written(out, existing):
            fresh.session_notes.append((logging.INFO, "replaced the run here: it stopped before any chunk was written"))
            existing, replacing = None, True
        elif growing and not resume:
            raise RunDirError(
                f"{out} holds the first {existing.data['total_games']} games of this run; add --resume to extend "
                f"it to {fresh.data['total_games']} (its games are kept), or choose another --out"
            )
        elif diffs and not growing:
            raise RunDirError(
                f"{out} holds a different run ({'; '.join(diffs[:4])}); "
                "choose another --out, or resume with that run's settings"
            )
        elif not resume:
            if existing.data.get("state") == "done":
                raise RunDirError(f"{out} already holds this run, complete; choose another --out")
            raise RunDirError(f"{out} holds an unfinished run of these settings; add --resume to finish it")
    if existing is not None:
        manifest = existing
    else:
        if resume:
            raise RunDirError(f"nothing to resume in {out}: no {MANIFEST}")
        if out.exists() and not replacing and any(out.iterdir()):
            raise RunDirError(f"{out} is not empty and holds no run; choose a new or empty directory")
        manifest = fresh
    try:
        out.mkdir(parents=True, exist_ok=True)
        for table in tables:
            (out / table).mkdir(exist_ok=True)
            for stray in (out / table).glob("*.tmp-*"):  # left by an interrupted chunk
                stray.unlink()
        if existing is not None and growing:
            short = existing.extend(fresh)  # logged by the session, whose log is open then
            if short is not None:
                remove_chunk_files(out, short, tables)
        if existing is not None:
            lost = repair(out, manifest, tables)
            if lost:
                manifest.session_notes.append((logging.WARNING, (
                    f"chunk(s) {', '.join(map(str, lost))} were marked done but their files are missing or damaged: "
                    "they are played again"
                )))  # fmt: skip
            found = reconcile(out, manifest, tables)
            if found:
                manifest.session_notes.append(
                    (logging.INFO, f"{len(found)} chunk(s) finished before the run stopped were found complete on disk")
                )
        manifest.save(out)
    except OSError as exc:
        raise RunDirError(f"cannot use {out} as the run directory: {_os_reason(exc)}") from None
    return manifest


def _os_reason(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


def _nothing_written(out: Path, manifest: Manifest) -> bool:
    tables = records.columns(records.game_of(manifest.data))
    return manifest.totals()["chunks_done"] == 0 and not any(
        (out / table).is_dir() and any((out / table).glob("*.parquet")) for table in tables
    )


def repair(out: Path, manifest: Manifest, tables: tuple[str, ...]) -> list[int]:
    """Mark pending again every done chunk whose files (one per table of the run, ``tables``) are missing or damaged
    (and remove what is left of them); returns their numbers. Only the Parquet footers are read, so this is quick
    even for a large run."""
    lost = []
    for entry in manifest.chunks():
        if entry["state"] == "done" and not chunk_files_intact(out, entry["chunk"], entry["count"], tables):
            remove_chunk_files(out, entry["chunk"], tables)
            manifest.mark_pending(entry["chunk"])
            lost.append(entry["chunk"])
    return lost


def reconcile(out: Path, manifest: Manifest, tables: tuple[str, ...]) -> list[ChunkReport]:
    """Mark done every pending chunk whose files (one per table of the run, ``tables``) are complete on disk (a worker
    finished it but the parent never got its report: an interruption, a killed parent); returns their reports."""
    found = []
    for entry in manifest.pending():
        rep = chunk_on_disk(out, entry["chunk"], entry["count"], tables)
        if rep is not None:
            manifest.mark_done(rep.chunk, rep.games, rep.errors, rep.decisions)
            found.append(rep)
    return found


class _ConsoleHandler(logging.Handler):
    """Warnings to stderr without breaking the progress bar; failed-game warnings capped (all are in run.log)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.failures = 0
        self.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "palais_sim.worker" and "failed:" in record.getMessage():
            self.failures += 1
            if self.failures > MAX_CONSOLE_FAILURES:
                if self.failures == MAX_CONSOLE_FAILURES + 1:
                    tqdm.write("WARNING: further failed games are logged only in run.log", file=sys.stderr)
                return
        text = self.format(record)
        if "\n" in text:  # a traceback from a worker: its first line here, all of it in run.log
            text = text.splitlines()[0] + " (details in run.log)"
        tqdm.write(text, file=sys.stderr)


def _handlers(out: Path) -> list[logging.Handler]:
    file_handler = logging.FileHandler(out / "run.log", encoding="utf-8")
    file_handler.setLevel(logging.INFO)
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
    return [_ConsoleHandler(), file_handler]


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP during a run: the run stops as on Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _FailFast(Exception):
    def __init__(self, report: ChunkReport) -> None:
        super().__init__(report.first_error)
        self.report = report


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _signals(handler) -> Iterator[None]:
    """Install ``handler`` for SIGTERM and SIGHUP (and, if it is SIG_IGN, SIGINT) for the block; main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = STOP_SIGNALS + ((signal.SIGINT,) if handler is signal.SIG_IGN else ())
    old = {sig: signal.signal(sig, handler) for sig in wanted}
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


def _raise_terminated(signum: int, frame: object) -> None:
    raise _Terminated(signum)


def run(
    settings: Settings,
    out: Path,
    workers: int | None,
    chunk_size: int | None = None,
    resume: bool = False,
    fail_fast: bool = False,
    progress: bool | None = None,
    backend: str = "local",
    address: str | None = None,
    time_strategies: bool = False,
    shard: Shard | None = None,
) -> RunSummary:
    """Play the run (or its unfinished chunks) and return the summary; raises RunStopped if it stops early.

    Ctrl-C, SIGTERM and SIGHUP stop the run at once: the workers are killed, chunks they finished are counted
    (from their files on disk when their report had not arrived), the manifest is saved as interrupted and
    RunStopped says how to resume. ``--fail-fast`` stops the chunk at its first failed game, in the worker, and the
    run with it. ``backend="ray"`` runs the chunks on Ray (``address``: see :func:`ray_backend.connect`);
    ``workers`` may then be None for all the cluster's CPUs; a Ray started or joined here is shut down at the end.
    ``time_strategies`` times every strategy's decisions in CPU time (``RunSummary.strategy_clock``). ``shard``
    plays only that part of the schedule's chunks (:mod:`.shards`); resuming a part, None takes the stored one.
    """
    options = (chunk_size, resume, fail_fast, progress, backend, address, time_strategies, shard)
    if backend != "ray":
        return _run(settings, out, workers, *options)
    from palais_sim.tournament.ray_backend import connect, release

    try:
        workers = connect(address, workers)  # before chunk sizing: the pool's size may be the cluster's
        return _run(settings, out, workers, *options)
    finally:
        release()


def _run(
    settings: Settings, out: Path, workers: int | None, chunk_size: int | None, resume: bool, fail_fast: bool,
    progress: bool | None, backend: str, address: str | None, time_strategies: bool, shard: Shard | None,
) -> RunSummary:  # fmt: skip
    if workers is None:
        workers = default_workers()
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    stored = Manifest.load(out) if out.is_dir() else None
    if stored is not None and not (resume or _grows_into(stored, settings)):
        stored = None  # another run: refused (or replaced) by ``prepare``
    if shard is None and stored is not None:
        shard = stored.shard  # a part resumes as the part it is
    checked = validate(settings)
    context = checked.context
    if chunk_size is None:
        if stored is not None:  # resumed or extended: its own chunk plan
            chunk_size = stored.data["chunk_size"]
        elif shard is not None:  # the same plan on every machine, whatever its cores
            chunk_size = shard_auto_chunk_size(checked.schedule.total, shard.count)
        else:
            chunk_size = auto_chunk_size(checked.schedule.total, workers)
    if chunk_size < 1:
        raise ValueError(f"--chunk-size must be at least 1, got {chunk_size}")
    tables = tuple(settings.game.columns())  # the run's tables: a chunk is one file in each
    manifest = prepare(out, settings, checked, tables, chunk_size, resume, shard)
    manifest.data.setdefault("sessions", []).append(
        {
            "started": now(),
            "engine": __version__,
            "compiled": engine_compiled(),  # both games' engines are in the compiled build
            "python": platform.python_version(),
            "workers": workers,
            "backend": backend,
        }  # fmt: skip
    )
    manifest.save(out)
    handlers = _handlers(out)
    pkg_logger = logging.getLogger("palais_sim")
    old_level = pkg_logger.level
    pkg_logger.setLevel(logging.INFO)
    for h in handlers:
        pkg_logger.addHandler(h)
    listener = None
    bar = None
    executor = None
    start = time.perf_counter()
    played_now = 0
    first_error = None
    clock: dict[str, tuple[int, float]] = {}
    cpu_total = 0.0
    try:
        with _signals(_raise_terminated):
            try:
                pending = manifest.pending()
                for level, note in manifest.session_notes:
                    log.log(level, "%s: %s", out, note)
                log.info(
                    "%s %s: %d games in %d chunks (%d pending), %d workers, engine %s, components %s",
                    "resuming" if resume else "starting", out, manifest.planned_games,
                    manifest.chunk_count, len(pending), workers, __version__, manifest.data["components_hash"],
                )  # fmt: skip
                executor = make_executor(workers, init_worker, (settings, context), backend, address)
                if executor.log_queue is not None:
                    listener = logging.handlers.QueueListener(executor.log_queue, *handlers, respect_handler_level=True)
                    listener.start()
                check_storage = getattr(executor, "check_storage", None)  # Ray: can every worker use --out?
                if check_storage is not None:
                    check_storage(out)
                show = sys.stderr.isatty() if progress is None else progress
                bar = tqdm(
                    total=manifest.planned_games, initial=manifest.totals()["games"], unit="game",
                    disable=not show, dynamic_ncols=True, smoothing=0.05, file=sys.stderr,
                )  # fmt: skip
                where = str(out.resolve())
                tasks = (
                    ChunkTask(c["chunk"], c["first"], c["count"], where, fail_fast, time_strategies) for c in pending
                )
                for rep in executor.imap_unordered(run_chunk, tasks):
                    if rep.stopped:
                        raise _FailFast(rep)
                    if rep.chunk in manifest.done:  # reported again (a backend that played it twice): counted once
                        log.info("chunk %d reported again: counted once", rep.chunk)
                        continue
                    manifest.mark_done(rep.chunk, rep.games, rep.errors, rep.decisions)  # one ledger line
                    played_now += rep.games
                    cpu_total += rep.cpu_seconds
                    bar.update(rep.games)
                    first_error = first_error or rep.first_error
                    for spec, n, cpu in rep.clock:
                        before = clock.get(spec, (0, 0.0))
                        clock[spec] = (before[0] + n, before[1] + cpu)
                executor.close()
                executor = None
                manifest.save(out, "done")
            except BaseException as exc:
                with _signals(signal.SIG_IGN):  # a second Ctrl-C must not cut the clean-up short
                    if executor is not None:
                        executor.terminate()
                    found = reconcile(out, manifest, tables)  # chunks finished but not reported before the stop
                    played_now += sum(r.games for r in found)
                    if found:
                        log.info("%d chunk(s) finished before the stop were found complete on disk", len(found))
                    stop = _stop(exc, out, manifest)
                    log.info("run stopped: %s", stop if stop is not None else f"{type(exc).__name__}: {exc}")
                    manifest.save(out, "failed" if isinstance(exc, _FailFast) else "interrupted")
                if stop is None:
                    raise
                raise stop from None
    finally:
        if bar is not None:
            bar.close()
        if listener is not None:
            listener.stop()
        for h in handlers:
            pkg_logger.removeHandler(h)
            h.close()
        pkg_logger.setLevel(old_level)
    totals = manifest.totals()
    summary = RunSummary(
        out, manifest.planned_games, totals["games"], totals["errors"], totals["decisions"], played_now,
        time.perf_counter() - start, workers, first_error, settings, clock, manifest.shard, cpu_total,
        os.cpu_count() if backend == "local" else None,
    )  # fmt: skip
    with (out / "run.log").open("a", encoding="utf-8") as fh:
        fh.write(summary.text() + "\n")
    return summary


def _grows_into(stored: Manifest, settings: Settings) -> bool:
    """``settings`` are the stored run's with more games (False for a manifest whose settings cannot be read today:
    ``prepare`` says why it refuses it)."""
    try:
        return longer_run(stored.settings, settings)
    except (ValueError, TypeError, KeyError):
        return False


def _stop(exc: BaseException, out: Path, manifest: Manifest) -> RunStopped | None:
    """The RunStopped for why the run stopped, or None to let ``exc`` itself through (a user or storage error)."""
    if isinstance(exc, _Terminated):
        name = signal.Signals(exc.signum).name
        return RunStopped(_stopped(out, manifest, f"stopped by {name}"), 128 + exc.signum, _advice(out))
    if isinstance(exc, KeyboardInterrupt):
        return RunStopped(_stopped(out, manifest, "interrupted"), 130, _advice(out))
    if isinstance(exc, WorkerLost):
        return RunStopped(_stopped(out, manifest, str(exc)), 1, _advice(out))
    if isinstance(exc, _FailFast):
        rep = exc.report
        return RunStopped(_stopped(out, manifest, f"stopped by --fail-fast at {rep.first_error}"), 1, _advice(out))
    return None


def _stopped(out: Path, manifest: Manifest, why: str) -> str:
    t = manifest.totals()
    return f"{why}: {t['chunks_done']} of {manifest.chunk_count} chunks are safe in {out}"


def _advice(out: Path) -> str:
    return f"finish with: palais simulate --out {out} --resume"
