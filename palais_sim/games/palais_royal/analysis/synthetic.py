"""Synthetic run directories, made without the tournament runner (vectorised, planted effects).

Synthetic runs have known answers: a seat, a strategy, a noble or a layout feature can be planted as too strong,
and the reports must find it. They are also the benchmark's input (10 million seat rows in about a minute).
The layout follows the runner's: ``DIR/manifest.json`` and ``DIR/{games,seats,recruits}/chunk-NNNNN.parquet``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.board import ROOM_CODES
from palais_sim.games.palais_royal.components import ComponentSet, load_components
from palais_sim.tournament import records
from palais_sim.tournament.records import SCHEMA_VERSION

DEFAULT_EXTRA = {"engine": "synthetic", "gold_limit": None, "max_rounds": 100}


def _tables() -> dict[str, dict[str, pl.DataType]]:
    """Palais Royal's run tables, as the runner writes them (its game object's columns)."""
    return records.tables(get_game("palais-royal"))


@dataclass
class SynthSpec:
    """What to generate. Bonuses are in points added to a seat's total."""

    groups: int = 300
    players: tuple[int, ...] = (3,)  # player count of each chunk, cycled
    strategies: tuple[str, ...] = ("alpha", "beta", "gamma")
    skill: dict[str, float] = field(default_factory=dict)  # strategy -> points
    seat_bonus: dict[int, float] = field(default_factory=dict)  # 1-based seat -> points
    noble_bonus: dict[str, float] = field(default_factory=dict)  # noble id -> points for its taker
    stairway_office_bonus: float = 0.0  # points for seat 1 when the Stairway is next to the Office
    first_game_share: float = 0.2  # share of groups on the first-game layout
    fail_share: float = 0.0  # share of games recorded as failed
    noise: float = 5.0
    chunk_groups: int = 2000
    seed: int = 0


def _write(df: pl.DataFrame, table: str, out: Path, chunk: int) -> None:
    schema = _tables()[table]
    for name, value in DEFAULT_EXTRA.items():
        if name in schema and name not in df.columns:
            df = df.with_columns(pl.lit(value).alias(name))
    df = df.select([pl.col(c).cast(t) for c, t in schema.items()])
    target = out / table / f"chunk-{chunk:05d}.parquet"
    df.write_parquet(target.with_suffix(".tmp"))
    target.with_suffix(".tmp").rename(target)


def _manifest(out: Path, comps: ComponentSet, settings: dict, chunks: list[dict], seed: int) -> None:
    manifest = {
        "kind": "palais-sim run",
        "schema_version": SCHEMA_VERSION,
        "engine_version": "synthetic",
        "components_hash": comps.hash,
        "root_seed": seed,
        "settings": settings,
        "state": "done",
        "chunks": chunks,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def _layouts(rng: np.random.Generator, groups: int, first_game: str, share: float) -> list[str]:
    letters = np.array(ROOM_CODES)
    perms = np.argsort(rng.random((groups, 9)), axis=1)
    codes = ["".join(row) for row in letters[perms]]
    first = rng.random(groups) < share
    return [first_game if f else f"{c[:3]}/{c[3:6]}/{c[6:]}" for c, f in zip(codes, first, strict=True)]


def _stairway_next_to_office(layouts: list[str]) -> np.ndarray:
    out = np.zeros(len(layouts), dtype=bool)
    for i, code in enumerate(layouts):
        flat = code.replace("/", "")
        s, o = flat.index("S"), flat.index("O")
        out[i] = abs(s // 3 - o // 3) + abs(s % 3 - o % 3) == 1
    return out


def synthetic_run(out: Path, spec: SynthSpec | None = None, comps: ComponentSet | None = None) -> Path:
    """Write a synthetic run to ``out`` and return it."""
    spec = spec or SynthSpec()
    comps = comps or load_components()
    out = Path(out)
    for table in _tables():
        (out / table).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.seed)
    noble_ids = [n.id for n in comps.nobles]
    points = np.array([n.points for n in comps.nobles], dtype=float)
    gold = np.array([n.gold for n in comps.nobles], dtype=np.int64)
    bonus = np.array([spec.noble_bonus.get(i, 0.0) for i in noble_ids])
    strategies = list(spec.strategies)
    skill = np.array([spec.skill.get(s, 0.0) for s in strategies])
    chunks, game0, group0, chunk = [], 0, 0, 0
    while group0 < spec.groups:
        p = spec.players[chunk % len(spec.players)]
        g = min(spec.chunk_groups, spec.groups - group0)
        games = g * p
        # matchups: distinct strategies when there are enough, rotated through the seats
        if len(strategies) >= p:
            matchup = np.argsort(rng.random((g, len(strategies))), axis=1)[:, :p]
        else:
            matchup = rng.integers(0, len(strategies), (g, p))
        rot = np.arange(p)
        seat_strat = matchup[:, (rot[None, :] - rot[:, None]) % p]  # (g, rotation, seat)
        layouts = _layouts(rng, g, comps.first_game_layout, spec.first_game_share)
        so = _stairway_next_to_office(layouts)
        park = np.argsort(rng.random((g, len(noble_ids))), axis=1)[:, :36]
        # nobles taken: each game shuffles the park; seat s takes the next m_s of them
        order = np.argsort(rng.random((games, 36)), axis=1)
        game_park = np.repeat(park, p, axis=0)
        taken_nobles = np.take_along_axis(game_park, order, axis=1)
        m = rng.integers(3, 8, (games, p))
        ends = np.cumsum(m, axis=1)
        k_total = ends[:, -1]
        pos = np.arange(36)[None, :]
        seat_of_pos = (pos[:, :, None] >= ends[:, None, :]).sum(axis=2)  # (games, 36)
        valid = pos < k_total[:, None]
        r_game, r_pos = np.nonzero(valid)
        r_seat = seat_of_pos[r_game, r_pos]
        r_noble = taken_nobles[r_game, r_pos]
        seat_index = r_game * p + r_seat
        n_seats = games * p
        nobles_points = np.bincount(seat_index, weights=points[r_noble], minlength=n_seats)
        extra = np.bincount(seat_index, weights=bonus[r_noble], minlength=n_seats)
        strat = seat_strat.reshape(-1)  # (games * p) in (group, rotation, seat) order
        seat_no = np.tile(np.arange(1, p + 1), games)
        seat_pts = np.array([spec.seat_bonus.get(s, 0.0) for s in range(1, p + 1)])[seat_no - 1]
        group_of_seat = np.repeat(np.arange(g), p * p)
        layout_pts = np.where(so[group_of_seat] & (seat_no == 1), spec.stairway_office_bonus, 0.0)
        park_pts = np.maximum(0, np.rint(12 + skill[strat] + seat_pts + extra + layout_pts
                                         + rng.normal(0, spec.noise, n_seats))).astype(np.int64)  # fmt: skip
        cards_played = 2 * rng.integers(0, 3, n_seats)
        cards_unplayed = rng.integers(0, 4, n_seats)
        total = nobles_points.astype(np.int64) + park_pts + cards_played + cards_unplayed
        t = total.reshape(games, p)
        rank = 1 + (t[:, None, :] > t[:, :, None]).sum(axis=2)
        best = t == t.max(axis=1, keepdims=True)
        win = (best / best.sum(axis=1, keepdims=True)).reshape(-1)
        game_ids = game0 + np.arange(games)
        groups = group0 + np.arange(g)
        failed = rng.random(games) < spec.fail_share
        seat_game = np.repeat(game_ids, p)
        keep_seat = ~np.repeat(failed, p)
        seats = pl.DataFrame(
            {
                "game": seat_game,
                "group": np.repeat(groups, p * p),
                "seat": seat_no,
                "strategy": np.array(strategies)[strat],
                "total": total,
                "nobles_points": nobles_points.astype(np.int64),
                "cards_played": cards_played,
                "cards_unplayed": cards_unplayed,
                "park": park_pts,
                "rank": rank.reshape(-1),
                "win": win,
                "cardinal": rng.integers(0, 3, n_seats),
                "gold": rng.integers(0, 10, n_seats),
                "nobles_taken": m.reshape(-1),
                "start_gold": seat_no - 1,
                "servants_in_park": rng.integers(0, 8, n_seats),
                "hand_size": cards_unplayed,
                "strategy_notes": pl.Series([None] * n_seats, dtype=pl.String),
            }
        ).filter(pl.Series(keep_seat))
        winners = seats.filter(pl.col("win") > 0).group_by("game").agg(pl.col("seat").sort().alias("winners"))
        matchups = seats.group_by("game").agg(pl.col("strategy").sort_by("seat").str.join(",").alias("matchup"))
        rounds = rng.integers(8, 20, games)
        games_df = (
            pl.DataFrame(
                {
                    "game": game_ids,
                    "seed": np.repeat(rng.integers(0, 2**63, g, dtype=np.uint64), p),
                    "group": np.repeat(groups, p),
                    "rotation": np.tile(np.arange(p), g),
                    "players": np.full(games, p),
                    "layout": np.repeat(np.array(layouts), p),
                    "components": np.full(games, comps.hash),
                    "rounds": rounds,
                    "finished": np.ones(games, dtype=bool),
                    "error": pl.Series(["synthetic failure" if f else None for f in failed], dtype=pl.String),
                    "decisions": rng.integers(100, 400, games),
                }
            )
            .join(winners, on="game", how="left")
            .join(matchups, on="game", how="left")
            .with_columns(pl.col("winners").fill_null(pl.lit([], dtype=pl.List(pl.Int8))))
            .sort("game")
        )
        keep_rec = ~failed[r_game]
        k_rank = r_pos
        rec_round = 1 + (k_rank * rounds[r_game]) // np.maximum(k_total[r_game], 1)
        discount = rng.integers(0, 4, len(r_game))
        recruits = pl.DataFrame(
            {
                "game": game_ids[r_game],
                "seat": r_seat + 1,
                "strategy": np.array(strategies)[strat[seat_index]],
                "noble": np.array(noble_ids)[r_noble],
                "field": order[r_game, r_pos],
                "round": rec_round,
                "gold_paid": np.maximum(0, gold[r_noble] - discount),
                "base_cost": gold[r_noble],
                "edge": rng.random(len(r_game)) < 0.55,
                "order": r_pos,
            }
        ).filter(pl.Series(keep_rec))
        _write(games_df, "games", out, chunk)
        _write(seats, "seats", out, chunk)
        _write(recruits, "recruits", out, chunk)
        chunks.append({"chunk": chunk, "first": int(game0), "count": int(games), "state": "done"})
        game0 += games
        group0 += g
        chunk += 1
    settings = {"synthetic": asdict(spec) | {"players": list(spec.players)}}
    _manifest(out, comps, settings, chunks, spec.seed)
    return out
