"""The `palais` command line: one Typer app fronting every step (play, positions, replays, runs, reports, ladder).

The app lives here and nothing else does: each command group is a module of its own (`game`, `simulate`,
`report`, `strategies`) that imports only downward (engine, registry, tournament, analytics) and the package's two
shared modules, `errors` (the one-line error helper) and `options` (the rule options); no command module imports
another one or this package. This module registers their commands, in the order `palais --help` lists them.
"""

from __future__ import annotations

import typer

from palais_sim.cli import analyse, game, report, simulate, strategies, tune

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Palais Royal simulator: play games, run tournaments, analyse the results.",
)

COMMANDS = {
    "play": game.play,
    "score": game.score,
    "inspect": game.inspect,
    "replay": game.replay,
    "version": game.version,
    "simulate": simulate.simulate,
    "bench": simulate.bench,
    "report": report.report,
    "strategies": strategies.list_strategies,
    "ladder": strategies.ladder,
    "tune": tune.tune,
    "analyse": analyse.analyse,
}

for _name, _command in COMMANDS.items():
    app.command(_name)(_command)


def main() -> None:  # pragma: no cover - console entry point
    app()
