"""`palais tune`: search a strategy's numeric parameters for the highest win share against a pool, by simulation.

The search itself is :mod:`palais_sim.tuning` (the space, the games and their statistics, the optimiser); this module
is the command.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, fail, resume_advice
from palais_sim.cli.options import (
    NO_RULES,
    ComponentsOpt,
    GameOpt,
    MaxRoundsGameOpt,
    root_seed_option,
    rules_for,
    with_rule_options,
)
from palais_sim.core.game import Game
from palais_sim.registry import StrategySpecError, resolve, split_strategy_list
from palais_sim.tournament.schedule import Schedule
from palais_sim.tuning.space import TuneError, search_space


@with_rule_options
def tune(
    strategy: str = typer.Argument(..., help="The strategy spec to tune, e.g. greedy (its given values are kept)"),
    game: Game = GameOpt,
    against: str | None = typer.Option(
        None,
        "--against",
        help="The opponents' pool: comma-separated specs \\[default: the game's tune pool (`palais games --json`)]",
    ),
    players: int | None = typer.Option(None, "--players", "-p", help="Players per game \\[default: 2; the game's]"),
    budget: int = typer.Option(20000, "--budget", help="Games for the search and the re-measurement"),
    params: str | None = typer.Option(
        None, "--params", help="Parameters to tune: a,b or a=low:high (default: all numeric ones)"
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Tuning directory (new, empty, or one to resume)"),
    seed: int = root_seed_option(1, "Root seed of the search (validation: seed + 1)"),
    trial_games: int = typer.Option(400, "--trial-games", help="Games per trial (whole rotation groups)"),
    validate: int = typer.Option(2000, "--validate", help="Games per validation comparison (3 comparisons)"),
    workers: int = typer.Option(1, "--workers", "-w", help="Worker processes (1 = in-process)"),
    components: Path | None = ComponentsOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar (default: a tty)"),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON"),
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Search a strategy's numeric parameters for the highest win share against a pool (optuna, resumable)."""
    from palais_sim.tuning.search import TuneSettings, result_text, run_tuning  # scipy: not for every `palais` call

    try:
        given = rules_for(game, rules)  # a peer's option refused before anything else
        if players is None:
            players = game.default_players
        if not game.min_players <= players <= game.max_players:
            raise TuneError(
                f"--players must be {game.min_players} to {game.max_players} for {game.title}, got {players}"
            )
        if workers < 1 or trial_games < 1 or validate < 1 or budget < 1:
            raise TuneError("--workers, --trial-games, --validate and --budget must be at least 1")
        pool = tuple(split_strategy_list(against or game.tune_pool, game))
        for spec in (strategy, *pool):
            resolve(spec, game)
        settings = TuneSettings(
            strategy=strategy,
            against=pool,
            players=players,
            budget=budget,
            space=tuple(search_space(strategy, params, game)),
            seed=seed,
            trial_games=trial_games,
            validate_games=validate,
            components=str(components.resolve()) if components is not None else None,
            max_rounds=max_rounds or game.default_max_rounds,
            game=game,
            rules=given,
        )
        Schedule(settings.gauntlet(strategy, seed, 1))  # the pool and the options make a schedule
        game.context(settings.gauntlet(strategy, seed, 1).to_dict())  # the rule options suit the game
        result = run_tuning(settings, out, workers, progress)
    except KeyboardInterrupt:
        fail(f"interrupted: the trials played are kept in {out}; {resume_advice()}", 130)
    except (TuneError, StrategySpecError, *USER_ERRORS) as exc:
        fail(str(exc))
    typer.echo(json.dumps(result, indent=2) if as_json else result_text(result))
