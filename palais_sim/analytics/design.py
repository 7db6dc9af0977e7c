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

    Read once per run (three reports ask): from the pass of the win rates when it has been made, else a pass of its
    own over the seat batches."""
    cached = run.__dict__.get("_confounded")
    if cached is None:
        from palais_sim.analytics.batches import seat_batches, strategies

        names = strategies(run)
        seen = SeatStrategies(len(names))
        for b in seat_batches(run, names):
            seen.add(b)
        cached = seen.store(run)
    return list(cached)


class SeatStrategies:
    """Which strategies sat in each (players, seat), summed over seat batches: what ``confounded_player_counts``
    reads (16 x 16 x strategies counts, whatever the size of the run)."""

    def __init__(self, strategies: int) -> None:
        self.k = max(1, strategies)
        self.seen = np.zeros(16 * 16 * self.k, dtype=np.int64)

    def add(self, b) -> None:
        key = (b.players.astype(np.int64) * 16 + b.seat) * self.k + b.strategy
        self.seen += np.bincount(key, minlength=len(self.seen))

    def table(self, names: list[str]) -> pl.DataFrame:
        """Per (players, seat): how many strategies sat there, and one of them (the first in ``names``)."""
        present = self.seen.reshape(16 * 16, self.k) > 0
        cells = np.flatnonzero(present.any(1))
        return pl.DataFrame(
            {
                "players": pl.Series(cells // 16, dtype=pl.Int8),
                "seat": pl.Series(cells % 16, dtype=pl.Int8),
                "kinds": pl.Series(present[cells].sum(1), dtype=pl.UInt32),
                "one": pl.Series([names[int(np.argmax(present[c]))] for c in cells], dtype=pl.String),
            }
        )

    def confounded(self) -> list[int]:
        """Player counts at which every seat held one strategy, and the seats more than one between them."""
        present = self.seen.reshape(16, 16, self.k) > 0
        out = []
        for players in np.flatnonzero(present.any((1, 2))):
            seats = present[players][present[players].any(1)]
            if (seats.sum(1) == 1).all() and len({int(np.argmax(s)) for s in seats}) > 1:
                out.append(int(players))
        return out

    def store(self, run: Run) -> list[int]:
        """Keep the answer with the run (so no other report reads the seats again for it) and return it."""
        run.__dict__["_confounded"] = self.confounded()
        return list(run.__dict__["_confounded"])


def _per_seat_scan(run: Run) -> pl.DataFrame:
    """Per (players, seat): how many strategies sat there, and one of them (the definition, for the tests)."""
    return collect(
        run.seats()
        .group_by("players", "seat")
        .agg(pl.col("strategy").n_unique().alias("kinds"), pl.col("strategy").first().alias("one"))
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
