"""`palais components show`: a game's standard component set as an editable, commented TOML, the start of a set of
your own (load it back with --components FILE wherever a command plays games)."""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.errors import explain, fail, writable_file
from palais_sim.cli.options import GameOpt
from palais_sim.core.game import Game

app = typer.Typer(
    no_args_is_help=True,
    help="Component sets: write a game's standard set as a commented TOML to edit and load with --components.",
)


@app.command("show")
def show(
    game: Game = GameOpt,
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the set to this file \\[default: print it]"),
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists"),
) -> None:
    """The game's standard component set as TOML, with a comment on what every field means and which values are
    allowed. Edit a copy and load it with --components FILE: unchanged, it plays the same games as the standard set.
    """
    write = getattr(game, "components_toml", None)
    if write is None:
        fail(f"{game.title} has no component file ({game.components_hint})")
    text = write()
    if out is None:
        typer.echo(text, nl=False)
        return
    if out.exists() and not out.is_dir() and not force:
        fail(f"--out {out} already exists; choose another file or add --force to replace it")
    writable_file(out, "--out")
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"--out {out} cannot be written: {explain(exc)}")
    typer.echo(
        f"the standard {game.title} component set written to {out}: edit it, then play it with "
        f"--game {game.name} --components {out}"
    )
