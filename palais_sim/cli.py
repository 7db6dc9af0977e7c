"""The `palais` command line: one Typer app fronting every step (play, positions, replays, runs, reports)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import typer

from palais_sim import __version__
from palais_sim.board import LayoutError
from palais_sim.components import ComponentError, load_components
from palais_sim.engine.game import StrategyError, play_game
from palais_sim.engine.setup import SetupError
from palais_sim.engine.state import RuleOptions
from palais_sim.registry import StrategySpecError, load_strategies

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Palais Royal simulator: play games, run tournaments, analyse the results.",
)

USER_ERRORS = (ComponentError, LayoutError, SetupError, StrategySpecError, StrategyError, ValueError, OSError)


def fail(message: str, code: int = 2) -> NoReturn:
    """A clear one-line error on stderr and a non-zero exit, never a traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def rule_options(players: int, layout: str, gold_limit: int | None, max_rounds: int) -> RuleOptions:
    return RuleOptions(players=players, layout=layout, gold_limit=gold_limit, max_rounds=max_rounds)


LayoutOpt = typer.Option("random", "--layout", help="'random' (per game), 'first-game', or a code like PMS/KGD/COB")
ComponentsOpt = typer.Option(None, "--components", help="A component-set TOML file (default: the standard set)")
GoldLimitOpt = typer.Option(None, "--gold-limit", help="Finite bank of gold (e.g. 57); default unlimited")
MaxRoundsOpt = typer.Option(100, "--max-rounds", help="Stop a game after this many rounds (recorded unfinished)")


@app.command()
def play(
    players: int = typer.Option(2, "--players", "-p", help="Number of players, 2 to 4"),
    seed: int = typer.Option(1, "--seed", "-s", help="Game seed"),
    strategies: str = typer.Option("greedy", "--strategies", help="Comma-separated strategies, one per seat or one"),
    layout: str = LayoutOpt,
    components: Path | None = ComponentsOpt,
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int = MaxRoundsOpt,
    log: Path | None = typer.Option(None, "--log", help="Write a replay log (JSON lines) to this file"),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON instead of the turn account"),
) -> None:
    """Play one game and print a turn-by-turn account (or the result as JSON)."""
    from palais_sim.engine.account import TurnAccount
    from palais_sim.engine.notation import ReplayWriter

    try:
        comps = load_components(components)
        options = rule_options(players, layout, gold_limit, max_rounds)
        seats = load_strategies(strategies, players)
        account = None if as_json else TurnAccount(sys.stdout)
        writer = ReplayWriter(log, comps, options, seed, [s.name for s in seats]) if log else None

        def observe(before, decision, choice) -> None:
            if writer:
                writer.record(decision, choice)
            if account:
                account.record(before, decision, choice)

        result = play_game(comps, options, seed, seats, observer=observe)
        if writer:
            writer.finish(result)
    except USER_ERRORS as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        account.summary(result)
        if log:
            typer.echo(f"replay log written to {log}")


@app.command()
def version() -> None:
    """Print the engine version."""
    typer.echo(__version__)


def _register_layers() -> None:
    from palais_sim import ladder
    from palais_sim.analytics import cli as analytics_cli
    from palais_sim.tournament import cli as tournament_cli

    tournament_cli.register(app)
    analytics_cli.register(app)
    ladder.register(app)


_register_layers()


def main() -> None:  # pragma: no cover - console entry point
    app()
