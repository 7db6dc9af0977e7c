"""`palais balance <what>`: propose component prices that balance a game, validated on fresh seeds.

A balance search is a game's own study (the prices that bring every component of a kind within the margin); its
``GAME.studies`` names the command as ``"balance <what>"``, and it is registered here.
"""

from __future__ import annotations

import typer

from palais_sim.cli.studies import game_commands
from palais_sim.tournament import exits

app = typer.Typer(
    no_args_is_help=True,
    help="Propose component prices that balance a game, validated on fresh seeds (the searches its GAME.studies "
    "declares).",
)

for _name, _command in game_commands().items():  # the games' balance searches, as their GAME.studies name them
    group, _, what = _name.partition(" ")
    if group == "balance" and what:
        app.command(what, epilog=exits.HELP_AGAIN)(_command)
