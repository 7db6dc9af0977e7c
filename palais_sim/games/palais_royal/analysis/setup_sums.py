"""What Palais Royal's setup report needs, summed over the seat batches: memory flat in the size of the run.

The setup tables were group-bys of a few rows per seat-rotation group (players, group, layout, seat, start gold).
Here every batch of whole groups is summed into accumulators of fixed size, and the tables are finished from them:

- per (players, seat, start gold, first-game layout or not): seat rows, wins, points and rounds (a handful of keys);
- the seats' group-clustered cross-products (``SeatSums``) and, per player count, the start-gold slope's: the Gram
  matrix of each group's five sums the slope's score is linear in (``StartGoldSlopes``);
- per room layout (9! = 362,880 of them, coded by their rank as a permutation of the nine rooms) and seat: rows and
  wins, for the castle picture and the layouts with enough games (dense arrays, about 4.4 MB a seat of a player
  count, allocated for the player counts the run has);
- per (players, seat or strategy, layout feature, feature value): the five sums ``stats.TableSlopes`` reads per value
  (rows, wins, wins squared, wins times rows, rows squared, over the group's cells), so the feature effects need no
  row per group either.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import scipy.sparse as sp

from palais_sim.analytics import stats
from palais_sim.analytics.batches import SeatBatch
from palais_sim.analytics.seat_balance import SeatSums
from palais_sim.games.palais_royal.board import ROOM_CODES, ROOM_KEYS

ROOM_NAME = dict(zip(ROOM_CODES, ROOM_KEYS, strict=True))

LAYOUTS = math.factorial(len(ROOM_CODES))
VALUES = 5  # a layout feature's values are 0..4 (distances on the 3 x 3 castle, yes/no)
_FACTORIALS = np.array([math.factorial(len(ROOM_CODES) - 1 - i) for i in range(len(ROOM_CODES))], dtype=np.int64)
_LETTER = np.full(256, 255, dtype=np.uint8)
_LETTER[np.frombuffer("".join(ROOM_CODES).encode(), dtype=np.uint8)] = np.arange(len(ROOM_CODES), dtype=np.uint8)


def layout_codes(layouts: pl.Series) -> np.ndarray:
    """Each layout's rank (0 .. 9! - 1) as a permutation of the rooms (its Lehmer code)."""
    rooms = len(ROOM_CODES)
    flat = layouts.str.replace_all("/", "", literal=True)
    if len(flat) and not (flat.str.len_bytes() == rooms).all():
        raise ValueError("a layout of the run is not a 3 x 3 castle of the nine rooms")
    raw = np.frombuffer("".join(flat.to_list()).encode(), dtype=np.uint8).reshape(-1, rooms)
    perm = _LETTER[raw].astype(np.int64)
    if len(perm) and not (np.sort(perm, axis=1) == np.arange(rooms)).all():
        raise ValueError("a layout of the run is not a 3 x 3 castle of the nine rooms")
    code = np.zeros(len(perm), dtype=np.int64)
    for i in range(rooms - 1):
        code += (perm[:, i + 1 :] < perm[:, i : i + 1]).sum(1) * _FACTORIALS[i]
    return code


def layout_strings(codes: np.ndarray) -> list[str]:
    """The layouts of ranks ``codes`` (``layout_codes`` inverted)."""
    rooms = len(ROOM_CODES)
    left = np.asarray(codes, dtype=np.int64).copy()
    digits = np.empty((len(left), rooms), dtype=np.int64)
    for i in range(rooms):
        digits[:, i], left = np.divmod(left, _FACTORIALS[i])
    free = np.tile(np.arange(rooms), (len(left), 1))
    letters = np.array(ROOM_CODES)
    out = np.empty((len(left), rooms), dtype=object)
    for i in range(rooms):  # the digit-th room not used yet
        pick = free[np.arange(len(left)), digits[:, i]]
        out[:, i] = letters[pick]
        keep = np.arange(rooms - i)[None, :] != digits[:, i : i + 1]
        free = free[:, : rooms - i][keep].reshape(len(left), rooms - i - 1)
    return [f"{''.join(r[:3])}/{''.join(r[3:6])}/{''.join(r[6:])}" for r in out]


def _cell(code: str) -> pl.Expr:
    return pl.col("layout").str.replace_all("/", "", literal=True).str.find(code, literal=True)


def layout_features(layouts: pl.LazyFrame) -> pl.LazyFrame:
    """Per layout code: the cell (0..8) of every room, and the numeric features the report tests."""
    cells = layouts.with_columns([_cell(c).cast(pl.Int8).alias(f"cell_{c}") for c in ROOM_CODES])

    def dist(a: str, b: str) -> pl.Expr:
        ca, cb = pl.col(f"cell_{a}").cast(pl.Int16), pl.col(f"cell_{b}").cast(pl.Int16)
        return (ca // 3 - cb // 3).abs() + (ca % 3 - cb % 3).abs()

    feats: list[pl.Expr] = []
    for c in ROOM_CODES:
        if c != "G":
            feats.append(dist("G", c).alias(f"gate_to_{ROOM_NAME[c]}"))
    feats += [dist("S", "O").alias("stairway_to_office"), dist("S", "M").alias("stairway_to_mint")]
    for c in ROOM_CODES:
        if c != "S":
            feats.append((dist("S", c) == 1).cast(pl.Int8).alias(f"{ROOM_NAME[c]}_next_to_stairway"))
    for c in ROOM_CODES:
        feats.append((pl.col(f"cell_{c}") == 4).cast(pl.Int8).alias(f"{ROOM_NAME[c]}_in_centre"))
    return cells.with_columns(feats)


class StartGoldSlopes:
    """``stats.cluster_slopes`` of the win on start gold, per player count, from sums: a group's score
    ``sum dx (y - ybar - slope dx)`` over its rows is linear in its sums of (gold x win, win, gold, rows, gold^2),
    so the sandwich's meat is a quadratic form of their Gram matrix over the groups (5 x 5 per player count)."""

    def __init__(self) -> None:
        self.gram: dict[int, np.ndarray] = {}
        self.groups: dict[int, int] = {}

    def add(self, players: int, code: np.ndarray, gold: np.ndarray, win: np.ndarray) -> None:
        """Rows of one player count, ``code`` the group (0..G-1, sorted)."""
        g = int(code[-1]) + 1 if len(code) else 0
        x = gold.astype(np.float64)
        v = np.column_stack(
            [np.bincount(code, weights=w, minlength=g) for w in (x * win, win, x, np.ones_like(x), x * x)]
        )
        self.gram[players] = self.gram.get(players, np.zeros((5, 5))) + v.T @ v
        self.groups[players] = self.groups.get(players, 0) + int((v[:, 3] > 0).sum())

    def slope(self, players: int, per_gold: pl.DataFrame) -> tuple[float, float, float]:
        """Slope, its CR1 standard error and p; ``per_gold``: the player count's rows ``n`` and wins ``win`` per
        start gold (the slope itself from them, as ``cluster_slopes`` computes it)."""
        x = per_gold["start_gold"].to_numpy().astype(np.float64)
        n = per_gold["n"].to_numpy().astype(np.float64)
        y = per_gold["win"].to_numpy().astype(np.float64)
        total = n.sum()
        if total == 0:
            return np.nan, np.nan, np.nan
        xbar, ybar = n @ x / total, y.sum() / total
        dx = x - xbar
        sxx = n @ (dx * dx)
        g = self.groups.get(players, 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = (y - n * ybar) @ dx / sxx
            c = np.array([1.0, -xbar, -ybar + 2 * slope * xbar, xbar * ybar - slope * xbar * xbar, -slope])
            meat = max(float(c @ self.gram[players] @ c), 0.0)
            se = np.sqrt(g / (g - 1) * meat) / sxx if g > 1 else np.nan
            se = se if sxx > 0 else np.nan
            p = float(stats.two_sided_p(slope / se)) if se > 0 else np.nan
        return float(slope), float(se), p


class FeatureSums:
    """Per (players, subject) and per (layout feature, value): the five sums ``stats.TableSlopes.slopes`` takes per
    value (over the subject's cells, one per group: rows, wins, wins^2, wins x rows, rows^2), the cells and the
    totals. ``slopes`` gives the same estimates, the within-cell deviations expanded in these sums."""

    def __init__(self, player_counts: list[int], width: int, features: int) -> None:
        self.counts = list(player_counts)
        self.width = width  # subjects per player count (16 seats, or the strategies)
        self.features = features
        self.sums = np.zeros((len(self.counts) * width, 5, features * VALUES))
        self.cells = np.zeros(len(self.counts) * width, dtype=np.int64)

    def add(self, part: np.ndarray, row: np.ndarray, n: np.ndarray, y: np.ndarray, by_value: sp.csc_matrix) -> None:
        """Cells (one per group and subject) by their part (player count index x width + subject), their layout's
        ``row`` in ``by_value`` (feature values x the batch's layouts), rows ``n`` and wins ``y``."""
        parts, layouts = len(self.cells), by_value.shape[1]
        for i, w in enumerate((n, y, y * y, y * n, n * n)):
            per_layout = sp.csr_matrix((w, (part, row)), shape=(parts, layouts))
            self.sums[:, i, :] += np.asarray((per_layout @ by_value.T).todense())
        self.cells += np.bincount(part, minlength=parts)

    def slopes(self, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
        """Per feature: slope, standard error and p of the part ``index``; and its base rate and rows."""
        f = self.features
        sums = self.sums[index].reshape(5, f, VALUES)
        count, ysum, sq, cross, nn = sums
        total = count[0].sum()
        ybar = ysum[0].sum() / total
        ey_v = ysum - ybar * count
        sq = sq - 2 * ybar * cross + ybar * ybar * nn
        cross = cross - ybar * nn
        value = np.arange(VALUES, dtype=np.float64)[None, :]
        xbar = (count * value).sum(1) / total
        d = value - xbar[:, None]
        sxx = (count * d * d).sum(1)
        g = int(self.cells[index])
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = (ey_v * d).sum(1) / sxx
            b = np.nan_to_num(slope)[:, None] * d
            meat = np.maximum((d * d * (sq - 2 * b * cross + b * b * nn)).sum(1), 0)
            se = np.sqrt(g / (g - 1) * meat) / sxx if g > 1 else np.full(f, np.nan)
            se = np.where(sxx > 0, se, np.nan)
            p = np.where(se > 0, stats.two_sided_p(slope / se), np.nan)
        return slope, se, p, float(ysum[0].sum() / total), int(round(total))


class SetupSums:
    """Everything the setup report reads from the seat rows, summed batch by batch (see the module's docstring)."""

    def __init__(self, player_counts: list[int], strategies: int, first_game: str, feature_names: list[str]) -> None:
        self.counts = list(player_counts)
        self.k = max(1, strategies)
        self.first_code = int(layout_codes(pl.Series([first_game]))[0])
        self.feature_names = feature_names
        self.seats = SeatSums()
        self.gold = StartGoldSlopes()
        self.by_seat = FeatureSums(self.counts, 16, len(feature_names))
        self.by_strategy = FeatureSums(self.counts, self.k, len(feature_names))
        self.strategies_seen = np.zeros(self.k, dtype=bool)
        self.layout_n: dict[int, np.ndarray] = {}  # players -> seats x 9! rows
        self.layout_win: dict[int, np.ndarray] = {}
        self._totals: list[pl.DataFrame] = []

    def add(self, b: SeatBatch) -> None:
        if not len(b):
            return
        code = b.group.astype(np.int64)
        first = np.flatnonzero(np.r_[True, b.group[1:] != b.group[:-1]])
        group_players = b.players[first].astype(np.int64)
        group_layout = layout_codes(b.setup["layout"])
        row_layout = group_layout[code]
        self.seats.add(b.players, b.group, b.seat, b.win, b.total)
        first_game = row_layout == self.first_code
        frame = pl.DataFrame(
            {
                "players": b.players,
                "seat": b.seat,
                "start_gold": b.seat_value,
                "first_game": first_game,
                "n": np.ones(len(b), dtype=np.int64),
                "win": b.win,
                "total": b.total.astype(np.int64),
                "rounds": b.rounds.astype(np.int64),
            }  # fmt: skip
        )
        keys = ["players", "seat", "start_gold", "first_game"]
        self._totals.append(frame.group_by(keys).agg(pl.exclude(keys).sum()))
        if len(self._totals) >= 32:
            self._totals = [self._add_up()]
        for p in np.unique(group_players):
            rows = np.flatnonzero(b.players == p)
            self.gold.add(int(p), np.cumsum(np.r_[False, code[rows][1:] != code[rows][:-1]]), b.seat_value[rows],
                          b.win[rows])  # fmt: skip
            if int(p) not in self.layout_n:
                self.layout_n[int(p)] = np.zeros((int(p), LAYOUTS), dtype=np.int32)
                self.layout_win[int(p)] = np.zeros((int(p), LAYOUTS))
            key = (b.seat[rows].astype(np.int64) - 1) * LAYOUTS + row_layout[rows]
            self.layout_n[int(p)] += (
                np.bincount(key, minlength=int(p) * LAYOUTS).reshape(int(p), LAYOUTS).astype(np.int32)
            )
            self.layout_win[int(p)] += np.bincount(key, weights=b.win[rows], minlength=int(p) * LAYOUTS).reshape(
                int(p), LAYOUTS
            )
        # the layout features of the batch's layouts, as a sparse (feature value x layout) indicator
        distinct, layout_row = np.unique(group_layout, return_inverse=True)
        feats = layout_features(pl.DataFrame({"layout": layout_strings(distinct)}).lazy()).collect()
        values = feats.select(self.feature_names).to_numpy().astype(np.int64)
        if values.min() < 0 or values.max() >= VALUES:
            raise ValueError("a layout feature outside 0..4")
        f = len(self.feature_names)
        cols = (np.arange(f)[None, :] * VALUES + values).reshape(-1)
        by_value = sp.csc_matrix(
            (np.ones(len(cols)), cols, np.arange(0, len(cols) + 1, f)), shape=(f * VALUES, len(distinct))
        )
        pidx = np.searchsorted(self.counts, group_players)
        self.strategies_seen[np.unique(b.strategy)] = True
        for sums, subject, width in ((self.by_seat, b.seat, 16), (self.by_strategy, b.strategy, self.k)):
            key = code * width + subject.astype(np.int64)
            n = np.bincount(key, minlength=len(first) * width)
            present = np.flatnonzero(n)
            group = present // width
            y = np.bincount(key, weights=b.win, minlength=len(first) * width)[present]
            sums.add(pidx[group] * width + present % width, layout_row[group], n[present].astype(np.float64), y,
                     by_value)  # fmt: skip

    def _add_up(self) -> pl.DataFrame:
        keys = ["players", "seat", "start_gold", "first_game"]
        schema = {"players": pl.Int8, "seat": pl.Int8, "start_gold": pl.Int8, "first_game": pl.Boolean,
                  "n": pl.Int64, "win": pl.Float64, "total": pl.Int64, "rounds": pl.Int64}  # fmt: skip
        if not self._totals:
            return pl.DataFrame(schema=schema)
        frame = pl.concat(self._totals)
        return frame.group_by(keys).agg(pl.exclude(keys).sum()).sort(keys).cast(schema)  # type: ignore[arg-type]

    def totals(self) -> pl.DataFrame:
        """Per (players, seat, start gold, first game): rows ``n``, ``win``, ``total`` and ``rounds`` summed."""
        self._totals = [self._add_up()]
        return self._totals[0]

    def layouts(self, min_games: int = 0, seat: int | None = None) -> pl.DataFrame:
        """Per (players, layout, seat) with games (rows ``n``, wins ``win``): layouts with at least ``min_games``
        games (and one ``seat`` only, when given)."""
        parts = []
        for p in sorted(self.layout_n):
            n, win = self.layout_n[p], self.layout_win[p]
            at = np.flatnonzero(n.max(0) >= max(1, min_games))
            names = pl.Series(layout_strings(at), dtype=pl.String)
            for s in range(p) if seat is None else [seat - 1]:
                keep = n[s, at] > 0
                parts.append(pl.DataFrame({"players": pl.Series(np.full(int(keep.sum()), p), dtype=pl.Int8),
                                           "layout": names.filter(pl.Series(keep)),
                                           "seat": pl.Series(np.full(int(keep.sum()), s + 1), dtype=pl.Int8),
                                           "n": pl.Series(n[s, at][keep], dtype=pl.UInt32),
                                           "win": win[s, at][keep]}))  # fmt: skip
        schema = {"players": pl.Int8, "layout": pl.String, "seat": pl.Int8, "n": pl.UInt32, "win": pl.Float64}
        return pl.concat(parts) if parts else pl.DataFrame(schema=schema)

    def feature_rows(self, strategies: list[str]) -> list[dict]:
        """The rows of ``setup_balance.feature_effects`` (before Holm): per (players, subject) present and feature;
        the strategies' only when the run has two or more."""
        parts: list[tuple[str, FeatureSums, list]] = [("seat", self.by_seat, list(range(16)))]
        if self.strategies_seen.sum() > 1:
            parts.append(("strategy", self.by_strategy, strategies))
        rows = []
        for subject, sums, names in parts:
            for index in np.flatnonzero(sums.sums[:, 0, :VALUES].sum(1) > 0):
                players, who = self.counts[index // sums.width], names[index % sums.width]
                slope, se, p, base, seats = sums.slopes(int(index))
                for j, name in enumerate(self.feature_names):
                    rows.append({"players": players, "subject": f"{subject} {who}", "feature": name,
                                 "effect": slope[j], "ci_low": slope[j] - stats.Z95 * se[j],
                                 "ci_high": slope[j] + stats.Z95 * se[j], "base_rate": base, "seats": seats,
                                 "p": p[j]})  # fmt: skip
        return rows
