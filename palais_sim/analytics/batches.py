"""One pass over a run in batches of whole chunks: the seat rows of played games as compact numpy arrays.

The runner writes the three tables of a chunk under the same file name, and a game never spans chunks, so a batch
of chunk files holds whole games. A seat-rotation group can span two chunks (a chunk size that is not a multiple of
the group size): the rows of a batch's last group are held back and handed on with the next batch, so every batch
holds whole groups and a group is always one cluster. Each batch is read eagerly (a few hundred thousand seats),
joined, packed, sorted by (group, game, seat) and handed to accumulators; memory stays at one batch whatever the size
of the run. Nothing keeps the batches: an analysis that needs two passes (a regression on what the seats took) reads
the run twice, and every report section sums what it needs into accumulators as the batches go by.

One tie rule everywhere: seats are ranked by final score, then by the game's tie column (``GAME.tie_column``: the
rules' tie-break, the one the engine's ``win`` column uses); seats level on both share the better rank. The ``rank``
of a batch is this rank (the tables' own ``rank`` column ignores the tie-break), so win, rank and head-to-head
agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from palais_sim.analytics import stats
from palais_sim.analytics.runs import Run, collect
from palais_sim.tournament import records

TARGET_ROWS = 250_000
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
    masks: list[np.ndarray] = field(default_factory=list)  # what the seat took (GAME.taken), 64 ids per uint64 word
    # What a setup report needs, in a game whose games table describes its setup (GAME.setup_columns; None
    # otherwise): per row the game's rounds and the seat's start value (GAME.seat_values, if the game has one), per
    # group code the group's id and its setup columns (a group plays one setup).
    rounds: np.ndarray | None = None
    seat_value: np.ndarray | None = None
    group_id: np.ndarray | None = None
    setup: pl.DataFrame | None = None

    def __len__(self) -> int:
        return len(self.game)


def chunk_names(run: Run) -> list[str]:
    """Chunk file names present in all the run's tables (a chunk is written as a unit), in chunk order; through
    the run, which knows the directory of each (a run played in parts has several)."""
    return run.chunk_names()


def chunk_files(run: Run, target_rows: int = TARGET_ROWS) -> Iterator[dict[str, list[Path]]]:
    """The run's chunk files a batch at a time (about ``target_rows`` seat rows): per table, the files of the same
    chunks. A game lies in one chunk, so a batch holds whole games (a seat-rotation group may span two batches)."""
    for names in _groups_of_files(run, chunk_names(run), target_rows):
        yield {t: [run.file(t, n) for n in names] for t in run.table_names}


def sum_over_chunks(
    run: Run, query: Callable[[dict[str, pl.LazyFrame]], pl.LazyFrame], keys: list[str],
    target_rows: int = TARGET_ROWS,
) -> pl.DataFrame:  # fmt: skip
    """An aggregate of sums and counts per ``keys``, taken a batch of chunks at a time and added up: ``query`` gets
    the batch's tables (lazy, played and failed games alike) and returns per ``keys`` columns that add up over
    batches (counts, sums; never means). For what is decided within a game (a game never spans chunks): memory is
    one batch and the distinct keys, whatever the size of the run."""
    parts: list[pl.DataFrame] = []
    for files in chunk_files(run, target_rows):
        parts.append(collect(query({t: pl.scan_parquet(f) for t, f in files.items()})))
        if len(parts) >= 32:
            parts = [_add_up(parts, keys)]
    if not parts:
        empty = query({t: pl.LazyFrame(schema=records.tables(run.game)[t]) for t in run.table_names})
        return collect(empty)
    return _add_up(parts, keys)


def _add_up(parts: list[pl.DataFrame], keys: list[str]) -> pl.DataFrame:
    frame = pl.concat(parts)
    return frame.group_by(keys).agg(pl.exclude(keys).sum()).sort(keys)


def _groups_of_files(run: Run, names: list[str], target: int) -> Iterator[list[str]]:
    batch: list[str] = []
    rows = 0
    known = run.__dict__.setdefault("_seat_rows", {})  # each file's rows, read once per run (a few bytes a chunk)
    for name in names:
        if name not in known:
            known[name] = pq.ParquetFile(run.file("seats", name)).metadata.num_rows
        n = known[name]
        batch.append(name)
        rows += n
        if rows >= target:
            yield batch
            batch, rows = [], 0
    if batch:
        yield batch


def strategies(run: Run) -> list[str]:
    """The run's strategies, sorted (read once per run)."""
    if "_strategies" not in run.__dict__:
        found = collect(run.scan("seats").select(pl.col("strategy").unique()))["strategy"].to_list()
        run.__dict__["_strategies"] = sorted(found)
    return list(run.__dict__["_strategies"])


def setup_columns(run: Run) -> tuple[tuple[str, ...], str | None]:
    """The games-table columns that describe the setup of the run's game (``GAME.setup_columns``) and the seats
    column of a seat's start value (``GAME.seat_values``; None without): the seat batches carry them when the
    first is not empty."""
    game = run.game
    facet = getattr(game, "seat_values", None)
    own = [c for c in game.setup_columns if c in records.tables(run.game)["games"]]
    return tuple(own), facet.option if facet is not None and own else None


def _is_sorted(group: np.ndarray, game: np.ndarray, seat: np.ndarray) -> bool:
    """Whether the rows are in (group, game, seat) order, each key once."""
    if len(group) < 2:
        return True
    dg, dgame, dseat = np.diff(group), np.diff(game), np.diff(seat.astype(np.int16))
    return bool(((dg > 0) | ((dg == 0) & ((dgame > 0) | ((dgame == 0) & (dseat > 0))))).all())


def seat_batches(
    run: Run, strategy_list: list[str], taken_ids: list[str] | None = None, target_rows: int = TARGET_ROWS
) -> Iterator[SeatBatch]:
    """The seat rows of played games, a batch of whole groups at a time, sorted by (group, game, seat).

    Each seat row finds its game (player count, and for a setup report its setup and rounds) and what it took
    (``taken_ids``, the ids of ``GAME.taken``) by position in the batch's sorted keys, not through a join."""
    files = chunk_names(run)
    words = max(1, (len(taken_ids) + 63) // 64) if taken_ids else 0
    taken = _taken_column(run) if taken_ids else None
    setup_names, value_column = setup_columns(run)
    setup = bool(setup_names)
    batches = list(_groups_of_files(run, files, target_rows))
    carry: dict[str, np.ndarray] | None = None
    carry_setups: pl.DataFrame | None = None
    for index, batch in enumerate(batches):
        paths = {t: [run.file(t, n) for n in batch] for t in run.table_names}
        extra_games = [*setup_names, "rounds"] if setup else []
        extra_seats = [value_column] if value_column else []
        games = pl.read_parquet(paths["games"], columns=["game", "players", "error", *extra_games])
        games = games.filter(pl.col("error").is_null())
        seat_columns = ["game", "group", "seat", "strategy", "total", run.tie_column, "win", *extra_seats]
        seats = pl.read_parquet(paths["seats"], columns=seat_columns)
        # the seat's game row (an inner join on game: seats of failed games have none and are left out)
        game_ids = games["game"].to_numpy()
        by_id = None if len(game_ids) < 2 or (np.diff(game_ids) > 0).all() else np.argsort(game_ids, kind="stable")
        sorted_ids = game_ids if by_id is None else game_ids[by_id]
        seat_game = seats["game"].to_numpy()
        at = np.minimum(np.searchsorted(sorted_ids, seat_game), max(len(sorted_ids) - 1, 0))
        found = sorted_ids[at] == seat_game if len(sorted_ids) else np.zeros(len(seat_game), dtype=bool)
        game_row = (at if by_id is None else by_id[at])[found]
        keep = None if found.all() else np.flatnonzero(found)

        def column(values: np.ndarray, keep: np.ndarray | None = keep) -> np.ndarray:
            return values if keep is None else values[keep]

        strategy_code = seats["strategy"].replace_strict(
            strategy_list, list(range(len(strategy_list))), return_dtype=pl.Int16
        )
        rows: dict[str, np.ndarray] = {
            "game": column(seat_game),
            "group": column(seats["group"].to_numpy()),
            "seat": column(seats["seat"].to_numpy()),
            "strategy": column(strategy_code.to_numpy()),
            "total": column(seats["total"].to_numpy()),
            "tie": column(seats[run.tie_column].to_numpy()),
            "win": column(seats["win"].to_numpy()),
            "players": games["players"].to_numpy()[game_row],
        }
        if taken is not None and taken_ids:
            base, dense = _mask_words(paths[taken[0]], taken[1], taken_ids, words)
            key = (rows["game"].astype(np.int64) - base) * 16 + rows["seat"].astype(np.int64)
            size = len(dense[0])
            inside = (key >= 0) & (key < size)
            at_key = np.where(inside, key, 0)
            for w in range(words):
                rows[f"mask{w}"] = (
                    np.where(inside, dense[w][at_key], np.uint64(0)) if size else np.zeros(len(key), np.uint64)
                )
        setups = None
        if setup:
            rows["rounds"] = games["rounds"].to_numpy()[game_row]
            if value_column:
                rows["seat_value"] = column(seats[value_column].to_numpy())
            rows["setup_row"] = game_row.astype(np.int64)
            setups = games.select(setup_names)
        if carry is not None:
            if setup:  # the carried rows' setups come first in this batch's list of setups
                rows["setup_row"] = rows["setup_row"] + len(carry_setups)
                setups = pl.concat([carry_setups, setups])
            rows = {name: np.concatenate([carry[name], values]) for name, values in rows.items()}
            carry = None
        if not _is_sorted(rows["group"], rows["game"], rows["seat"]):
            order = np.lexsort((rows["seat"], rows["game"], rows["group"]))
            rows = {name: values[order] for name, values in rows.items()}
        group = rows["group"]
        if index + 1 < len(batches) and len(group):
            cut = int(np.searchsorted(group, group[-1], side="left"))  # the last group may continue: hand it on
            carry = {name: values[cut:] for name, values in rows.items()}
            rows = {name: values[:cut] for name, values in rows.items()}
            if setup:
                carry_setups = setups[carry["setup_row"]]
                carry["setup_row"] = np.arange(len(carry_setups), dtype=np.int64)
        if not len(rows["game"]):
            continue
        group_start = starts(rows["group"])
        yield SeatBatch(
            game=rows["game"],
            group=group_codes(rows["group"]).astype(np.int32),
            players=rows["players"].astype(np.int8),
            seat=rows["seat"].astype(np.int8),
            strategy=rows["strategy"].astype(np.int8),
            total=rows["total"].astype(np.float32),
            rank=tie_ranks(rows["total"], rows["tie"], rows["players"]),
            win=rows["win"].astype(np.float64),
            masks=[rows[f"mask{w}"] for w in range(words)],
            rounds=rows["rounds"].astype(np.int16) if setup else None,
            seat_value=rows["seat_value"].astype(np.int8) if value_column else None,
            group_id=rows["group"][group_start].astype(np.int64) if setup else None,
            setup=setups[rows["setup_row"][group_start]] if setup else None,
        )


def _taken_column(run: Run) -> tuple[str, str]:
    """The table and column of what a seat takes in the run's game (``GAME.taken``)."""
    taken = run.game.taken
    if taken is None:
        raise ValueError(f"the game {run.game.name!r} declares nothing a seat takes (GAME.taken)")
    return taken


def _mask_words(paths: list, column: str, taken_ids: list[str], words: int) -> tuple[int, list[np.ndarray]]:
    """What each (game, seat) took as bit masks, 64 per word: for each word a dense array indexed by
    ``(game - base) * 16 + seat``, and ``base``. The ``column`` of the table's files (one row per thing taken) is
    read dictionary-encoded, so tens of millions of rows are mapped to bits through their few dozen distinct ids."""
    index = {n: i for i, n in enumerate(taken_ids)}
    if len(taken_ids) <= 53:  # one word, each bit a power of two exact in float64: no code array, no filtering
        return _mask_word(paths, column, index)
    games, seats, codes = [], [], []
    for path in paths:
        pos, indices, game, seat = _taken_codes(path, column, index)
        code = pos[indices]
        if (code < 0).any():  # an id not in the list: not a column of the design
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
    # A seat takes an id once, so OR is a sum, and a sum of distinct powers of two below 2**53 is exact in float64:
    # one bincount per 53 bits of a word, its weights looked up per id code.
    positions = np.arange(64 * words)
    out = []
    for w in range(words):
        k, c = (key, code) if words == 1 else (key[code // 64 == w], code[code // 64 == w])
        dense = np.zeros(size, dtype=np.uint64)
        for low, high in ((0, 53), (53, 64)):
            inside = (positions % 64 >= low) & (positions % 64 < high) & (positions // 64 == w)
            if not inside[c].any():
                continue
            weight = np.where(inside, np.ldexp(1.0, positions % 64 - low), 0.0)
            dense |= np.bincount(k, weights=weight[c], minlength=size).astype(np.uint64) << np.uint64(low)
        out.append(dense)
    return base, out


def _taken_codes(path, column: str, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A file's (or a list of files') ids through the column's dictionary: each dictionary entry's position in
    ``index`` (-1 for an id not in it), each row's dictionary index, and the rows' game and seat."""
    import pyarrow as pa

    table = pq.read_table(path, columns=["game", "seat", column], read_dictionary=[column]).unify_dictionaries()
    ids = table.column(column).combine_chunks()
    if not isinstance(ids, pa.DictionaryArray):
        ids = ids.dictionary_encode()
    pos = np.array([index.get(name, -1) for name in ids.dictionary.to_pylist()], dtype=np.int64)
    indices = ids.indices.to_numpy(zero_copy_only=False)
    return pos, indices, table.column("game").to_numpy(), table.column("seat").to_numpy()


def _mask_word(paths: list, column: str, index: dict[str, int]) -> tuple[int, list[np.ndarray]]:
    """``_mask_words`` for at most 53 ids: each row weighs 2**position (0 for an id not in the list), looked up
    through the dictionary of the column, and the weights are summed per seat."""

    parts = []
    if paths:  # the batch's files in one read (threaded; one per file costs a few ms each: most of a large report)
        pos, indices, game, seat = _taken_codes(paths, column, index)
        bit = np.where(pos >= 0, np.ldexp(1.0, np.maximum(pos, 0)), 0.0)
        parts.append((game, seat, bit[indices]))
    parts = [part for part in parts if len(part[0])]
    if not parts:
        return 0, [np.zeros(0, dtype=np.uint64)]
    base = min(int(game.min()) for game, _, _ in parts)
    size = (max(int(game.max()) for game, _, _ in parts) - base + 1) * 16
    # one bincount over the batch's rows (one per file would cost files x batch: quadratic in small chunks)
    key = np.concatenate([(game.astype(np.int64) - base) * 16 + seat for game, seat, _ in parts])
    weight = np.concatenate([weight for _, _, weight in parts])
    return base, [np.bincount(key, weights=weight, minlength=size).astype(np.uint64)]


def _masks(paths: list, column: str, taken_ids: list[str], words: int) -> pl.DataFrame:
    """Per (game, seat) that took anything: what it took as bit masks, 64 per word (columns mask0, mask1, ...)."""
    base, dense = _mask_words(paths, column, taken_ids, words)
    taken = np.zeros(len(dense[0]) if dense else 0, dtype=bool)
    for d in dense:
        taken |= d != 0
    present = np.flatnonzero(taken)
    cols: dict[str, object] = {"game": present // 16 + base, "seat": (present % 16).astype(np.int8)}
    for w, d in enumerate(dense):
        cols[f"mask{w}"] = d[present]
    return pl.DataFrame(cols).with_columns(pl.col("game").cast(pl.Int64), pl.col("seat").cast(pl.Int8))


def tie_ranks(total: np.ndarray, tie: np.ndarray, players: np.ndarray) -> np.ndarray:
    """Rank within the game by (total, the game's tie column), 1 = best; seats level on both share the better rank.

    Rows sorted by game and seat (a game of P players is P consecutive rows)."""
    key = total.astype(np.int64) * 65536 + tie.astype(np.int64)
    rank = np.empty(len(key), dtype=np.int8)
    counts = np.unique(players)
    for p in counts:
        sel = slice(None) if len(counts) == 1 else np.flatnonzero(players == p)
        k = key[sel].reshape(-1, int(p))
        rank[sel] = (1 + (k[:, None, :] > k[:, :, None]).sum(2)).reshape(-1)
    return rank


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
