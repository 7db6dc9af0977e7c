"""How every `palais` command reports a user's mistake: one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer

from palais_sim.core.errors import StrategyError

# A user's mistake: every game's errors of bad input (component files, layouts, setups, strategy specs) are
# ValueErrors; a failed strategy is the core's StrategyError; a file that cannot be read is an OSError.
USER_ERRORS = (StrategyError, ValueError, OSError)


def fail(message: str, code: int = 2) -> NoReturn:
    """A clear one-line error on stderr and a non-zero exit, never a traceback."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(code)


def explain(exc: BaseException) -> str:
    """An exception as a sentence for :func:`fail`: an OSError names the path and the reason, not an errno."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror.lower()}"
    return str(exc)


def check_seed(seed: int, option: str = "--seed") -> None:
    if seed < 0:
        fail(f"{option} must be a whole number >= 0, got {seed}")


def check_at_least(value: int | None, option: str, minimum: int = 1) -> None:
    if value is not None and value < minimum:
        fail(f"{option} must be at least {minimum}, got {value}")


def _file_on_the_way(path: Path, option: str) -> None:
    """Fail if the nearest existing parent of ``path`` is a file (so the path can never be created)."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                fail(f"{option} {path}: {parent} is a file, not a directory")
            return


def writable_file(path: Path, option: str) -> None:
    """Fail now, before any work, if ``path`` cannot be written (a directory, a missing or read-only parent)."""
    if path.is_dir():
        fail(f"{option} {path}: is a directory; give a file name")
    _file_on_the_way(path, option)
    probe = path.with_name(f".{path.name}.probe")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        fail(f"{option} {path} cannot be written: {explain(exc)}")


def fresh_directory(path: Path, option: str, pattern: str) -> None:
    """Fail now if ``path`` is a file, cannot be created, or already holds files matching ``pattern``."""
    if path.exists() and not path.is_dir():
        fail(f"{option} {path}: is a file, not a directory")
    _file_on_the_way(path, option)
    if path.is_dir() and any(path.glob(pattern)):
        fail(f"{option} {path} already holds {pattern} files (from another game?); choose an empty directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{option} {path} cannot be created: {explain(exc)}")


def exit_for_failures(folder: Path, what: str, allow: bool) -> None:
    """After a command that played games into ``folder``: the count of failed games as its last line and exit
    status 3 (``exits.FAILED_GAMES``) when some failed, unless ``allow``."""
    from palais_sim.tournament import exits

    exit_for_failed(exits.failed_games(folder), what, allow)


def exit_for_failed(failed: int, what: str, allow: bool) -> None:
    """:func:`exit_for_failures` with the count of failed games known."""
    from palais_sim.tournament import exits

    if failed:
        typer.echo(exits.failure_line(failed, what), err=True)
        if not allow:
            raise typer.Exit(exits.FAILED_GAMES)
