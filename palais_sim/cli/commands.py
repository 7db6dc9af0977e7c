"""The `palais` app: every command registered, in the order `palais --help` lists them (``palais_sim.cli.app``).

Each command group is a module of its own (`game`, `simulate`, `report`, `strategies`, `study`, `balance`, ...)
that imports only downward (registry, tournament, analytics, study) and the package's shared modules, `errors`
(the one-line error helper), `options` (the rule options) and `studies` (what every study command shares); no
command module imports another one, this module or the package. This module registers their commands, and each
registered game's own studies (``GAME.studies``) under `study` and `balance`: the one place the commands meet the
games, imported when the app is first asked for, never by a shared module (a game's study commands import those).

Two small adjustments of Typer's defaults, kept here: a usage error Click finds itself (a missing option, a value
of the wrong type, a choice not offered) is one line on stderr like every other error, and flags show no `<bool>`
type in the help (a flag takes no value).
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from palais_sim import __version__
from palais_sim.cli import (
    analyse,
    balance,
    components,
    errors,
    game,
    match,
    report,
    simulate,
    strategies,
    study,
    train,
    tune,
    verify,
)
from palais_sim.cli.studies import game_commands
from palais_sim.tournament import exits


def _no_type(ctx: object) -> None:
    return None


def _plain_flags(params: list) -> list:
    """Flags take no value: no type column for them in the help (Typer 0.29 shows ``<bool>``)."""
    for param in params:
        if getattr(param, "is_flag", False) and "display_type_rich" not in vars(param):
            param.display_type_rich = _no_type
    return params


class Command(TyperCommand):
    def get_params(self, ctx: Any) -> list:
        return _plain_flags(super().get_params(ctx))


class Group(TyperGroup):
    command_class = Command

    def get_params(self, ctx: Any) -> list:
        return _plain_flags(super().get_params(ctx))

    # Ctrl-C that no command turned into its own message (while the arguments are read, between a study's arms):
    # one line, with how to resume, and status 130 (Typer would exit 130 silently)
    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            errors.interrupted(exits.INTERRUPTED)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            errors.interrupted(exits.INTERRUPTED)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:  # fmt: skip
        """Click's own usage errors as one line (``error: ...``) with where to find help, not a boxed usage."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        from typer import _click as click  # Typer 0.29 vendors Click: its exceptions, not the click package's

        errors.COMMAND_LINE[:] = sys.argv[1:] if args is None else list(args)  # for the resume advice
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            from typer import rich_utils

            rich_utils.rich_format_error(exc)  # prints the help
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            where = exc.ctx.command_path if getattr(exc, "ctx", None) is not None else "palais"
            message = " ".join(exc.format_message().split())
            typer.echo(f"error: {message} (see {where} --help)", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"palais-sim {__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=Group,
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Board-game simulator of the games `palais games` lists: play games, run tournaments, analyse the results.",
)


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit"
    ),
) -> None:
    """Board-game simulator of the games `palais games` lists: play games, run tournaments, analyse the results."""


COMMANDS = {
    "play": game.play,
    "score": game.score,
    "inspect": game.inspect,
    "replay": game.replay,
    "version": game.version,
    "simulate": simulate.simulate,
    "bench": simulate.bench,
    "report": report.report,
    "games": strategies.list_games,
    "strategies": strategies.list_strategies,
    "ladder": strategies.ladder,
    "match": match.match,
    "tune": tune.tune,
    "train": train.train,
    "analyse": analyse.analyse,
    "verify": verify.verify,
}

# the commands whose exit status counts failed games, with the help footer that says how each resumes
PLAYING = {"simulate": exits.HELP, "ladder": exits.HELP_OUT, "match": exits.HELP_OUT}
for _name, _command in COMMANDS.items():
    app.command(_name, cls=Command, epilog=PLAYING.get(_name))(_command)
for _name, _command in game_commands().items():  # each game's own studies, as its GAME.studies names them
    _group, _, _what = _name.partition(" ")
    if not _what:
        study.app.command(_name, epilog=exits.HELP_AGAIN)(_command)
    elif _group == "balance":  # "balance <what>" is `palais balance <what>`
        balance.app.command(_what, epilog=exits.HELP_AGAIN)(_command)
# the command groups' commands get the same help as the top level's (no <bool> after a flag)
for _group_app, _group_name in ((study.app, "study"), (balance.app, "balance"), (components.app, "components")):
    for _info in _group_app.registered_commands:
        _info.cls = Command if _info.cls in (None, TyperCommand) else _info.cls
    app.add_typer(_group_app, name=_group_name, cls=Group)


def main() -> None:
    """Run the `palais` app; a Ctrl-C that no command turned into its own message is one line and status 130, never
    a traceback (the console script starts at palais_launch.main, which comes here once the imports are done)."""
    try:
        app(prog_name="palais")
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(exits.INTERRUPTED)
