"""`palais simulate` (a tournament into a run directory) and `palais bench` (games/s with one and all workers)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, check_at_least, exit_for_failures, explain, fail, stopped
from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    GameOpt,
    check_backend,
    game_option,
    root_seed_option,
    rules_for,
    with_rule_options,
)
from palais_sim.core.game import Game
from palais_sim.core.games import get_game
from palais_sim.registry import split_strategy_list
from palais_sim.tournament.schedule import FORMATS, Settings

# Options are None here so --resume can take the stored run's settings and only check the ones given; a run starts
# from its game's demo settings (GAME.demo: for Palais Royal the five heuristic styles in a two-player round robin).


def game_defaults(game: Game) -> Settings:
    """The settings a run of ``game`` starts from: its GAME's demo settings."""
    return Settings(**{**game.demo, "game": game})


# For the help, loading no game: the settings' own defaults, which the default game's demo keeps (another game's demo
# may change them: its players, its strategies).
DEFAULTS = {f.name: f.default for f in dataclasses.fields(Settings)}


def _settings(base: Settings, rules: dict, **given) -> Settings:
    """``base`` with the options given (the others None) and the rule options given over its own."""
    values = {k: v for k, v in given.items() if v is not None}
    return dataclasses.replace(base, **values, rules={**base.rules, **rules})


@with_rule_options
def simulate(
    out: Path = typer.Option(..., "--out", "-o", help="Run directory (created; must be new, empty, or --resume)"),
    game: Game | None = game_option("palais-royal; resuming: the run's"),
    games: int | None = typer.Option(None, "--games", "-n", help=f"Games to play \\[default: {DEFAULTS['games']}]"),
    players: int | None = typer.Option(
        None, "--players", "-p", help=f"Players \\[default: {DEFAULTS['players']}] (another game: its demo's)"
    ),
    strategies: str | None = typer.Option(
        None, "--strategies", help="Comma-separated strategy specs \\[default: the game's demo line-up]"
    ),
    fmt: str | None = typer.Option(None, "--format", help=f"{' | '.join(FORMATS)} \\[default: {DEFAULTS['format']}]"),
    rotate_seats: bool | None = typer.Option(
        None, "--rotate-seats/--no-rotate-seats", help="Play each setup seed in every seat rotation \\[default: on]"
    ),
    seed: int | None = root_seed_option(None, f"Root seed \\[default: {DEFAULTS['seed']}]"),
    workers: int | None = typer.Option(
        None, "--workers", "-w", help="Worker processes \\[default: cores]; 1 = in-process"
    ),
    chunk_size: int | None = typer.Option(None, "--chunk-size", help="Games per chunk file \\[default: auto, <= 500]"),
    components: Path | None = typer.Option(None, "--components", help="Component-set TOML \\[default: standard]"),
    max_rounds: int | None = typer.Option(
        None, "--max-rounds", help=f"Round cap \\[default: {DEFAULTS['max_rounds']}]"
    ),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Finish the interrupted run in --out (its settings are kept); with a larger --games, extend it (its games "
        "are kept)",
    ),
    fail_fast: bool = typer.Option(False, "--fail-fast", help="Stop at the first failed game instead of recording it"),
    allow_failures: bool = AllowFailuresOpt,
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    shard: str | None = typer.Option(
        None,
        "--shard",
        help="K/N: play only part K of N of the run's chunks (the same games as the whole run's), to split a run "
        "over machines; `palais report` reads the N parts' directories as the one run",
    ),
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Play a tournament in a process pool (or on Ray) and write Parquet tables, a manifest and a log under --out."""
    from palais_sim.tournament.manifest import Manifest, RunDirError
    from palais_sim.tournament.pools import default_workers
    from palais_sim.tournament.ray_backend import RayUnavailable
    from palais_sim.tournament.runner import RunStopped, run
    from palais_sim.tournament.schedule import ScheduleError
    from palais_sim.tournament.shards import Shard

    try:
        part = Shard.parse(shard) if shard is not None else None
        base = None
        if resume and out.exists():
            stored = Manifest.load(out)
            if stored is not None:
                base = stored.settings  # its game, from the manifest
                chunk_size = chunk_size or stored.data.get("chunk_size")
                if game is not None and base.game is not game:
                    raise ValueError(f"{out} holds a run of {base.game.name}; --game {game.name} cannot resume it")
        base = base or game_defaults(game or get_game())
        settings = _settings(
            base,
            rules_for(base.game, rules),
            games=games,
            players=players,
            strategies=tuple(split_strategy_list(strategies, base.game)) if strategies is not None else None,
            format=fmt,
            rotate_seats=rotate_seats,
            seed=seed,
            components=str(components.resolve()) if components is not None else None,
            max_rounds=max_rounds,
        )
        check_backend(backend, address)
        # Ray without --workers: all the cluster's CPUs
        n_workers = workers if workers is not None else (None if backend == "ray" else default_workers())
        if n_workers is not None and n_workers < 1:
            raise ValueError(f"--workers must be at least 1, got {n_workers}")
        summary = run(
            settings,
            out,
            n_workers,
            chunk_size,
            resume=resume,
            fail_fast=fail_fast,
            backend=backend,
            address=address,
            shard=part,
        )
    except RayUnavailable as exc:
        fail(str(exc), 2)
    except RunStopped as exc:
        stopped(exc)
    except (RunDirError, ScheduleError, *USER_ERRORS) as exc:
        fail(explain(exc))
    typer.echo(summary.text())
    exit_for_failures(out, "the run", allow_failures)


@with_rule_options
def bench(
    game: Game = GameOpt,
    players: int | None = typer.Option(None, "--players", "-p", help="Players \\[default: 4; the game's usual]"),
    strategies: str | None = typer.Option(
        None,
        "--strategies",
        help="Comma-separated specs: one for every seat, one per seat, fewer (dealt round the table in turn) "
        "or more (a round-robin) \\[default: the game's]",
    ),
    games: int = typer.Option(400, "--games", "-n", help="Games in the workload (each leg plays them all)"),
    workers: int | None = typer.Option(None, "--workers", "-w", help="Workers of the parallel leg \\[default: cores]"),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON object instead of text"),
    compare_pure: bool = typer.Option(
        False,
        "--compare-pure",
        help="Also run the workload on the compiled and the pure Python engine, one worker each, alternated, and "
        "print the speed-up (CPU time)",
    ),
    per_strategy: bool = typer.Option(
        False,
        "--per-strategy",
        help="Also time every decision of each strategy (a leg of its own, 1 worker): decisions per CPU-second per "
        "strategy; with --compare-pure, each strategy's compiled and pure speed",
    ),
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Measure games/s with one worker and with all workers, decisions/s and the scaling factor."""
    from palais_sim.tournament.bench import BenchGamesFailed, bench_text
    from palais_sim.tournament.bench import bench as run_bench
    from palais_sim.tournament.schedule import ScheduleError

    check_at_least(games, "--games")
    check_at_least(workers, "--workers")
    try:
        if players is None:
            players = game.bench_players
        if strategies is None:
            strategies = game.default_strategy
        result = run_bench(
            game,
            players,
            tuple(split_strategy_list(strategies, game)),
            games,
            workers,
            compare_pure,
            per_strategy,
            rules_for(game, rules),
        )
    except BenchGamesFailed as exc:
        fail(f"{exc} (exit status 3)", code=3)
    except (ScheduleError, *USER_ERRORS) as exc:
        fail(explain(exc))
    typer.echo(json.dumps(result, indent=2) if as_json else bench_text(result))
