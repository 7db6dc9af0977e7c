"""``--backend ray``: the runner's chunks on a Ray cluster, behind the same executor seam as the local pool.

Each chunk is a Ray task (not a call on a long-lived actor): a task is Ray's unit of fault tolerance, so a chunk whose
worker process or node is lost is played again elsewhere (``max_retries``) and the run goes on. What this module adds:

- *Where Ray runs.* ``--address`` (``auto`` joins the running cluster), else ``RAY_ADDRESS``, else a private local
  Ray of ``workers`` CPUs (``address="local"``, so a stray cluster on the machine is never joined by accident).
- *Placement.* Each chunk task reserves one CPU and at most ``workers`` are in flight, so the chunks spread over
  the cluster and ``--workers N`` takes N of its CPUs.
- *A lost node loses nothing.* A chunk task lost with its worker or node is retried by Ray (:data:`CHUNK_RETRIES`
  times) on any node left; the driver gets exactly one result per chunk, so a chunk is counted once, and its files
  are written under temporary names and renamed (the same bytes whichever attempt wrote them). Only a chunk that
  exhausts its retries becomes :class:`WorkerLost`: the run stops cleanly and ``--resume`` finishes it.
- *Static data once.* Settings and the component set are ``ray.put`` once; a worker process fetches them from the
  object store before its first chunk of the run and keeps them (one copy per node, not one pickle per chunk).
- *Logs.* Worker records go through a ``ray.util.queue.Queue`` (its actor on the driver's node, so it outlives any
  other node) to the driver's ``QueueListener``: the console and ``run.log`` get them exactly as with the local pool.
- *Storage.* Every node must see ``--out`` at the same path: :meth:`RayExecutor.check_storage` has a task on each
  node read a probe the driver wrote and write one back, before any chunk runs.

Chunks stay coarse (the runner's automatic size is up to 500 games, seconds of work) and results come back in
completion order, so a slow chunk never holds up the progress bar.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from palais_sim.tournament.executor_protocol import WorkerLost, default_workers

CHUNK_RETRIES = 3  # times a chunk lost with its worker or node is played again before the run stops
# one CPU each; retried when lost with its worker or node, never for an exception of its own (that fails the run)
CHUNK_OPTIONS = {"num_cpus": 1, "max_retries": CHUNK_RETRIES, "retry_exceptions": False}

INSTALL_HINT = "--backend ray needs Ray: pip install 'palais-sim[ray]'"
SHARED_STORAGE = (
    "on a cluster --out must be shared storage (NFS, a cluster file system, ...) mounted at the same path on every node"
)


class RayUnavailable(RuntimeError):
    """Ray is not installed."""


class StorageError(OSError):
    """A Ray worker cannot read or write the run directory."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayUnavailable` with the install command."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable(INSTALL_HINT) from None
    return ray


# whether connect() started or joined Ray in this process (release() undoes that), and whether a held() block keeps
# it for the block's next run
_STARTED = {"here": False, "held": False}


def connect(address: str | None, workers: int | None) -> int:
    """Start or join Ray (once per process) and return the pool size: ``workers``, or all the cluster's CPUs.

    A Ray this function started or joined is shut down (the driver leaves the cluster) by :func:`release` at the end
    of the run; one the caller had already initialised is left as it was."""
    ray = require_ray()
    if not ray.is_initialized():
        _STARTED["here"] = True
        quiet = {"logging_level": logging.WARNING, "include_dashboard": False, "configure_logging": True}
        address = address or os.environ.get("RAY_ADDRESS")
        if address:
            _use_token_if_any()
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(address="local", num_cpus=workers or default_workers(), **quiet)
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if workers is None:
        workers = cpus
    if workers < 1 or workers > cpus:
        raise ValueError(f"--workers {workers}: the Ray cluster has {cpus} CPUs")
    return workers


def release() -> None:
    """Shut down the Ray that :func:`connect` started or joined, if it did (a private local Ray stops; a driver
    connected to a cluster leaves it, so it does not outlive the cluster's head)."""
    if _STARTED["here"] and not _STARTED["held"]:
        _STARTED["here"] = False
        ray = require_ray()
        if ray.is_initialized():
            ray.shutdown()


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Within the block, a Ray that a run starts or joins stays up for the block's next runs (a study's arms, a
    match's batches: one start or join for all of them, not one each) and is shut down, the cluster left, when the
    block ends. A block whose runs are local imports and starts nothing."""
    if _STARTED["held"]:  # an outer block holds it already
        yield
        return
    _STARTED["held"] = True
    try:
        yield
    finally:
        _STARTED["held"] = False
        release()


def _use_token_if_any() -> None:
    """A cluster from ``ray start`` has token auth on by default (recent Ray); send the token when there is one.

    Ray does this for a local ``ray.init()`` but not when joining by address; ``RAY_AUTH_MODE`` set by the user wins.
    """
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


# what the worker process holds for the run whose static data it last fetched (a process serves many chunks)
_PROCESS: dict[str, str] = {}


def _init_process(static: Any, log_queue: Any) -> None:
    """In a Ray worker process: one core for polars, the static data from the object store, logs to the driver."""
    os.environ["POLARS_MAX_THREADS"] = "1"  # before polars is first imported in this process
    ray = require_ray()
    initializer, initargs = ray.get(static)
    initializer(*initargs, None, False)  # keep the static data; no signal handling or root logger changes here
    pkg = logging.getLogger("palais_sim")
    pkg.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
    pkg.propagate = False  # not also through Ray's stdout forwarding
    pkg.setLevel(logging.INFO)


def _chunk_task(static_box: list, log_queue: Any, fn: Callable, task: Any) -> Any:
    """The Ray task of one chunk: the run's static data once per worker process (``static_box`` holds its
    ObjectRef inside a list, so Ray passes the reference and does not fetch the data for every chunk), then ``fn``."""
    static = static_box[0]
    if _PROCESS.get("static") != static.hex():
        _init_process(static, log_queue)
        _PROCESS["static"] = static.hex()
    return fn(task)


def _probe(task: tuple[str, str]) -> tuple[str, str | None]:
    """On a node: read the driver's probe in the run directory and write one back; (host, error or None)."""
    out, token = task
    host = socket.gethostname()
    try:
        seen = (Path(out) / f".probe-{token}").read_text(encoding="utf-8")
        if seen != token:
            return host, f"{out} holds another probe than the driver's (not the same directory)"
        (Path(out) / f".probe-{token}-{host}-{os.getpid()}").write_text(token, encoding="utf-8")
    except OSError as exc:
        return host, f"{type(exc).__name__}: {exc}"
    return host, None


class _LogBridge:
    """The driver's side of the workers' log queue, for the runner's ``QueueListener``.

    Records come from a ``ray.util.queue.Queue``. ``detach`` moves what is left into a local buffer before Ray
    shuts down and waits for the listener's Ray call in flight: a Ray call in another thread while Ray shuts down
    can end the process, and one after it would start a new local Ray. The listener, stopped after the executor,
    still gets every record from the buffer.
    """

    def __init__(self, remote: Any) -> None:
        self.remote = remote
        self._buffer: deque = deque()
        self._stopped = False
        self._ray_calls = threading.Lock()  # held around every call into Ray; detach() takes it to end them
        self._detached = False

    def get(self, block: bool = True) -> Any:
        from queue import Empty

        while True:
            if self._buffer:
                return self._buffer.popleft()
            if self._stopped:
                return None  # the listener's sentinel
            with self._ray_calls:
                if not self._detached:
                    try:
                        return self.remote.get(block=True, timeout=0.2)
                    except Empty:
                        continue
                    except Exception:  # noqa: BLE001 - the queue actor is gone with the cluster
                        pass
            time.sleep(0.05)

    def put_nowait(self, item: Any) -> None:
        if item is None:
            self._stopped = True
        else:
            self._buffer.append(item)

    def detach(self) -> None:
        """Buffer the records still in the Ray queue; no call into Ray from this bridge after it returns."""
        from queue import Empty

        self._detached = True  # no Ray call starts after this (get looks under the lock) ...
        with self._ray_calls:  # ... and the one in flight, if any, has returned
            try:
                while True:
                    self._buffer.append(self.remote.get_nowait())
            except Empty:
                pass
            except Exception:  # noqa: BLE001 - the queue actor is gone
                pass


class RayExecutor:
    """Chunks as Ray tasks, ``workers`` of them in flight, with the local pool's interface."""

    def __init__(self, workers: int | None, initializer: Callable, initargs: tuple, address: str | None = None) -> None:
        ray = require_ray()
        from ray.util.queue import Queue
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self.workers = connect(address, workers)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self._remote_queue = Queue(actor_options={"num_cpus": 0, "scheduling_strategy": here})
        self.log_queue = _LogBridge(self._remote_queue)
        self._static = ray.put((initializer, initargs))
        self._chunk = ray.remote(_chunk_task)
        self._in_flight: dict[Any, Any] = {}  # ObjectRef -> task
        self._down = False

    def check_storage(self, out: Path) -> None:
        """A task on each node reads a probe the driver wrote under ``out`` and writes one back; raise if any fails."""
        ray = require_ray()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        token = uuid.uuid4().hex
        out = out.resolve()
        driver_probe = out / f".probe-{token}"
        driver_probe.write_text(token, encoding="utf-8")
        nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) > 0]
        probe = ray.remote(_probe)
        try:
            refs = [
                probe.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(
                    (str(out), token)
                )
                for node in nodes
            ]
            results = ray.get(refs)
            problems = [f"{host}: {err}" for host, err in results if err]
            back = list(out.glob(f".probe-{token}-*"))
            if not problems and len(back) < len(nodes):
                missing = len(nodes) - len(back)
                problems.append(f"{missing} probe file(s) written by workers are not visible to the driver")
            if problems:
                raise StorageError(
                    f"Ray workers cannot use the run directory {out} ({'; '.join(problems[:3])}); {SHARED_STORAGE}"
                )
        finally:
            for probe_file in [driver_probe, *out.glob(f".probe-{token}-*")]:
                probe_file.unlink(missing_ok=True)

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        """Results in completion order, one per task; ``workers`` tasks in flight (the next is submitted as one
        finishes). A task lost with its worker or node is retried by Ray; one lost more often is :class:`WorkerLost`.
        """
        ray = require_ray()
        from ray.exceptions import RayError, RayTaskError

        todo = iter(tasks)

        def submit() -> None:
            task = next(todo, None)
            if task is not None:
                name = f"chunk {task.chunk}" if hasattr(task, "chunk") else "palais task"  # the worker's process title
                chunk = self._chunk.options(name=name, **CHUNK_OPTIONS)
                ref = chunk.remote([self._static], self._remote_queue, fn, task)
                self._in_flight[ref] = task

        for _ in range(self.workers):
            submit()
        while self._in_flight:
            (ref,), _ = ray.wait(list(self._in_flight), num_returns=1)
            del self._in_flight[ref]
            try:
                result = ray.get(ref)
            except RayTaskError as exc:  # the chunk's own exception, raised as in the local pool
                raise exc.cause from None
            except RayError as exc:
                raise WorkerLost(
                    f"a Ray worker was lost {CHUNK_RETRIES + 1} times in one chunk "
                    f"({type(exc).__name__}: {str(exc).splitlines()[0]})"
                ) from None
            submit()
            yield result

    def terminate(self) -> None:
        """Cancel the chunks in flight now, killing their workers (finished chunks are safe on disk)."""
        ray = require_ray()
        for ref in self._in_flight:
            with contextlib.suppress(Exception):  # finished meanwhile, or gone with its node
                ray.cancel(ref, force=True)
        self._in_flight.clear()
        self._shutdown()

    def close(self) -> None:
        self._shutdown()

    def _shutdown(self) -> None:
        if self._down:
            return
        self._down = True
        ray = require_ray()
        self.log_queue.detach()
        with contextlib.suppress(Exception):  # already gone with the cluster
            ray.kill(self._remote_queue.actor)
        release()
