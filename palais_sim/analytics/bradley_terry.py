"""Which Bradley-Terry ratings the games can bound, read from the win/loss graph rather than from fitted numbers.

The maximum-likelihood Bradley-Terry strengths exist (are finite) exactly when the directed graph "i scored against
j" (a win, or a tie counted half) is strongly connected (Zermelo 1929, Ford 1957). Otherwise a set of strategies
that never lost to the rest, or never beat it, has an infinite rating and any figure a solver returns for it is set
by its regulariser and iteration limit. So the graph's strongly connected components decide:

* the *core*, the largest component of two or more strategies, is rated among itself (mean 0 over the core);
* a component nobody outside it ever scored against is ``above`` (above all, unbounded), one that never scored
  against anybody outside ``below`` (below all, unbounded), one with both ``between`` (unbounded both ways), one
  that met nobody outside ``apart`` (not comparable);
* a bootstrap draw whose core is not strongly connected gives an unbounded interval end to the members it separates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

RATED, ABOVE, BELOW, BETWEEN, APART = "rated", "above", "below", "between", "apart"
LABELS = {
    ABOVE: "above all, unbounded",
    BELOW: "below all, unbounded",
    BETWEEN: "between, unbounded",
    APART: "not comparable",
}


@dataclass(frozen=True)
class Standing:
    """One strategy's place in the win/loss graph: ``rated`` (in the core) or why it has no finite rating."""

    status: str
    reason: str = ""

    @property
    def label(self) -> str:
        return LABELS.get(self.status, "")


def components(comp: np.ndarray) -> tuple[int, np.ndarray]:
    """The strongly connected components of the graph i -> j when i scored against j (``comp[i, j] > 0``)."""
    return connected_components(csr_matrix(comp > 0), directed=True, connection="strong")


def strongly_connected(comp: np.ndarray) -> bool:
    return len(comp) > 0 and components(comp)[0] == 1


def _flows(comp: np.ndarray, labels: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per component: whether anybody outside it ever scored against it (in) and it against anybody outside (out)."""
    scored = comp > 0
    inside = labels[:, None] == labels[None, :]
    cross = scored & ~inside
    into = np.zeros(n, dtype=bool)
    out = np.zeros(n, dtype=bool)
    into[labels[np.flatnonzero(cross.any(0))]] = True
    out[labels[np.flatnonzero(cross.any(1))]] = True
    return into, out


def _status(into: bool, out: bool) -> str:
    if into and out:
        return BETWEEN
    if out:
        return ABOVE
    if into:
        return BELOW
    return APART


def standings(comp: np.ndarray, names: list[str]) -> tuple[list[Standing], np.ndarray]:
    """Every strategy's standing and the indices of the rated core (empty when no component has two members).

    ``comp[i, j]``: the meetings strategy i finished ahead of j (ties count half, so a tie links both ways)."""
    k = len(comp)
    if k == 0:
        return [], np.array([], dtype=np.int64)
    n, labels = components(comp)
    sizes = np.bincount(labels, minlength=n)
    meetings = comp + comp.T
    core_label = -1
    if n == 1:
        core_label = 0
    elif sizes.max() >= 2:
        # the largest component; among equals, the one with the most meetings inside it
        weight = [meetings[np.ix_(labels == c, labels == c)].sum() for c in range(n)]
        core_label = max(range(n), key=lambda c: (sizes[c], weight[c]))
    into, out = _flows(comp, labels, n)
    found = []
    for i in range(k):
        c = labels[i]
        if c == core_label:
            found.append(Standing(RATED))
            continue
        outside = labels != c
        met = outside & (meetings[i] > 0)
        never_beat = [names[j] for j in np.flatnonzero(met & (comp[i] == 0))]
        never_lost = [names[j] for j in np.flatnonzero(met & (comp[:, i] == 0))]
        parts = []
        if never_lost:
            parts.append(f"never lost a meeting to {', '.join(never_lost)}")
        if never_beat:
            parts.append(f"never beat {', '.join(never_beat)}")
        if not parts:
            parts.append("never met the other strategies")
        reason = "; ".join(parts) + ": no finite maximum-likelihood rating (more games, or closer opponents, bound it)"
        found.append(Standing(_status(bool(into[c]), bool(out[c])), reason))
    return found, np.flatnonzero(labels == core_label) if core_label >= 0 else np.array([], dtype=np.int64)


def open_interval(ends: list[str]) -> str:
    """The reason of a rated strategy whose interval has an unbounded end (``ends``: "lower", "upper")."""
    return (
        f"the 95% interval's {' and '.join(ends)} end{'s are' if len(ends) > 1 else ' is'} unbounded: more than 2.5% "
        "of the bootstrap draws separate it from the others (more games bound it)"
    )


def draw_bounds(comp: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """For a bootstrap draw of the core that is not strongly connected: each member's (low, high) ends, +inf for a
    component above the rest, -inf below it, -inf and +inf for one in between; None when it is connected."""
    n, labels = components(comp)
    if n == 1:
        return None
    into, out = _flows(comp, labels, n)
    low = np.empty(len(comp))
    high = np.empty(len(comp))
    for i, c in enumerate(labels):
        status = _status(bool(into[c]), bool(out[c]))
        low[i] = np.inf if status == ABOVE else -np.inf
        high[i] = -np.inf if status == BELOW else np.inf
    return low, high


def quantiles(low_draws: np.ndarray, high_draws: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval per column; an end reached by unbounded draws is infinite (picked from the draws,
    never interpolated between an infinite and a finite one)."""
    tail = (1 - level) / 2
    if np.isfinite(low_draws).all() and np.isfinite(high_draws).all():
        return np.quantile(low_draws, tail, axis=0), np.quantile(high_draws, 1 - tail, axis=0)
    return (
        np.quantile(low_draws, tail, axis=0, method="lower"),
        np.quantile(high_draws, 1 - tail, axis=0, method="higher"),
    )
