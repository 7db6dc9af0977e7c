"""The one seam between the runner and whatever runs chunks: in-process, a local process pool, or Ray.

An executor is built with a worker initializer (static data shipped once per worker) and runs a picklable
function over tasks, yielding results as they complete. The runner never sees which kind it has. The interface
(:class:`~palais_sim.tournament.pool.Executor`: ``imap_unordered``, ``terminate``, ``close``, ``log_queue``) and
:class:`~palais_sim.tournament.pool.WorkerLost` live in ``pool``, which the Ray backend imports too; this module
holds the local backends and :func:`make_executor`, which imports the Ray backend only when asked for it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from palais_sim.tournament.pool import Executor, WorkerLost, default_workers

__all__ = [
    "BACKENDS",
    "Executor",
    "InProcessExecutor",
    "ProcessExecutor",
    "WorkerLost",
    "default_workers",
    "make_executor",
]


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


class ProcessExecutor:
    """A local pool of ``spawn``-started processes (fork is unsafe with polars' thread pool).

    At most ``2 * workers`` tasks are submitted at a time, so the parent holds no backlog and an interruption loses
    only the chunks in flight. ``POLARS_MAX_THREADS=1`` is put in the environment the workers inherit, before they
    import polars: each worker is one core.
    """

    def __init__(self, workers: int, initializer: Callable, initargs: tuple) -> None:
        self.workers = workers
        ctx = multiprocessing.get_context("spawn")
        self.log_queue = ctx.Queue()
        os.environ["POLARS_MAX_THREADS"] = "1"  # inherited by the spawned workers (the parent's pool is already up)
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=initializer, initargs=(*initargs, self.log_queue, True)
        )

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        pending: set[Future] = set()
        todo = iter(tasks)
        try:
            while True:
                while len(pending) < 2 * self.workers:
                    task = next(todo, None)
                    if task is None:
                        break
                    pending.add(self._pool.submit(fn, task))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        except BrokenProcessPool as exc:
            raise WorkerLost(f"a worker process died ({exc})") from None

    def terminate(self) -> None:
        """Stop now: kill the workers (chunks in flight are lost; finished chunks are safe on disk)."""
        processes = list(getattr(self._pool, "_processes", {}).values())  # no public kill before Python 3.14
        self._pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            if proc.is_alive():
                proc.terminate()
        for proc in processes:
            proc.join(timeout=5)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


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
    return ProcessExecutor(workers, initializer, initargs)
