"""How every `palais` command reports a user's mistake: one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

from typing import NoReturn

import typer

from palais_sim.board import LayoutError
from palais_sim.components import ComponentError
from palais_sim.engine.game import StrategyError
from palais_sim.engine.setup import SetupError
from palais_sim.registry import StrategySpecError

USER_ERRORS = (ComponentError, LayoutError, SetupError, StrategySpecError, StrategyError, ValueError, OSError)


def fail(message: str, code: int = 2) -> NoReturn:
    """A clear one-line error on stderr and a non-zero exit, never a traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)
