"""How a report writes its numbers: shares as percentages, differences of shares in percentage points, intervals
and p-values, one helper each for every report and study page. A missing or non-finite number is a dash."""

from __future__ import annotations

import math
from collections.abc import Callable


def _bad(x: object) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def pct(x: float | None, digits: int = 1, unit: str = "%") -> str:
    """A share as a percentage: 0.314 -> "31.4%" (``unit=""`` where the column header says it)."""
    return "–" if _bad(x) else f"{100 * x:.{digits}f}{unit}"


def pp(x: float | None, digits: int = 1, *, scale: float = 100.0, unit: str = " pp") -> str:
    """A difference of shares in percentage points, signed: 0.031 -> "+3.1 pp". ``scale=1`` for a number that is in
    percentage points already (a study's effects); ``unit=""`` where the column header says it."""
    return "–" if _bad(x) else f"{scale * x:+.{digits}f}{unit}"


def pct_plain(x: float | None) -> str:
    """A share as a percentage without the sign: the ends of its interval."""
    return pct(x, unit="")


def pp_plain(x: float | None) -> str:
    """A difference of shares in percentage points without the unit: the ends of its interval."""
    return pp(x, unit="")


def num(x: float | None, digits: int = 2, sign: bool = False) -> str:
    return "–" if _bad(x) else f"{x:{'+' if sign else ''}.{digits}f}"


def ci(low: float | None, high: float | None, f: Callable[[float | None], str]) -> str:
    """An interval, each end written by ``f``."""
    return "–" if _bad(low) or _bad(high) else f"[{f(low)}, {f(high)}]"


def pval(p: float | None) -> str:
    if _bad(p):
        return "–"
    return "<1e-10" if p < 1e-10 else f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _clip(x: float | None, low: float, high: float) -> float | None:
    return x if _bad(x) else min(high, max(low, x))


def rate_with_ci(r: dict) -> str:
    """A row's win rate (``win_rate``, ``ci_low``, ``ci_high``) with its interval."""
    return f"{pct(r['win_rate'])} {ci(r['ci_low'], r['ci_high'], pct_plain)}"


def lift_with_ci(r: dict) -> str:
    """A win lift and its interval, cut at -100 and +100 pp (a difference of win shares lies between them)."""
    low, high = _clip(r["lift_ci_low"], -1, 1), _clip(r["lift_ci_high"], -1, 1)
    return f"{pp(r['lift'])} {ci(low, high, pp_plain)}"
