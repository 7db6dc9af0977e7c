"""What every study command shares, wherever it is defined (`palais study seats` here, a game's own studies in its
package, ``GAME.studies``): the options of a study's size and verdicts, the skill levels, and the run wrapper that
turns a study's errors into one line and its failed games into the exit status.

A shared module of the CLI package, like ``errors`` and ``options``: the command modules and the games' study
commands import it; it imports nothing of the CLI but those two.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, check_at_least, exit_for_failures, fail, stopped
from palais_sim.cli.options import root_seed_option
from palais_sim.core.game import Game

StrategyOpt = typer.Option(
    None,
    "--strategy",
    help="A skill level (repeat for several) \\[default: the game's study levels (palais games): greedy and expert; "
    "heuristic and expert]",
)
SeedOpt = root_seed_option(1, "Root seed: every arm plays the groups 0..G-1 of it")
MarginOpt = typer.Option(2.0, "--margin", help="Equivalence margin in percentage points of win share")
WorkersOpt = typer.Option(
    None,
    "--workers",
    "-w",
    help="Worker processes per arm (1 = in-process) \\[default: 1; with --backend ray: the cluster's CPUs]",
)
OutOpt = typer.Option(..., "--out", "-o", help="Study directory: arm runs, study.json, study.md, study.html")
LadderOpt = typer.Option(
    None,
    "--ladder",
    help="A strength ladder as the skill levels: a search spec with a budget, doubled per rung "
    "(e.g. ismcts:budget=8 gives 8, 16, 32, 64); instead of --strategy",
)
RungsOpt = typer.Option(4, "--rungs", help="Rungs of the --ladder")
EloGroupsOpt = typer.Option(
    100, "--elo-groups", help="Setups of each rung's match against the first rung (its Elo), in every seating"
)


def skill_levels(strategies: list[str] | None, ladder_spec: str | None, rungs: int, elo_groups: int):
    """The skill levels: the --strategy ones, or the rungs of a --ladder (not both)."""
    if ladder_spec is None:
        return strategies
    if strategies:
        raise ValueError("--ladder and --strategy both name the skill levels: give one of them")
    check_at_least(elo_groups, "--elo-groups")
    from palais_sim.study.ladder import rungs as ladder_rungs

    return list(ladder_rungs(ladder_spec, rungs))


def player_counts(text: str) -> tuple[int, ...]:
    """``--players 2,3`` as a tuple."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"--players must be numbers separated by commas, got {text!r}") from None


def require_study(study: str, game: Game | None) -> Game:
    """The game a study of one game's own (``GAME.studies``) plays: the one given, or else the first built-in game
    that declares it. It refuses a game that does not declare it, naming the studies that game has (every game has
    the seats study) and the games that have this one."""
    from palais_sim.core.games import games_with_study, get_game

    if game is None:
        having_it = games_with_study(study)
        if not having_it:
            raise ValueError(f"--game is needed: no built-in game has the study {study!r}")
        game = get_game(having_it[0])
    if study in game.studies:
        return game
    own = [name for name in game.studies if " " not in name]
    having = [get_game(name) for name in games_with_study(study)]
    where = " or ".join(f"{g.title} (--game {g.name})" for g in having)
    raise ValueError(
        f"{game.title} has no study {study!r}" + (f" (a study of {where})" if where else "")
        + f"; its studies: {', '.join(['seats', *own])}"
    )  # fmt: skip


def run_study_command(fn: Callable[[], dict[str, Path]], allow_failures: bool = False) -> None:
    """Run a study (``fn`` returns its pages by format): one line for an error, the exit status for failed games."""
    paths = played(fn)
    _echo_verdicts(paths)
    typer.echo(f"study written to {paths['md'].parent}: study.json, study.md, study.html (charts in charts/)")
    _warn_ladder(paths)
    exit_for_failures(paths["md"].parent, "the study's arms", allow_failures)


def played(fn: Callable[[], dict[str, Path]]) -> dict[str, Path]:
    """``fn()`` (a study or a balance search: it returns its pages by format) with its progress on stderr and one
    start of Ray or of the local pool for all its arms; an error ends the command with one line, an interrupted run
    with the line that says how to resume."""
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
    from palais_sim.analytics.runs import RunError
    from palais_sim.tournament.manifest import RunDirError
    from palais_sim.tournament.pools import kept
    from palais_sim.tournament.ray_backend import held
    from palais_sim.tournament.runner import RunStopped
    from palais_sim.tournament.schedule import ScheduleError

    try:
        with progress_lines(), held(), kept():  # one start of Ray (--backend ray) or of the local pool for all arms
            return fn()
    except RunStopped as exc:
        stopped(exc)
    except (RunDirError, RunError, ScheduleError, *USER_ERRORS) as exc:
        fail(str(exc))


@contextlib.contextmanager
def progress_lines() -> Iterator[None]:
    """The study's progress on stderr, one timed line per arm played (``study.common.progress``) and the study
    layer's notices (an arm verified by replay or played again): a long study shows where it is, also in a log."""
    import logging
    import sys

    logger = logging.getLogger("palais_sim.study")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # not again through the runner's handlers while an arm plays
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def _echo_verdicts(paths: dict[str, Path]) -> None:
    """The study's verdicts in a few lines (decided, undecided, what more groups would cost)."""
    import json

    from palais_sim.study.summary import verdict_lines

    where = paths.get("json")
    if where is not None and where.exists():
        for line in verdict_lines(json.loads(where.read_text(encoding="utf-8"))):
            typer.echo(line)


def echo_balance_verdicts(document: Path) -> None:
    """A balance search's verdicts in a few lines (``balance.json``): the proposal's on the validation's fresh seeds
    and, for the subjects it changed, the given set's on the same seeds (the before and after of one comparison)."""
    import json

    from palais_sim.study.summary import verdict_lines

    if not document.exists():
        return
    search = json.loads(document.read_text(encoding="utf-8"))
    for title, key in (("the given set", "before_fresh"), (f"the proposal ({search.get('balanced')})", "validation")):
        # no cost of more groups: the ledger's CPU time is the whole search's, not these rows' share of it
        rows = {"margin_pp": search.get("margin_pp", 0.0), "rows": search.get(key) or []}
        lines = verdict_lines(rows, grow="--validation-groups")
        if lines:
            typer.echo(f"{title}, on the validation's seeds: {lines[0]}")
            for line in lines[1:]:
                typer.echo(line)


def _warn_ladder(paths: dict[str, Path]) -> None:
    """One line on stderr when the study's strength ladder does not climb: the study is complete and written (exit
    status as ever), but nothing settled on it."""
    import json

    from palais_sim.study.ladder import warning_line

    where = paths.get("json")
    line = warning_line(json.loads(where.read_text())) if where is not None and where.exists() else None
    if line is not None:
        typer.echo(line, err=True)


def game_commands() -> dict[str, Callable[..., None]]:
    """Every registered game's own study commands by name (``GAME.studies``: ``name -> "module:attribute"``), the
    first game that declares a name serving it. A registered game that cannot be loaded declares none (the built-in
    games never read the other registries: a broken plugin cannot break `palais study`)."""
    import importlib

    from palais_sim.core.games import GAMES, UnknownGame, game_names, get_game

    commands: dict[str, Callable[..., None]] = {}
    try:
        names = game_names()
    except UnknownGame:
        names = list(GAMES)
    for name in names:
        try:
            studies = get_game(name).studies
        except UnknownGame:
            continue
        for study, target in studies.items():
            module, _, attribute = target.partition(":")
            commands.setdefault(study, getattr(importlib.import_module(module), attribute))
    return commands
