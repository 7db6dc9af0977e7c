"""The `palais` commands of the tournament layer, registered on the main Typer app by `palais_sim.cli`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this layer's commands to ``app``."""
