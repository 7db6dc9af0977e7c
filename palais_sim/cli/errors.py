"""How every `palais` command reports a user's mistake: one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer

from palais_sim.core.errors import StrategyError

# A user's mistake: every game's errors of bad input (component files, rule options, setups, strategy specs) are
# ValueErrors; a failed strategy is the core's StrategyError; a file that cannot be read is an OSError.
USER_ERRORS = (StrategyError, ValueError, OSError)


# The command line as typed, after `palais` (the app's main sets it), for the resume advice of a stopped command.
COMMAND_LINE: list[str] = []
# How each playing command resumes (tournament.exits has the help footers that say the same)
_RESUME_FLAG = ("simulate",)  # the same command with --resume
_RESUME_WITH_OUT = ("ladder", "match")  # the same command, when it kept its run with --out
_RESUME_AGAIN = ("study", "balance", "tune")  # the same command: finished arms (tune: trials) are kept
_KEPT_IN_ARMS = ("study", "balance")  # each arm a run directory under --out, its manifest written as it starts


def _has(args: list[str], *options: str) -> bool:
    return any(a in options or a.split("=", 1)[0] in options for a in args)


def _value(args: list[str], *options: str) -> str | None:
    """The value of the last of ``options`` on the command line (``--out DIR``, ``--out=DIR``, ``-o DIR``)."""
    found = None
    for i, a in enumerate(args):
        if a in options and i + 1 < len(args):
            found = args[i + 1]
        elif a.split("=", 1)[0] in options and "=" in a:
            found = a.split("=", 1)[1]
    return found


def resume_advice(args: list[str] | None = None) -> str:
    """How to resume the command on ``args`` (default: the one running), in the one form every playing command
    uses: ``resume with: palais ...`` (the exact command line), or why nothing can be resumed; "" for a command
    that plays nothing."""
    import shlex

    args = list(COMMAND_LINE if args is None else args)
    command = next((a for a in args if not a.startswith("-")), "")
    if command in _RESUME_WITH_OUT and not _has(args, "--out", "-o"):
        return "nothing was kept (give --out DIR to keep a run that the same command resumes)"
    if command in _RESUME_FLAG and not _has(args, "--resume"):
        out = _value(args, "--out", "-o")
        if out is None or not (Path(out) / "manifest.json").exists():  # stopped before the run was set up
            return f"nothing was played; start again with: {shlex.join(['palais', *args])}"
        args.append("--resume")
    if command in _KEPT_IN_ARMS:
        out = _value(args, "--out", "-o")
        if out is None or not any(Path(out).glob("**/manifest.json")):  # no arm had finished a chunk
            return f"nothing was kept yet; start again with: {shlex.join(['palais', *args])}"
    if command in _RESUME_FLAG + _RESUME_WITH_OUT + _RESUME_AGAIN:
        return f"resume with: {shlex.join(['palais', *args])}"
    return ""


def stopped(exc: object) -> NoReturn:
    """A run that stopped early (interrupted, --fail-fast, a lost worker): what is safe where, how to resume, and
    the run's exit status (128+N for signal N)."""
    advice = resume_advice()
    message = getattr(exc, "stopped", str(exc))
    fail(f"{message}; {advice}" if advice else str(exc), getattr(exc, "code", 1))


def interrupted(code: int = 130) -> NoReturn:
    """Ctrl-C outside a run (between a study's arms, while analysing): one line, status 130."""
    advice = resume_advice()
    fail(f"interrupted{'; ' + advice if advice else ''}", code)


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
