"""One pass over a run in batches of whole chunks: the seat rows of played games as compact numpy arrays.

The runner writes the three tables of a chunk under the same file name, and a game never spans chunks, so a batch
of chunk files holds whole games. A seat-rotation group can span two chunks (a chunk size that is not a multiple of
the group size): the rows of a batch's last group are held back and handed on with the next batch, so every batch
holds whole groups and a group is always one cluster. Each batch is read eagerly (a few hundred thousand seats),
joined, packed, sorted by (group, game, seat) and handed to accumulators; memory stays at one batch whatever the size
of the run.

One tie rule everywhere: seats are ranked by final score, then by servants in the Cardinal (the rules' tie-break,
the one the engine's ``win`` column uses); seats level on both share the better rank. The ``rank`` of a batch is this
rank (the tables' own ``rank`` column ignores the Cardinal), so win, rank and head-to-head agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from palais_sim.analytics import stats
from palais_sim.analytics.runs import Run

TARGET_ROWS = 600_000
DENSE_LIMIT = 1 << 22  # ClusterSums: cells x groups up to this many go through a dense count (4 million: 32 MB)


@dataclass
class SeatBatch:
    game: np.ndarray
    group: np.ndarray  # 0-based group codes within the batch (sorted)
    players: np.ndarray
    seat: np.ndarray
    strategy: np.ndarray  # index into the run's sorted strategy list
    total: np.ndarray
    rank: np.ndarray
    win: np.ndarray
    masks: list[np.ndarray] = field(default_factory=list)  # nobles taken, 64 per uint64 word

    def __len__(self) -> int:
        return len(self.game)


def chunk_names(run: Run) -> list[str]:
    """Chunk file names present in all the run's tables (a chunk is written as a unit)."""
    names = [{p.name for p in (run.path / t).glob("*.parquet")} for t in run.table_names]
    return sorted(set.intersection(*names))


def _groups_of_files(run: Run, names: list[str], target: int) -> Iterator[list[str]]:
    batch: list[str] = []
    rows = 0
    for name in names:
        n = pq.ParquetFile(run.path / "seats" / name).metadata.num_rows
        batch.append(name)
        rows += n
        if rows >= target:
            yield batch
            batch, rows = [], 0
    if batch:
        yield batch


def strategies(run: Run) -> list[str]:
    from palais_sim.analytics.runs import collect

    return sorted(collect(run.scan("seats").select(pl.col("strategy").unique()))["strategy"].to_list())


def seat_batches(
    run: Run, strategy_list: list[str], noble_ids: list[str] | None = None, target_rows: int = TARGET_ROWS
) -> Iterator[SeatBatch]:
    files = chunk_names(run)
    words = max(1, (len(noble_ids) + 63) // 64) if noble_ids else 0
    batches = list(_groups_of_files(run, files, target_rows))
    carry: pl.DataFrame | None = None
    for index, batch in enumerate(batches):
        paths = {t: [run.path / t / n for n in batch] for t in run.table_names}
        games = (
            pl.read_parquet(paths["games"], columns=["game", "players", "error"])
            .filter(pl.col("error").is_null())
            .drop("error")
        )
        seats = pl.read_parquet(
            paths["seats"], columns=["game", "group", "seat", "strategy", "total", run.tie_column, "win"]
        ).rename({run.tie_column: "tie"})
        seats = seats.join(games, on="game", how="inner").with_columns(
            pl.col("strategy").replace_strict(strategy_list, list(range(len(strategy_list))), return_dtype=pl.Int16),
        )
        if noble_ids:
            seats = seats.join(_masks(paths["recruits"], noble_ids, words), on=["game", "seat"], how="left")
            seats = seats.with_columns([pl.col(f"mask{w}").fill_null(0) for w in range(words)])
        if carry is not None:
            seats = pl.concat([carry, seats.select(carry.columns)])
            carry = None
        seats = seats.sort("group", "game", "seat")
        if index + 1 < len(batches) and len(seats):
            last = seats["group"][-1]  # it may continue in the next chunk: hand it on
            carry = seats.filter(pl.col("group") == last)
            seats = seats.filter(pl.col("group") != last)
        if seats.is_empty():
            continue
        yield SeatBatch(
            game=seats["game"].to_numpy(),
            group=group_codes(seats["group"].to_numpy()).astype(np.int32),
            players=seats["players"].to_numpy().astype(np.int8),
            seat=seats["seat"].to_numpy().astype(np.int8),
            strategy=seats["strategy"].to_numpy().astype(np.int8),
            total=seats["total"].to_numpy().astype(np.float32),
            rank=tie_ranks(seats["total"].to_numpy(), seats["tie"].to_numpy(), seats["players"].to_numpy()),
            win=seats["win"].to_numpy().astype(np.float32),
            masks=[seats[f"mask{w}"].to_numpy() for w in range(words)],
        )


def _masks(paths: list, noble_ids: list[str], words: int) -> pl.DataFrame:
    """Per (game, seat): the nobles taken as bit masks, 64 per word. The noble column is read dictionary-encoded, so
    the tens of millions of recruit rows are mapped to bits through their few dozen distinct names."""
    import pyarrow as pa

    index = {n: i for i, n in enumerate(noble_ids)}
    games, seats, codes = [], [], []
    for path in paths:
        table = pq.read_table(path, columns=["game", "seat", "noble"], read_dictionary=["noble"])
        noble = table.column("noble").combine_chunks()
        if not isinstance(noble, pa.DictionaryArray):
            noble = noble.dictionary_encode()
        pos = np.array([index.get(name, -1) for name in noble.dictionary.to_pylist()], dtype=np.int64)
        code = pos[noble.indices.to_numpy(zero_copy_only=False)]
        game, seat = table.column("game").to_numpy(), table.column("seat").to_numpy()
        if (code < 0).any():  # a noble not in the list: not a column of the design
            keep = code >= 0
            code, game, seat = code[keep], game[keep], seat[keep]
        games.append(game)
        seats.append(seat)
        codes.append(code)
    game = np.concatenate(games) if games else np.zeros(0, np.int64)
    seat = np.concatenate(seats) if seats else np.zeros(0, np.int8)
    code = np.concatenate(codes) if codes else np.zeros(0, np.int64)
    base = int(game.min()) if len(game) else 0
    key = (game.astype(np.int64) - base) * 16 + seat.astype(np.int64)  # games of a chunk are one short range
    size = int(key.max()) + 1 if len(key) else 0
    present = np.flatnonzero(np.bincount(key, minlength=size)) if size else np.zeros(0, np.int64)
    cols: dict[str, object] = {"game": present // 16 + base, "seat": (present % 16).astype(np.int8)}
    # A seat takes a noble once, so OR is a sum, and a sum of distinct powers of two below 2**53 is exact in float64:
    # one bincount per 53 bits of a word, its weights looked up per noble code.
    positions = np.arange(64 * words)
    for w in range(words):
        k, c = (key, code) if words == 1 else (key[code // 64 == w], code[code // 64 == w])
        dense = np.zeros(size, dtype=np.uint64)
        for low, high in ((0, 53), (53, 64)):
            inside = (positions % 64 >= low) & (positions % 64 < high) & (positions // 64 == w)
            if not inside[c].any():
                continue
            weight = np.where(inside, np.ldexp(1.0, positions % 64 - low), 0.0)
            dense |= np.bincount(k, weights=weight[c], minlength=size).astype(np.uint64) << np.uint64(low)
        cols[f"mask{w}"] = dense[present]
    return pl.DataFrame(cols).with_columns(pl.col("game").cast(pl.Int64), pl.col("seat").cast(pl.Int8))


def tie_ranks(total: np.ndarray, cardinal: np.ndarray, players: np.ndarray) -> np.ndarray:
    """Rank within the game by (total, Cardinal servants), 1 = best; seats level on both share the better rank.

    Rows sorted by game and seat (a game of P players is P consecutive rows)."""
    key = total.astype(np.int64) * 65536 + cardinal.astype(np.int64)
    rank = np.empty(len(key), dtype=np.int8)
    counts = np.unique(players)
    for p in counts:
        sel = slice(None) if len(counts) == 1 else np.flatnonzero(players == p)
        k = key[sel].reshape(-1, int(p))
        rank[sel] = (1 + (k[:, None, :] > k[:, :, None]).sum(2)).reshape(-1)
    return rank


def cached_batches(run: Run, strategy_list: list[str], noble_ids: list[str]) -> list[SeatBatch]:
    """All seat batches, read once per run and kept in compact form (about 30 bytes a seat) for the analyses
    that need several passes (the noble regression) or numpy work (head to head)."""
    key = (tuple(strategy_list), tuple(noble_ids))
    cache = run.__dict__.setdefault("_seat_batches", {})
    if key not in cache:
        cache.clear()
        cache[key] = list(seat_batches(run, strategy_list, noble_ids))
    return cache[key]


def starts(keys: np.ndarray) -> np.ndarray:
    """Indices where a run of equal keys begins (keys sorted)."""
    return np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])


def group_codes(group: np.ndarray) -> np.ndarray:
    """0-based codes of sorted group ids (no sort needed)."""
    return np.cumsum(np.r_[False, group[1:] != group[:-1]])


class ClusterSums:
    """Per-cell sums for ``stats.cluster_mean``, accumulated over batches: cells x (n, groups, s, s^2, s n, n^2)."""

    def __init__(self, cells: int) -> None:
        self.cells = cells
        self.n = np.zeros(cells)
        self.groups = np.zeros(cells)
        self.nn = np.zeros(cells)
        self.s: dict[str, np.ndarray] = {}

    def add(self, cell: np.ndarray, gcode: np.ndarray, values: dict[str, np.ndarray]) -> None:
        """Rows with their cell index, group code (0..G-1 within the batch) and values.

        A group must not continue in a later batch."""
        if len(cell) == 0:
            return
        # Only the (cell, group) pairs present: memory is linear in the rows, never cells x groups (a head-to-head
        # table of k strategies has k * k cells). Small tables take the dense shortcut (no sort).
        g = int(gcode.max()) + 1
        key = cell.astype(np.int64) * g + gcode.astype(np.int64)
        if self.cells * g <= max(DENSE_LIMIT, 2 * len(key)):
            pairs = np.flatnonzero(np.bincount(key, minlength=self.cells * g))
            lookup = np.empty(self.cells * g, dtype=np.int64)
            lookup[pairs] = np.arange(len(pairs))
            inverse = lookup[key]
        else:
            pairs, inverse = np.unique(key, return_inverse=True)
        pair_cell = pairs // g
        n_g = np.bincount(inverse).astype(float)
        self.n += np.bincount(pair_cell, weights=n_g, minlength=self.cells)
        self.groups += np.bincount(pair_cell, minlength=self.cells)
        self.nn += np.bincount(pair_cell, weights=n_g**2, minlength=self.cells)
        for name, v in values.items():
            s_g = np.bincount(inverse, weights=v, minlength=len(pairs))
            for suffix, w in (("sum", s_g), ("sq", s_g**2), ("tn", s_g * n_g)):
                k = f"{name}_{suffix}"
                self.s[k] = self.s.get(k, np.zeros(self.cells)) + np.bincount(
                    pair_cell, weights=w, minlength=self.cells
                )

    def add_groups(self, n_g: np.ndarray, sums: dict[str, np.ndarray]) -> None:
        """Per-group totals already summed (groups x cells: rows ``n_g`` and value sums); a cell a group has no row
        in (``n_g`` 0) is not a cluster of that cell. A group must not continue in a later batch."""
        n_g = np.asarray(n_g, dtype=np.float64)
        self.n += n_g.sum(0)
        self.groups += (n_g > 0).sum(0)
        self.nn += (n_g**2).sum(0)
        for name, s_g in sums.items():
            s_g = np.asarray(s_g, dtype=np.float64)
            for suffix, w in (("sum", s_g), ("sq", s_g**2), ("tn", s_g * n_g)):
                k = f"{name}_{suffix}"
                self.s[k] = self.s.get(k, np.zeros(self.cells)) + w.sum(0)

    def mean(self, name: str) -> stats.ClusterMean:
        z = np.zeros(self.cells)
        return stats.cluster_mean(
            self.n, self.s.get(f"{name}_sum", z), self.s.get(f"{name}_sq", z), self.s.get(f"{name}_tn", z),
            self.nn, self.groups,
        )  # fmt: skip
