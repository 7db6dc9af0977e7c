"""No verdict without evidence: the fewest groups in which the arms differed before a study row may decide.

A group whose value is the no-effect value (0: forbidding a component changed nothing, the seat won exactly its fair
share) says nothing about the sign or the size of an effect; only the groups that differ do. With k differing groups,
the strongest result possible is all k of them on the same side, and that is told apart from a fair coin at the
row's confidence only when 2 * 0.5**k < 1 - confidence (a two-sided sign test): k >= 6 at 95%; with looks, at each
look's own level (the repeated interval's, ``study.sequential``: with five looks 21, 12, 9, 7 and 6 differing groups
from the first look to the last). Below that the t interval is an artefact of a handful of values (ten groups of which
none differ give [0, 0]), so the row stays undecided and says how many differing groups it needs. A zero-width
interval (every group the same value) is no interval and never decides either.
"""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-9  # values this close to the no-effect value count as equal (shares are sums of 1/P's)


def min_differing(confidence: float) -> int:
    """The fewest differing groups whose unanimous sign would be significant at ``confidence`` (two-sided)."""
    k = 1
    while 2.0 ** (1 - k) >= 1 - confidence:
        k += 1
    return k


def differing(values: np.ndarray, null: float = 0.0) -> int:
    """How many groups' values differ from the no-effect value ``null``."""
    x = np.asarray(values, dtype=float)
    return int(np.sum(np.isfinite(x) & (np.abs(x - null) > TOLERANCE)))


def shortfall(differ: int, n_groups: int, low: float, high: float, confidence: float) -> str | None:
    """Why a row may not decide yet (None: it may): too few differing groups, or no spread at all."""
    need = min_differing(confidence)
    if differ < need:
        return f"{differ} of the {n_groups} groups differ; needs at least {need}"
    if not (np.isfinite(low) and np.isfinite(high) and high > low):
        return f"every one of the {n_groups} groups gave the same value: no spread, no interval"
    return None


def level(confidence: float) -> str:
    """The confidence as a page prints it: 95%, 98.33%, 99%; one very near 100% (the first look of a spending
    design) with the digits that show its miss rate: 99.99989%, not 100%."""
    shown = f"{100 * confidence:.4g}"
    if shown == "100" and confidence < 1:
        digits = int(np.ceil(-np.log10(100 * (1 - confidence)))) + 1
        shown = f"{100 * confidence:.{digits}f}".rstrip("0")
    return f"{shown}%"
