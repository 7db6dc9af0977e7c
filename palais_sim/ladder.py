"""The `palais strategies` and `palais ladder` commands, registered on the main Typer app by `palais_sim.cli`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the strategy commands to ``app``."""
