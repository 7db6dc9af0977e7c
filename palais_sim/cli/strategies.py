"""`palais games` (the games), `palais strategies` (a game's built-ins and their parameters) and `palais ladder`
(a strategy ladder).

The ladder is a tournament like any other: a seat-rotated round robin played by the tournament runner into a run
directory (a temporary one unless --out is given), and reported with the analytics' own win-rate tables (win rate
and mean score with group-clustered intervals, the head-to-head shares). It has no pool, seed
scheme or statistics of its own, so a ladder's numbers are the numbers `palais report winrates` gives on its run.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from palais_sim.cli.errors import (
    USER_ERRORS,
    check_at_least,
    check_seed,
    exit_for_failed,
    explain,
    fail,
    resume_advice,
    stopped,
)
from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    ComponentsOpt,
    GameOpt,
    MaxRoundsGameOpt,
    check_backend,
    root_seed_option,
    rules_for,
    with_rule_options,
)
from palais_sim.core.game import Game
from palais_sim.core.games import UnknownGame, game_names, get_game
from palais_sim.registry import (
    builtins,
    split_strategy_list,
    strategy_class,
    strategy_description,
    strategy_parameters,
)
from palais_sim.tournament.schedule import Settings

# ---------------------------------------------------------------------------------------------- strategies


def games_listing() -> list[dict]:
    """The games (built-in and registered, ``game_names()``): name, title, player counts and built-in strategies."""
    out = []
    for name in game_names():
        game = get_game(name)
        out.append(
            {
                "name": game.name,
                "title": game.title,
                "players": [game.min_players, game.max_players],
                "default_players": game.default_players,
                "strategies": list(builtins(game)),
                "default_strategy": game.default_strategy,
                "ladder": list(game.ladder),
                "skill_levels": list(game.skill_levels),
            }
        )
    return out


def list_games(as_json: bool = typer.Option(False, "--json", help="Print the list as JSON")) -> None:
    """List the games palais-sim plays (pass one with --game) with their player counts and built-in strategies."""
    try:
        listing = games_listing()
    except UnknownGame as exc:  # a registered game that cannot be loaded: one line naming it
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    import textwrap

    indent = " " * 19
    for item in listing:
        low, high = item["players"]
        typer.echo(f"{item['name']:<18} {item['title']}, {low} to {high} players")
        for label, names in (("strategies", "strategies"), ("ladder", "ladder"), ("study levels", "skill_levels")):
            line = f"{label}: {', '.join(item[names])}"
            # a long list goes on under itself: the lines stay readable in an 80-column terminal
            typer.echo(textwrap.fill(line, width=79, initial_indent=indent, subsequent_indent=indent + "  "))


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, over as many lines as it takes (its first line cut
    expert's description mid-sentence)."""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    end = re.search(r"[.!?](?=\s|$)", paragraph)
    return paragraph[: end.end()] if end else paragraph


def strategies_listing(game: Game) -> list[dict]:
    """The built-in strategies: name, class, the first sentence of the class's docstring, parameters with defaults."""
    out = []
    for name, target in builtins(game).items():
        cls = strategy_class(target)
        out.append(
            {
                "name": name,
                "class": target,
                "description": first_sentence(strategy_description(cls)),
                "parameters": strategy_parameters(cls),
            }
        )
    return out


def list_strategies(
    game: Game = GameOpt, as_json: bool = typer.Option(False, "--json", help="Print the list as JSON")
) -> None:
    """List the built-in strategies of a game with a one-line description and their parameters."""
    try:
        listing = strategies_listing(game)
    except USER_ERRORS as exc:
        fail(explain(exc))
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    for item in listing:
        typer.echo(f"{item['name']:<10} {item['description']}")
        params = ", ".join(f"{k}={v}" for k, v in item["parameters"].items())
        typer.echo(f"{'':<10} parameters: {params or 'none'}")
    typer.echo("\nYour own: --strategies package.module:Class (parameters: name:key=value,key=value).")


# ---------------------------------------------------------------------------------------------- ladder


@contextmanager
def _run_directory(out: Path | None) -> Iterator[Path]:
    """``out`` as given (kept), or a fresh directory inside a temporary one removed afterwards."""
    if out is not None:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="palais-ladder-") as tmp:
        yield Path(tmp) / "run"


def _finite(value: object) -> object:
    """JSON has no NaN: an undefined figure (an interval of one group, ...) is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _rows(df) -> list[dict]:
    return [{k: _finite(v) for k, v in row.items()} for row in df.to_dicts()]


def _pct(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def _interval(low: float | None, high: float | None, fmt) -> str:
    return "-" if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)) else (
        f"[{fmt(low)}, {fmt(high)}]"
    )  # fmt: skip


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _score(x: float) -> str:
    return f"{x:.1f}"


def _elo(x: float) -> str:
    return f"{x:+.0f}"


def _speed(r: dict) -> str:
    rate = r.get("decisions_per_cpu_second")
    return "-" if rate is None else f"{rate:,.0f}"


def _rules_text(settings: Settings) -> str:
    """The run's rule options for the ladder's header: each with its value (the defaults too, as they were)."""
    return "".join(f", {k.replace('_', ' ')} {v}" for k, v in settings.rule_values.items() if v is not None)


def rated_ends(ratings, strategy: str) -> tuple[float, float] | None:
    """A rated strategy's interval ends as computed (infinite where unbounded; JSON turns them into null)."""
    found = ratings.filter(ratings["strategy"] == strategy)
    if not len(found) or found["rating"][0] is None:
        return None
    return found["ci_low"][0], found["ci_high"][0]


def _rating_cells(r: dict, ends: tuple[float, float] | None) -> tuple[str, str]:
    """The rating and its interval as printed: an unbounded rating or interval end in words, never a number."""
    from palais_sim.analytics.bradley_terry import LABELS

    if r.get("rating") is None:
        return LABELS.get(r.get("rating_status") or "", "-"), "-"
    low, high = ends if ends is not None else (r.get("rating_ci_low"), r.get("rating_ci_high"))

    def end(x: float | None) -> str:
        return "unbounded" if x is not None and math.isinf(x) else "-" if x is None else _elo(x)

    return _elo(r["rating"]), "-" if low is None or high is None else f"[{end(low)}, {end(high)}]"


def ladder_text(
    header: str, table: list[dict], matrix: dict[str, dict[str, float | None]],
    ends: dict[str, tuple[float, float] | None] | None = None,
) -> str:  # fmt: skip
    ends = ends or {}
    # as wide as the longest name: a user's strategy (examples.my_strategy:MyStrategy:...) is never cut
    width = max([28, *(len(r["strategy"]) for r in table), *(len(n) + 4 for n in matrix)])
    lines = [
        header,
        "win rate (a shared win counts as a share) and mean score with 95% intervals clustered on the rotation group;",
        "rating: Bradley-Terry Elo (mean 0 over the rated) with 95% group-bootstrap interval; a strategy that never "
        "lost (never won) a meeting has no finite rating: above (below) all, unbounded;",
        "dec/CPU-s: the strategy's decisions per CPU-second in these games",
        "",
        f"{'strategy':<{width}} {'games':>6} {'win rate':>9} {'95% interval':>16} {'mean':>7} {'95% interval':>16} "
        f"{'rating':>20} {'95% interval':>20} {'dec/CPU-s':>10}",
    ]
    for r in table:
        rating, interval = _rating_cells(r, ends.get(r["strategy"]))
        lines.append(
            f"{r['strategy']:<{width}} {r['games']:>6} {_pct(r['win_rate']):>9} "
            f"{_interval(r['ci_low'], r['ci_high'], _pct):>16} {_score(r['mean_score']):>7} "
            f"{_interval(r['score_ci_low'], r['score_ci_high'], _score):>16} "
            f"{rating:>20} {interval:>20} {_speed(r):>10}"
        )
    reasons = [f"{r['strategy']}: {r['rating_reason']}" for r in table if r.get("rating_reason")]
    if reasons:
        lines += ["", "unbounded ratings:", *(f"  {x}" for x in reasons)]
    names = list(matrix)
    lines += ["", "head to head: share of meetings the row finished ahead of the column (ties count half; the columns",
              "are the rows' numbers)", ""]  # fmt: skip
    lines.append(f"{'':<{width}} " + " ".join(f"{i:>8}" for i in range(1, len(names) + 1)))
    for i, a in enumerate(names, 1):
        lines.append(f"{f'{i:>2}. {a}':<{width}} " + " ".join(f"{_pct(matrix[a][b]):>8}" for b in names))
    return "\n".join(lines)


@with_rule_options
def ladder(
    game: Game = GameOpt,
    games: int = typer.Option(200, "--games", "-n", help="Games per matchup (seeds x seat rotations, rounded up)"),
    strategies: str | None = typer.Option(
        None, "--strategies", help="Comma-separated strategy specs \\[default: the game's ladder (`palais games`)]"
    ),
    players: int | None = typer.Option(None, "--players", "-p", help="Players per game \\[default: 2; the game's]"),
    workers: int | None = typer.Option(
        None,
        "--workers",
        "-w",
        help="Worker processes (1 = in-process) \\[default: 1; with --backend ray: the cluster's CPUs]",
    ),
    seed: int = root_seed_option(1, "Root seed for every game seed"),
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    components: Path | None = ComponentsOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Keep the run in this directory (for `palais report`) \\[default: a temporary one]"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the tables as JSON"),
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Seat-rotated round robin: win rates, mean scores and ratings with 95% intervals, each strategy's decisions per
    CPU-second, the head-to-head matrix."""
    from palais_sim.analytics import winrates
    from palais_sim.analytics.runs import RunError, open_run
    from palais_sim.tournament.manifest import MANIFEST, Manifest, RunDirError
    from palais_sim.tournament.ray_backend import RayUnavailable
    from palais_sim.tournament.runner import RunStopped, run
    from palais_sim.tournament.schedule import Schedule, ScheduleError

    check_at_least(games, "--games")
    if workers is not None:
        check_at_least(workers, "--workers")
    check_seed(seed)
    try:
        check_backend(backend, address)
        if workers is None and backend != "ray":
            workers = 1
        given = rules_for(game, rules)  # a peer's option refused before anything else
        if players is None:
            players = game.comparison_players
        if strategies is None:
            strategies = ",".join(game.ladder)
        specs = tuple(split_strategy_list(strategies, game))
        twice = sorted({s for s in specs if specs.count(s) > 1})
        if twice:
            raise ValueError(
                f"--strategies lists {', '.join(twice)} more than once; a ladder compares different strategies "
                "(a variant is name:key=value)"
            )
        if len(specs) < players:
            raise ValueError(f"{players}-player games need at least {players} strategies, got {len(specs)}")
        base = Settings(
            games=1,
            players=players,
            strategies=specs,
            format="round-robin",
            rotate_seats=True,
            seed=seed,
            components=str(components.resolve()) if components is not None else None,
            max_rounds=max_rounds or game.default_max_rounds,
            game=game,
            rules=given,
        )
        matchups = Schedule(base).matchup_count() or 0
        # whole rotation groups per matchup: the runner cycles the matchups over the groups, so each gets the same
        per_matchup = math.ceil(games / players) * players
        settings = dataclasses.replace(base, games=per_matchup * matchups)
        with _run_directory(out) as run_dir:
            # the same command again finishes a ladder an interruption left in --out (as a study's arms)
            stored = Manifest.load(run_dir) if (run_dir / MANIFEST).exists() else None
            resume = stored is not None and stored.data.get("state") != "done"
            summary = run(
                settings, run_dir, workers, time_strategies=True, resume=resume, backend=backend, address=address
            )
            played = open_run(run_dir)
            rates = winrates.compute(played)
            facts = played.summary
    except RayUnavailable as exc:
        fail(str(exc), 2)
    except RunStopped as exc:
        if out is None:
            fail(f"{exc.stopped.split(':')[0]}: the ladder's temporary run is removed; {resume_advice()}", exc.code)
        stopped(exc)
    except (RunDirError, RunError, ScheduleError, *USER_ERRORS) as exc:
        fail(explain(exc))

    table = _rows(rates.strategies.sort("win_rate", "strategy", descending=[True, False], nulls_last=True))
    rated = {r["strategy"]: r for r in _rows(rates.ratings)}
    for r in table:
        rating = rated.get(r["strategy"], {})
        r["rating"], r["rating_ci_low"], r["rating_ci_high"] = (rating.get(k) for k in ("rating", "ci_low", "ci_high"))
        r["rating_status"], r["rating_reason"] = rating.get("status"), rating.get("reason")
        r["_rated"] = rated_ends(rates.ratings, r["strategy"])
        decisions, cpu = summary.strategy_clock.get(r["strategy"], (0, 0.0))
        r["decisions_timed"], r["cpu_seconds"] = decisions, cpu
        r["decisions_per_cpu_second"] = decisions / cpu if decisions and cpu > 0 else None
    order = list(dict.fromkeys(specs))
    ahead = {(r["strategy"], r["opponent"]): r["ahead"] for r in _rows(rates.head_to_head)}
    matrix = {a: {b: ahead.get((a, b)) for b in order} for a in order}
    ends = {r["strategy"]: r.pop("_rated") for r in table}
    if as_json:
        payload = {
            "players": players,
            "games": facts["games"],
            "games_per_matchup": per_matchup,
            "matchups": matchups,
            "unfinished": facts["unfinished"],
            "failed": facts["failed"],
            "seed": seed,
            "seconds": round(summary.seconds, 3),
            "run": str(out) if out is not None else None,
            "table": table,
            "head_to_head": matrix,
            "head_to_head_table": _rows(rates.head_to_head),
            "ratings": _rows(rates.ratings),
        }
        typer.echo(json.dumps(payload, indent=2))
        exit_for_failed(facts["failed"], "the ladder", allow_failures)
        return
    header = (
        f"{facts['games']} games, {players} players: {_count(matchups, 'matchup')} x {per_matchup} games, seats "
        f"rotated{_rules_text(settings)}, root seed {seed}; {facts['unfinished']} unfinished, {facts['failed']} failed "
        f"(left out); {summary.seconds:.1f} s with {_count(summary.workers, 'worker')}"
    )
    typer.echo(ladder_text(header, table, matrix, ends))
    if out is not None:
        typer.echo(f"\nThe run is kept in {out}: palais report all {out}")
    exit_for_failed(facts["failed"], "the ladder", allow_failures)
