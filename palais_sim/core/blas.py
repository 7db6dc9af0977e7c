"""BLAS on one thread, for code whose matrix products must be fast on a busy machine or give the same bits on any."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def one_blas_thread(fn: F) -> F:
    """Run ``fn`` with the BLAS library on one thread.

    Two reasons. Speed: the reports' matrix products are small and many, and a BLAS pool spinning on a machine whose
    cores are busy (polars' own pool, other processes) makes them ten times slower (measured: 35 s against 1 s for
    the cross-products of a regression on what 10 million seats took). Bits: a product split over threads adds in
    another order, and a network's fit magnifies the last bits over its iterations (Palais Royal's value model,
    fitted with the machine's 2 threads and with 1: weights up to 2.0 apart), so a fit gives the same model bytes on
    every machine only on one thread."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
