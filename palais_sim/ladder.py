"""The `palais strategies` and `palais ladder` commands, registered on the main Typer app by `palais_sim.cli`.

The ladder is a seat-rotated round robin: every group of ``--players`` strategies plays the same game seeds in
every seat rotation (for two players: each seed with the seats swapped), so seat and setup luck cancel out. It
keeps results in memory (a benchmark, not a data run: `palais simulate` writes Parquet for that) and uses a
process pool started with ``spawn`` over chunks of seeds.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from multiprocessing import get_context

import typer

DEFAULT_LADDER = "random,greedy,economy,seals,park,cards"


# ---------------------------------------------------------------------------------------------- statistics


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion (shared wins count as fractions)."""
    if n == 0:
        return 0.0, 1.0
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------------------------------------- playing


class LadderError(RuntimeError):
    """A game of the ladder failed (a strategy raised or answered illegally); the message says which and where."""


@dataclass
class GameOutcome:
    specs: tuple[str, ...]  # strategy per seat
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    finished: bool
    decisions: int


def game_seed(root: int, group: int, index: int) -> int:
    """The seed of game ``index`` of matchup ``group``: independent of chunking and worker count."""
    return random.Random(f"ladder:{root}:{group}:{index}").getrandbits(48)


def _play_chunk(task: tuple[tuple[str, ...], list[int], int, str | None]) -> list[GameOutcome]:
    """Play every seat rotation of ``specs`` on each seed (runs in a worker)."""
    from palais_sim.components import load_components
    from palais_sim.engine.game import StrategyError, play_game
    from palais_sim.engine.state import RuleOptions
    from palais_sim.registry import load_strategy

    specs, seeds, players, layout = task
    comps = load_components(None)
    options = RuleOptions(players=players, layout=layout or "random")
    loaded = {s: load_strategy(s) for s in specs}
    out: list[GameOutcome] = []
    for seed in seeds:
        for rot in range(players):
            seat_specs = tuple(specs[(i + rot) % players] for i in range(players))
            try:
                result = play_game(comps, options, seed, [loaded[s] for s in seat_specs])
            except StrategyError as exc:
                # StrategyError does not pickle (its __init__ takes five arguments): send the message across.
                raise LadderError(str(exc)) from None
            out.append(
                GameOutcome(
                    specs=seat_specs,
                    totals=tuple(s.total for s in result.scores),
                    winners=tuple(result.winners),
                    finished=result.finished,
                    decisions=result.decisions,
                )
            )
    return out


@dataclass
class LadderTable:
    strategies: list[str]
    players: int
    games: int = 0
    unfinished: int = 0
    played: dict[str, int] = field(default_factory=dict)
    wins: dict[str, float] = field(default_factory=dict)
    score_sum: dict[str, float] = field(default_factory=dict)
    scores: dict[str, list[int]] = field(default_factory=dict)
    # head[a][b]: games where a and b both played; a_ahead[a][b]: a finished ahead of b (ties half)
    head: dict[str, dict[str, int]] = field(default_factory=dict)
    ahead: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, g: GameOutcome) -> None:
        self.games += 1
        self.unfinished += not g.finished
        share = 1.0 / len(g.winners)
        for seat, spec in enumerate(g.specs):
            self.played[spec] = self.played.get(spec, 0) + 1
            self.wins[spec] = self.wins.get(spec, 0.0) + (share if seat in g.winners else 0.0)
            self.score_sum[spec] = self.score_sum.get(spec, 0.0) + g.totals[seat]
            self.scores.setdefault(spec, []).append(g.totals[seat])
        for a, b in combinations(range(len(g.specs)), 2):
            sa, sb = g.specs[a], g.specs[b]
            if sa == sb:
                continue
            ta, tb = g.totals[a], g.totals[b]
            if ta == tb:  # the Cardinal tie-break decides the winner; between two seats use the win if one has it
                pa = (
                    1.0
                    if (a in g.winners and b not in g.winners)
                    else 0.0
                    if b in g.winners and a not in g.winners
                    else 0.5
                )
            else:
                pa = 1.0 if ta > tb else 0.0
            for x, y, p in ((sa, sb, pa), (sb, sa, 1.0 - pa)):
                self.head.setdefault(x, {}).setdefault(y, 0)
                self.head[x][y] += 1
                self.ahead.setdefault(x, {}).setdefault(y, 0.0)
                self.ahead[x][y] += p

    def rows(self) -> list[dict]:
        rows = []
        for s in self.strategies:
            n = self.played.get(s, 0)
            w = self.wins.get(s, 0.0)
            lo, hi = wilson_interval(w, n)
            ordered = sorted(self.scores.get(s, [0]))
            rows.append(
                {
                    "strategy": s,
                    "games": n,
                    "wins": w,
                    "win_rate": w / n if n else 0.0,
                    "ci_low": lo,
                    "ci_high": hi,
                    "mean_score": self.score_sum.get(s, 0.0) / n if n else 0.0,
                    "median_score": ordered[len(ordered) // 2],
                }
            )
        rows.sort(key=lambda r: -r["win_rate"])
        return rows

    def matrix(self) -> dict[str, dict[str, float | None]]:
        """Row strategy's share of games finished ahead of the column strategy."""
        return {
            a: {
                b: (self.ahead[a][b] / self.head[a][b] if self.head.get(a, {}).get(b) else None)
                for b in self.strategies
            }
            for a in self.strategies
        }


def run_ladder(
    strategies: Sequence[str],
    games: int,
    players: int = 2,
    workers: int = 1,
    seed: int = 1,
    layout: str | None = None,
    chunk: int = 10,
) -> LadderTable:
    """Play the round robin: ``games`` games per matchup (seeds x seat rotations)."""
    if len(strategies) < players:
        raise ValueError(f"{players}-player games need at least {players} strategies, got {len(strategies)}")
    seeds_per_group = max(1, math.ceil(games / players))
    tasks = []
    for group, matchup in enumerate(combinations(strategies, players)):
        seeds = [game_seed(seed, group, i) for i in range(seeds_per_group)]
        for start in range(0, len(seeds), chunk):
            tasks.append((tuple(matchup), seeds[start : start + chunk], players, layout))
    table = LadderTable(strategies=list(strategies), players=players)
    if workers <= 1:
        for task in tasks:
            for g in _play_chunk(task):
                table.add(g)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            for outcomes in pool.map(_play_chunk, tasks):
                for g in outcomes:
                    table.add(g)
    return table


def format_table(table: LadderTable) -> str:
    lines = [
        f"{table.games} games, {table.players} players, {table.unfinished} unfinished; "
        "win rate with 95% Wilson interval",
        "",
        f"{'strategy':<28} {'games':>6} {'win rate':>9} {'95% interval':>16} {'mean':>7} {'median':>7}",
    ]
    for r in table.rows():
        lines.append(
            f"{r['strategy']:<28} {r['games']:>6} {r['win_rate']:>9.1%} "
            f"{'[' + format(r['ci_low'], '.1%') + ', ' + format(r['ci_high'], '.1%') + ']':>16} "
            f"{r['mean_score']:>7.1f} {r['median_score']:>7}"
        )
    names = table.strategies
    short = [n[:10] for n in names]
    lines += ["", "head to head: share of games the row finished ahead of the column", ""]
    lines.append(f"{'':<28} " + " ".join(f"{s:>10}" for s in short))
    matrix = table.matrix()
    for a in names:
        cells = []
        for b in names:
            v = matrix[a][b]
            cells.append(f"{'-' if v is None else format(v, '.1%'):>10}")
        lines.append(f"{a[:28]:<28} " + " ".join(cells))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- commands


def strategies_listing() -> list[dict]:
    from palais_sim.registry import strategy_class, strategy_parameters
    from strategies import BUILTINS

    out = []
    for name, target in BUILTINS.items():
        cls = strategy_class(target)
        doc = (cls.__doc__ or "").strip().splitlines()
        out.append(
            {
                "name": name,
                "class": target,
                "description": doc[0] if doc else "",
                "parameters": strategy_parameters(cls),
            }
        )
    return out


def register(app: typer.Typer) -> None:
    """Add the strategy commands to ``app``."""

    @app.command("strategies")
    def strategies_cmd(as_json: bool = typer.Option(False, "--json", help="Print the list as JSON")) -> None:
        """List the built-in strategies with a one-line description and their parameters."""
        listing = strategies_listing()
        if as_json:
            typer.echo(json.dumps(listing, indent=2))
            return
        for item in listing:
            typer.echo(f"{item['name']:<10} {item['description']}")
            params = ", ".join(f"{k}={v}" for k, v in item["parameters"].items())
            typer.echo(f"{'':<10} parameters: {params or 'none'}")
        typer.echo("\nYour own: --strategies package.module:Class (parameters: name:key=value,key=value).")

    @app.command("ladder")
    def ladder_cmd(
        games: int = typer.Option(200, "--games", "-n", help="Games per matchup (seeds x seat rotations)"),
        strategies: str = typer.Option(DEFAULT_LADDER, "--strategies", help="Comma-separated strategy specs"),
        players: int = typer.Option(2, "--players", "-p", help="Players per game, 2 to 4"),
        workers: int = typer.Option(1, "--workers", "-w", help="Worker processes"),
        seed: int = typer.Option(1, "--seed", "-s", help="Root seed for every game seed"),
        layout: str = typer.Option("random", "--layout", help="'random', 'first-game' or a layout code"),
        as_json: bool = typer.Option(False, "--json", help="Print the table and matrix as JSON"),
    ) -> None:
        """Seat-rotated round robin: win rates with 95% intervals, mean scores, the head-to-head matrix."""
        from palais_sim.engine.game import StrategyError
        from palais_sim.registry import StrategySpecError, load_strategy, split_strategy_list

        try:
            specs = split_strategy_list(strategies)
            for s in specs:
                load_strategy(s)  # fail early, with the registry's message
            if not 2 <= players <= 4:
                raise ValueError("--players must be 2, 3 or 4")
            table = run_ladder(specs, games, players, workers, seed, None if layout == "random" else layout)
        except (StrategySpecError, StrategyError, LadderError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            typer.echo(
                json.dumps(
                    {
                        "players": players,
                        "games": table.games,
                        "unfinished": table.unfinished,
                        "seed": seed,
                        "table": table.rows(),
                        "head_to_head": table.matrix(),
                    },
                    indent=2,
                )
            )
        else:
            typer.echo(format_table(table))
