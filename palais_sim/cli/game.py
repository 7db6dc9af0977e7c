"""`palais play`, `score`, `inspect`, `replay` and `version`: single games, positions and replay logs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from palais_sim import __version__
from palais_sim.cli.errors import USER_ERRORS, check_seed, explain, fail, fresh_directory, writable_file
from palais_sim.cli.options import (
    NO_RULES,
    ComponentsOpt,
    GameOpt,
    PositionGameOpt,
    game_option,
    rules_for,
    with_rule_options,
)
from palais_sim.core.game import Game
from palais_sim.core.games import game_of_position, get_game
from palais_sim.registry import load_strategies


@with_rule_options
def play(
    game: Game | None = game_option("palais-royal; with --from, the position file's game"),
    players: int | None = typer.Option(
        None, "--players", "-p", help="Number of players \\[default: 2; the game's usual]"
    ),
    seed: int = typer.Option(1, "--seed", "-s", help="Game seed"),
    strategies: str | None = typer.Option(
        None, "--strategies", help="Comma-separated strategies, one per seat or one \\[default: greedy; heuristic]"
    ),
    components: Path | None = ComponentsOpt,
    max_rounds: int | None = typer.Option(
        None, "--max-rounds", help="Stop a game after this many rounds (recorded unfinished) \\[default: 100; 200]"
    ),
    log: Path | None = typer.Option(None, "--log", help="Write a replay log (JSON lines) to this file"),
    positions: Path | None = typer.Option(
        None, "--positions", help="Write the position at the start of every turn into this directory"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON instead of the turn account"),
    start: Path | None = typer.Option(
        None,
        "--from",
        help="Continue from this position file instead of a new game: players, setup, rules and component set come "
        "from the file; hidden information it leaves out (deck, other hands) is dealt from --seed",
    ),
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Play one game and print a turn-by-turn account (or the result as JSON)."""
    from palais_sim.tournament.schedule import Settings

    the_game = position_game(game, start) if start is not None else game or get_game()
    check_seed(seed)
    facet = None
    if positions is not None or start is not None:
        facet = positions_facet(the_game, "--positions" if positions is not None else "--from")
    if log is not None:
        writable_file(log, "--log")
    if positions is not None:
        fresh_directory(positions, "--positions", "turn-*.json")
    players = the_game.comparison_players if players is None else players
    try:
        settings = Settings(
            players=players, max_rounds=max_rounds or the_game.default_max_rounds, game=the_game,
            components=str(components) if components is not None else None, rules=rules_for(the_game, rules),
        )  # fmt: skip
        context = the_game.context(settings.to_dict()) if start is None else None
        spec = strategies or the_game.default_strategy

        def seats(n: int) -> list:  # the number of players is the position's with --from
            return load_strategies(spec, n, the_game)

        out = None if as_json else sys.stdout
        if facet is not None:
            result = facet.play_session(context, seed, seats, out, log, positions, start)
        else:
            result = the_game.play_session(context, seed, seats, out, log)
    except USER_ERRORS as exc:
        fail(explain(exc))
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:  # every file written, named (JSON output stays the JSON alone)
        if log:
            typer.echo(f"replay log written to {log}")
        if positions is not None:
            typer.echo(f"positions written to {positions}/ (turn-NNNN.json, one per turn)")


def positions_facet(game, what: str):
    """The game's position-file facet, or a one-line error naming what asked for it."""
    if game.positions is None:
        fail(f"{what}: {game.title} has no position files")
    return game.positions


def check_position_game(game, path: Path) -> None:
    """A one-line error when ``path`` is another game's position file."""
    owner = game_of_position(path)
    if owner is not None and owner.name != game.name:
        fail(f"{path}: a {owner.title} position (format {owner.positions.format}); use --game {owner.name}")


def position_game(game: Game | None, path: Path) -> Game:
    """The game ``--game`` gave, else the one whose position format the file has (else the default game)."""
    if game is not None:
        check_position_game(game, path)
        return game
    return game_of_position(path) or get_game()


def score(
    position: Path = typer.Argument(..., help="A position file (palais play --positions DIR writes one per turn)"),
    game: Game | None = PositionGameOpt,
    as_json: bool = typer.Option(False, "--json", help="Print JSON"),
) -> None:
    """Final scoring of a position as if the game ended now (with the tie-break)."""
    the_game = position_game(game, position)
    _position_command(positions_facet(the_game, "score").score, position, as_json)


def inspect(
    position: Path = typer.Argument(..., help="A position file (palais play --positions DIR writes one per turn)"),
    game: Game | None = PositionGameOpt,
    as_json: bool = typer.Option(False, "--json", help="Print JSON"),
) -> None:
    """What the seat to move would get now: its legal choices and what each gives, as its game tells them."""
    the_game = position_game(game, position)
    _position_command(positions_facet(the_game, "inspect").inspect, position, as_json)


def _position_command(command, position: Path, as_json: bool) -> None:
    try:
        payload, text = command(position)
    except USER_ERRORS as exc:
        fail(explain(exc))
    typer.echo(json.dumps(payload, indent=2, ensure_ascii=False) if as_json else text)


def replay(
    log: Path = typer.Argument(..., help="A replay log written by palais play --log"), game: Game = GameOpt
) -> None:
    """Play a replay log back and verify it: every decision legal, the same final scores."""
    try:
        typer.echo(game.replay_text(log))
    except OSError as exc:
        fail(explain(exc))
    except ValueError as exc:  # the game's NotationError: 1 for a log whose game went otherwise, 2 for a bad log
        fail(str(exc), code=1 if "result:" in str(exc) or "waits for" in str(exc) else 2)


def version() -> None:
    """Print the engine version, whether the engine runs compiled, and each game's code fingerprint."""
    from palais_sim import build_info
    from palais_sim.core.games import UnknownGame, game_names
    from palais_sim.tournament.fingerprint import code_fingerprint

    info = build_info()
    engine = "compiled (mypyc)" if info["compiled"] else f"pure Python: {info['reason']}"
    typer.echo(f"{__version__} ({engine})")
    # The code a run or a study records: a run of another fingerprint was played by other rules or strategies.
    prints = []
    for name in game_names():
        try:
            prints.append(f"{name} {code_fingerprint(get_game(name))}")
        except (UnknownGame, ValueError) as exc:  # a registered game that does not load: say so, print the others
            prints.append(f"{name} (not loaded: {exc})")
    typer.echo("code fingerprints: " + ", ".join(prints))
