"""The `palais` command line: one Typer app fronting every step (play, positions, replays, runs, reports, ladder).

The app and its commands are :mod:`palais_sim.cli.commands`, imported when ``app``, ``COMMANDS`` or ``main`` is first
asked for (``from palais_sim.cli import app``). Importing the package builds nothing: a game's study commands import
the shared CLI modules (``errors``, ``options``, ``studies``) through it, and the app registers those study commands.
"""

from __future__ import annotations

_FROM_COMMANDS = ("app", "COMMANDS", "main")


def __getattr__(name: str) -> object:
    if name in _FROM_COMMANDS:
        from palais_sim.cli import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
