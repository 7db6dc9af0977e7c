"""What a run's design can and cannot tell apart, read from its tables.

A strategy effect and a seat effect are *confounded* when, at some player count with two or more strategies, every
seat always holds the same strategy (``--no-rotate-seats --format fixed`` is the plain case): the strategy table and
the seat table are then the same numbers under two names, and neither may be read as a verdict on strategies or on
seats. Mirror runs (one strategy) are not confounded: they measure seats only.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from palais_sim.analytics.runs import Run, collect


def confounded_player_counts(run: Run) -> list[int]:
    """Player counts at which seat and strategy are aligned (every seat always the same strategy, 2+ strategies).

    Read once per run (three reports ask; a pass over every seat row each time)."""
    cached = run.__dict__.get("_confounded")
    if cached is not None:
        return list(cached)
    held = run.__dict__.get("_seat_batches") or {}
    per_seat = _per_seat_held(held) if held else _per_seat_scan(run)
    out = []
    for (players,), part in per_seat.group_by(["players"]):
        if (part["kinds"] == 1).all() and part["one"].n_unique() > 1:
            out.append(int(players))
    run.__dict__["_confounded"] = sorted(out)
    return sorted(out)


def _per_seat_scan(run: Run) -> pl.DataFrame:
    """Per (players, seat): how many strategies sat there, and one of them."""
    return collect(
        run.seats()
        .group_by("players", "seat")
        .agg(pl.col("strategy").n_unique().alias("kinds"), pl.col("strategy").first().alias("one"))
    )


def _per_seat_held(held: dict) -> pl.DataFrame:
    """``_per_seat_scan`` from the seat batches another report has read: which strategies sat in each seat."""
    (names, _), data = next(iter(held.items()))
    k = max(1, len(names))
    seen = np.zeros(16 * 16 * k, dtype=np.int64)
    for b in data:
        seen += np.bincount((b.players.astype(np.int64) * 16 + b.seat) * k + b.strategy, minlength=len(seen))
    present = seen.reshape(16 * 16, k) > 0
    cells = np.flatnonzero(present.any(1))
    return pl.DataFrame(
        {
            "players": pl.Series(cells // 16, dtype=pl.Int8),
            "seat": pl.Series(cells % 16, dtype=pl.Int8),
            "kinds": pl.Series(present[cells].sum(1), dtype=pl.UInt32),
            "one": pl.Series([names[int(np.argmax(present[c]))] for c in cells], dtype=pl.String),
        }
    )


def confound_warning(run: Run) -> str | None:
    """The warning to put at the top of a report, or None."""
    counts = confounded_player_counts(run)
    if not counts:
        return None
    rotate = (run.manifest.get("settings") or {}).get("rotate_seats", True)
    why = "the run did not rotate seats" if not rotate else "the schedule never moved a strategy to another seat"
    return (
        f"Warning: confounded design at {', '.join(map(str, counts))} players: {why}, so every seat always held the "
        "same strategy. The strategy and seat tables there show the same numbers under two names; no strategy or "
        "seat verdict is given (p-values and flags left out). Rotate the seats (the default) to tell them apart, or "
        "measure seats with `palais study seats` (mirror play)."
    )
