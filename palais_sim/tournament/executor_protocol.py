"""What the runner and every executor backend share: the Executor protocol, the lost-worker error, the core count.

Imports point one way: ``pools`` (the local backends and ``make_executor``) and ``ray_backend`` both import
from here, ``pools`` imports ``ray_backend`` (lazily, only for ``--backend ray``), and nothing here imports
either of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol


class WorkerLost(RuntimeError):
    """A worker process died (killed, out of memory): the chunks in flight are lost, the run can be resumed."""


class Executor(Protocol):
    """Runs a picklable function over tasks in its workers, yielding results as they complete.

    ``log_queue`` is a queue the workers' ``QueueHandler`` can reach (the runner's ``QueueListener`` reads it), or
    None when workers log directly. A backend may also offer ``check_storage(out)``, called before any chunk runs.
    """

    workers: int
    log_queue: Any

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator: ...

    def terminate(self) -> None: ...

    def close(self) -> None: ...


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
