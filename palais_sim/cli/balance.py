"""`palais balance <what>`: propose component prices that balance a game, validated on fresh seeds.

A balance search is a game's own study (the prices that bring every component of a kind within the margin); its
``GAME.studies`` names the command as ``"balance <what>"``, and the app (``palais_sim.cli.commands``) registers it here.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    no_args_is_help=True,
    help="Propose component prices that balance a game, validated on fresh seeds (the searches its GAME.studies "
    "declares).",
)
