"""The local executors (in-process, and a pool of worker processes) and :func:`make_executor`, which builds the
one asked for: one of these, or the Ray pool (imported only when asked for it).

An executor is built with a worker initializer (static data shipped once per worker) and runs a picklable
function over tasks, yielding results as they complete. The runner never sees which kind it has. The interface
(:class:`~palais_sim.tournament.executor_protocol.Executor`: ``imap_unordered``, ``terminate``, ``close``,
``log_queue``) and :class:`~palais_sim.tournament.executor_protocol.WorkerLost` live in ``executor_protocol``, which
the Ray backend imports too.

A pool's workers run the engine its parent runs: a worker started for a compiled parent that would run the pure
Python engine (a compiled module's source changed in the checkout since ``make build``, e.g. a merge during a long
study) stops the run with :class:`EngineMismatch` rather than play 5-7 times slower unnoticed. Ray workers are not
checked (their engine is their node's install).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import logging.handlers
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import connection
from multiprocessing.connection import Connection

from palais_sim import build_info
from palais_sim.tournament.executor_protocol import Executor, WorkerLost, default_workers

__all__ = [
    "BACKENDS",
    "EngineMismatch",
    "Executor",
    "InProcessExecutor",
    "ProcessExecutor",
    "WorkerLost",
    "default_workers",
    "init_plain_worker",
    "kept",
    "make_executor",
    "watch_parent",
]

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_CHECK_SECONDS = 0.2
PARENT_GONE = 70  # a worker's exit code when it ends because its parent is gone


class InProcessExecutor:
    """``--workers 1``: chunks run in this process, one after another (easy to debug and profile)."""

    workers = 1
    log_queue = None

    def __init__(self, initializer: Callable, initargs: tuple) -> None:
        initializer(*initargs, None, False)

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        for task in tasks:
            yield fn(task)

    def terminate(self) -> None:
        pass

    def close(self) -> None:
        pass


class _ConnQueue:
    """What a worker's ``QueueHandler`` writes to: its own pipe to the parent (one writer per pipe, so a worker
    killed in the middle of a write can garble only its own pipe, never another worker's or the parent's log)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.lock = threading.Lock()

    def put_nowait(self, record: logging.LogRecord) -> None:
        with self.lock:
            self.conn.send(("log", record))

    def send(self, message: tuple) -> None:
        with self.lock:
            self.conn.send(message)


def watch_parent(parent_pid: int, interval: float = PARENT_CHECK_SECONDS) -> None:
    """Make this process die with its parent, however the parent ends (``kill -9`` included).

    Two layers: on Linux the kernel sends SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``; it fires when
    the parent *thread* that started this process ends, and the pool is started by the runner's main thread), and
    everywhere a daemon thread checks every ``interval`` seconds that the parent is still this process's parent
    (an orphan is re-parented, so ``os.getppid()`` changes) and ends the process at once if not.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread below still watches
            pass
    if os.getppid() != parent_pid:  # the parent died before the watch began
        os._exit(PARENT_GONE)

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(PARENT_GONE)  # no cleanup: whatever this worker was writing is under a temporary name
            time.sleep(interval)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


class EngineMismatch(WorkerLost):
    """A worker would run the pure Python engine while its parent runs the compiled one: the run stops as on a lost
    worker (finished chunks are kept; rebuilt, the same command resumes)."""


def parent_engine_compiled() -> bool:
    """Whether the workers started now must run the compiled engine: this process runs it and does not ask its
    workers for the pure one (``PALAIS_PURE`` set in the environment they inherit, as ``palais bench --compare-pure``
    does). A parent running the pure engine imposes nothing."""
    return bool(build_info()["compiled"]) and not os.environ.get("PALAIS_PURE")


def engine_mismatch(parent_compiled: bool) -> str | None:
    """Why this process may not work for its parent (it runs the pure engine, the parent the compiled one), or None."""
    if not parent_compiled:
        return None
    info = build_info()
    if info["compiled"]:
        return None
    return (
        f"a worker would run the pure Python engine while this run is compiled ({info['reason']}; "
        "rebuild with `make build`)"
    )


def _relay(record: object) -> None:
    """A worker's log record, handed to the parent's logger of the same name."""
    logging.getLogger(record.name).handle(record)  # type: ignore[attr-defined]


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - an exception class that does not pickle: keep its text
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _worker_main(
    conn: Connection, parent_pid: int, parent_compiled: bool, initializer: Callable, initargs: tuple
) -> None:
    """A pool worker: watch the parent, check it runs the parent's engine, initialise, then run tasks from the pipe
    until told to stop or orphaned."""
    watch_parent(parent_pid)
    channel = _ConnQueue(conn)
    why = engine_mismatch(parent_compiled)
    if why is not None:
        channel.send(("error", EngineMismatch(why)))  # raised by the parent at its first read from this worker
        return
    try:
        initializer(*initargs, channel, True)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which stops the run
        channel.send(("error", _picklable(exc)))
        return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent closed the pipe (or is gone)
            return
        if message is None:
            return
        kind, fn, arg = message
        try:
            # "init": the next run's static data for a kept pool (:meth:`ProcessExecutor.initialize`); "task": a task
            result = fn(*arg, channel, True) if kind == "init" else fn(arg)
        except Exception as exc:  # noqa: BLE001 - the parent decides; the worker stays usable
            logging.getLogger("palais_sim.worker").error("%s %r failed:\n%s", kind, arg, traceback.format_exc())
            channel.send(("error", _picklable(exc)))
        else:
            channel.send(("ok", result))


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Hold a Ctrl-C back while a worker starts, and deliver it afterwards.

    Two things are needed. The spawned process inherits the blocked signal mask (a terminal's Ctrl-C goes to the
    whole process group, and a worker still importing would print a traceback before it ignores SIGINT). And the
    parent must not be interrupted between launching the child and writing its start-up data into the child's pipe:
    the child would read an empty pipe and print ``EOFError: Ran out of input``. Blocking the signal in the main
    thread alone does not ensure that (the kernel hands a process's signal to any thread that does not block it, and
    Python runs the handler in the main thread all the same), so the Python handler is replaced by one that notes the
    signal, and the noted Ctrl-C is handed to the previous handler once the worker has started."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, None)
    elif caught and previous == signal.SIG_DFL:
        raise KeyboardInterrupt


class ProcessExecutor:
    """A local pool of ``spawn``-started worker processes (fork is unsafe with polars' thread pool).

    Each worker has a pipe of its own to the parent, which carries its tasks one at a time, its results and its log
    records (the parent hands the records to its ``palais_sim`` loggers, so the console and run.log get them as if
    logged here). A task is given to a worker only when it is idle, so the parent holds no backlog and an
    interruption loses only the chunks in flight. ``terminate`` kills the workers at once (SIGKILL), and every worker
    dies with the parent (:func:`watch_parent`), so none outlives a killed run.

    ``POLARS_MAX_THREADS=1`` is put in the environment the workers inherit, before they import polars: each worker
    is one core.
    """

    log_queue = None  # records arrive through the workers' pipes and are handled in imap_unordered

    def __init__(self, workers: int, initializer: Callable, initargs: tuple) -> None:
        self.workers = workers
        ctx = multiprocessing.get_context("spawn")
        os.environ["POLARS_MAX_THREADS"] = "1"  # inherited by the spawned workers (the parent's pool is already up)
        compiled = parent_engine_compiled()  # each worker checks it runs this engine too (EngineMismatch)
        self._procs: list = []
        self._conns: list[Connection] = []
        try:
            for i in range(workers):
                parent_end, child_end = ctx.Pipe()
                proc = ctx.Process(
                    target=_worker_main, args=(child_end, os.getpid(), compiled, initializer, initargs),
                    name=f"worker-{i + 1}", daemon=True,
                )  # fmt: skip
                with _sigint_blocked():  # the worker inherits the mask: a Ctrl-C while it starts is no traceback
                    proc.start()
                child_end.close()
                self._procs.append(proc)
                self._conns.append(parent_end)
        except BaseException:
            self.terminate()
            raise

    def pids(self) -> list[int]:
        return [p.pid for p in self._procs if p.pid is not None]

    def alive(self) -> bool:
        """Every worker still runs (none was killed or died)."""
        return bool(self._procs) and all(p.is_alive() for p in self._procs)

    def initialize(self, initializer: Callable, initargs: tuple) -> None:
        """Run ``initializer(*initargs, log_queue, True)`` in every (idle) worker and wait until each has: the static
        data of a new run for workers already started (a kept pool, :func:`kept`), as the start-up gives it to new
        ones. A worker's failure is raised here (it stays usable), a lost worker as :class:`WorkerLost`."""
        for i in range(len(self._procs)):
            self._send(i, ("init", initializer, initargs))
        failure: BaseException | None = None
        for i in range(len(self._procs)):
            while True:
                connection.wait([self._conns[i], self._procs[i].sentinel])  # a reply, or the worker is gone
                kind, value = self._receive(i)
                if kind == "log":
                    _relay(value)
                    continue
                if kind == "error" and failure is None:
                    failure = value  # type: ignore[assignment]
                break
        if failure is not None:
            raise failure

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        todo = iter(tasks)
        idle = list(range(len(self._procs)))[::-1]
        busy: set[int] = set()
        exhausted = False
        while True:
            while idle and not exhausted:
                task = next(todo, _END)
                if task is _END:
                    exhausted = True
                    break
                i = idle.pop()
                self._send(i, ("task", fn, task))
                busy.add(i)
            if not busy:
                return
            watched = {self._conns[i]: i for i in busy}
            sentinels = {self._procs[i].sentinel: i for i in busy}
            ready = connection.wait([*watched, *sentinels])
            for i in sorted({watched.get(r, sentinels.get(r)) for r in ready}):
                kind, value = self._receive(i)
                if kind == "log":
                    _relay(value)
                    continue
                busy.discard(i)
                idle.append(i)
                if kind == "error":
                    raise value
                yield value

    def _send(self, i: int, message: object) -> None:
        try:
            self._conns[i].send(message)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._last_word(i) from None

    def _last_word(self, i: int) -> BaseException:
        """Why worker ``i`` stopped reading its pipe: the error it sent before it ended (a failed start, e.g.
        :class:`EngineMismatch`), or :class:`WorkerLost`."""
        conn = self._conns[i]
        with contextlib.suppress(EOFError, OSError):
            while conn.poll():
                kind, value = conn.recv()
                if kind == "error":
                    return value  # type: ignore[return-value]
                if kind == "log":
                    _relay(value)
        return WorkerLost(self._lost(i))

    def _receive(self, i: int) -> tuple[str, object]:
        conn = self._conns[i]
        try:
            if conn.poll():
                return conn.recv()
        except (EOFError, OSError):
            pass
        raise WorkerLost(self._lost(i))

    def _lost(self, i: int) -> str:
        proc = self._procs[i]
        proc.join(timeout=1)
        code = proc.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return f"worker process {proc.pid} died ({how})"

    def terminate(self) -> None:
        """Stop now: kill the workers (chunks in flight are lost; finished chunks are safe on disk)."""
        for proc in self._procs:
            if proc.is_alive():
                proc.kill()
        for proc in self._procs:
            proc.join(timeout=10)
        for conn in self._conns:
            conn.close()

    def close(self) -> None:
        for i in range(len(self._conns)):
            with contextlib.suppress(WorkerLost, OSError, ValueError):
                self._send(i, None)
        for proc in self._procs:
            proc.join(timeout=30)
        self.terminate()  # any that did not stop


_END = object()


class _Kept:
    """The pool :func:`kept` holds between runs: a :class:`ProcessExecutor` and whether a run has it now."""

    def __init__(self) -> None:
        self.held = False
        self.pool: ProcessExecutor | None = None
        self.leased = False
        self.started = 0  # pools started while held (one per study, unless a worker was lost or the size changed)

    def drop(self) -> None:
        """Stop the kept pool's workers (at once) and forget it."""
        pool, self.pool, self.leased = self.pool, None, False
        if pool is not None:
            pool.terminate()


_KEPT = _Kept()


class _Lease:
    """A run's use of the kept pool: the pool's executor, except that ``close`` hands the workers back for the next
    run (they stay up, idle) and ``terminate`` stops them (an interrupted or failed run: the next run starts anew)."""

    def __init__(self, pool: ProcessExecutor) -> None:
        self._pool = pool
        self.workers = pool.workers
        self.log_queue = pool.log_queue

    def pids(self) -> list[int]:
        return self._pool.pids()

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        return self._pool.imap_unordered(fn, tasks)

    def terminate(self) -> None:
        if _KEPT.pool is self._pool:
            _KEPT.drop()
        else:  # pragma: no cover - the kept pool was replaced meanwhile
            self._pool.terminate()

    def close(self) -> None:
        if _KEPT.pool is self._pool:
            _KEPT.leased = False
        else:  # pragma: no cover - the kept pool was replaced meanwhile
            self._pool.close()


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Within the block, the local process pool of a run is kept for the block's next runs (a study's arms and looks,
    a match's batches: one start of the workers, their imports and the engine's, for all of them, not one per run).
    Each run hands its own static data to the kept workers (:meth:`ProcessExecutor.initialize`), so a run plays
    exactly as in a pool of its own. A pool of another size, a run while another has the pool (a nested run), an
    in-process run (one worker) or a Ray run are made as without the block. The workers stop when the block ends (at
    once when it ends by an exception), and die with this process like any pool's (:func:`watch_parent`)."""
    if _KEPT.held:  # an outer block holds it already
        yield
        return
    _KEPT.held = True
    ok = False
    try:
        yield
        ok = True
    finally:
        _KEPT.held = False
        pool, _KEPT.pool, _KEPT.leased = _KEPT.pool, None, False
        if pool is not None:
            if ok:
                pool.close()
            else:
                pool.terminate()


def _kept_executor(workers: int, initializer: Callable, initargs: tuple) -> Executor:
    """The kept pool of ``workers`` workers, started if need be, initialised for this run (see :func:`kept`)."""
    if _KEPT.leased:  # a nested run while another has the pool: a pool of its own
        return ProcessExecutor(workers, initializer, initargs)
    pool = _KEPT.pool
    if pool is not None and (pool.workers != workers or not pool.alive()):
        _KEPT.drop()
        pool = None
    if pool is None:
        pool = ProcessExecutor(workers, initializer, initargs)
        _KEPT.pool, _KEPT.started = pool, _KEPT.started + 1
    else:
        try:
            pool.initialize(initializer, initargs)
        except BaseException:
            _KEPT.drop()
            raise
    _KEPT.leased = True
    return _Lease(pool)


def init_plain_worker(log_queue, in_worker: bool) -> None:  # noqa: ANN001 - the executor's queue-like channel
    """A worker initializer with no static data: leave Ctrl-C to the parent (which stops the pool) and send log
    records to it."""
    if in_worker:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if log_queue is not None:
            logging.getLogger().handlers[:] = [logging.handlers.QueueHandler(log_queue)]


BACKENDS = ("local", "ray")


def make_executor(
    workers: int | None, initializer: Callable, initargs: tuple, backend: str = "local", address: str | None = None
) -> Executor:
    """``initializer(*initargs, log_queue, in_worker)`` runs once per worker.

    ``backend="ray"`` gives a Ray pool (``address`` as for ``ray.init``; ``workers=None``: all the cluster's CPUs).
    """
    if backend == "ray":
        from palais_sim.tournament.ray_backend import RayExecutor

        return RayExecutor(workers, initializer, initargs, address)
    if backend != "local":
        raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None:
        raise ValueError("--address is only for --backend ray")
    workers = workers or default_workers()
    if workers <= 1:
        return InProcessExecutor(initializer, initargs)
    if _KEPT.held:
        return _kept_executor(workers, initializer, initargs)
    return ProcessExecutor(workers, initializer, initargs)
