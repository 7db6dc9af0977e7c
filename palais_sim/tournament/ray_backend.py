"""``--backend ray``: the runner's chunks on a Ray cluster, behind the same executor seam as the local pool.

The pool is ``ray.util.multiprocessing.Pool``; what this module adds is what that drop-in leaves to its user:

- *Where Ray runs.* ``--address`` (``auto`` joins the running cluster), else ``RAY_ADDRESS``, else a private local
  Ray of ``workers`` CPUs (``address="local"``, so a stray cluster on the machine is never joined by accident).
- *Placement.* The pool's actors ask for no CPU by default, so Ray may pack them all on the driver's node; here
  each actor reserves one CPU (``ray_remote_args``), which spreads the pool over the cluster.
- *Static data once.* Settings and the component set are ``ray.put`` once; each actor fetches them from the
  object store in its initializer (one copy per node, not one pickle per actor).
- *Logs.* Worker records go through a ``ray.util.queue.Queue`` to the driver's ``QueueListener``: the console and
  ``run.log`` get them exactly as with the local pool.
- *Errors as values.* The pool's ``imap_unordered`` yields a task's exception instead of raising it; a lost
  actor (killed, node gone) becomes :class:`WorkerLost`, so the run stops cleanly and ``--resume`` finishes it.
- *Storage.* Every worker must see ``--out`` at the same path: :meth:`RayExecutor.check_storage` has each actor read
  a probe the driver wrote and write one back, before any chunk runs.

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


def _init_actor(static: Any, log_queue: Any) -> None:
    """In each Ray actor: one core for polars, the static data from the object store, logs to the driver."""
    os.environ["POLARS_MAX_THREADS"] = "1"  # before polars is first imported in this process
    ray = require_ray()
    initializer, initargs = ray.get(static)
    initializer(*initargs, None, False)  # keep the static data; no signal handling or root logger changes here
    pkg = logging.getLogger("palais_sim")
    pkg.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
    pkg.propagate = False  # not also through Ray's stdout forwarding
    pkg.setLevel(logging.INFO)


def _probe(task: tuple[str, str]) -> tuple[str, str | None]:
    """In an actor: read the driver's probe in the run directory and write one back; (host, error or None)."""
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
    """A ``ray.util.multiprocessing.Pool`` of ``workers`` actors with the local pool's interface."""

    def __init__(self, workers: int | None, initializer: Callable, initargs: tuple, address: str | None = None) -> None:
        ray = require_ray()
        from ray.util.multiprocessing import Pool
        from ray.util.queue import Queue

        self.workers = connect(address, workers)
        remote_queue = Queue(actor_options={"num_cpus": 0})
        self.log_queue = _LogBridge(remote_queue)
        static = ray.put((initializer, initargs))
        self._pool = Pool(
            processes=self.workers,
            initializer=_init_actor,
            initargs=(static, remote_queue),
            ray_remote_args={"num_cpus": 1},
        )
        self._down = False

    def check_storage(self, out: Path) -> None:
        """Every actor reads a probe the driver wrote under ``out`` and writes one back; raise if any cannot."""
        token = uuid.uuid4().hex
        out = out.resolve()
        driver_probe = out / f".probe-{token}"
        driver_probe.write_text(token, encoding="utf-8")
        try:
            results = self._pool.map(_probe, [(str(out), token)] * self.workers, chunksize=1)
            problems = [f"{host}: {err}" for host, err in results if err]
            back = list(out.glob(f".probe-{token}-*"))
            if not problems and len(back) < self.workers:
                missing = self.workers - len(back)
                problems.append(f"{missing} probe file(s) written by workers are not visible to the driver")
            if problems:
                raise StorageError(
                    f"Ray workers cannot use the run directory {out} ({'; '.join(problems[:3])}); {SHARED_STORAGE}"
                )
        finally:
            for probe in [driver_probe, *out.glob(f".probe-{token}-*")]:
                probe.unlink(missing_ok=True)

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        """Results in completion order; one task per actor in flight (the pool submits the next as one finishes)."""
        from ray.exceptions import RayError
        from ray.util.multiprocessing.pool import PoolTaskError

        for result in self._pool.imap_unordered(fn, iter(tasks), chunksize=1):
            if isinstance(result, PoolTaskError):
                raise result.underlying
            if isinstance(result, RayError):
                raise WorkerLost(f"a Ray worker was lost ({type(result).__name__}: {str(result).splitlines()[0]})")
            yield result

    def terminate(self) -> None:
        """Kill the actors now (chunks in flight are lost; finished chunks are safe on disk)."""
        self._pool.terminate()
        self._shutdown()

    def close(self) -> None:
        self._pool.close()
        self._pool.join()
        self._shutdown()

    def _shutdown(self) -> None:
        if self._down:
            return
        self._down = True
        ray = require_ray()
        self.log_queue.detach()
        with contextlib.suppress(Exception):  # already gone with the cluster
            ray.kill(self.log_queue.remote.actor)
        release()
