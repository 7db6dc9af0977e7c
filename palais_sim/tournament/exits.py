"""The exit status of every command that plays games, so that a script or CI can trust it (``palais simulate``,
``ladder``, ``match``, ``study ...``; documented in their help and in the docs)."""

from __future__ import annotations

from pathlib import Path

from palais_sim.tournament.manifest import MANIFEST, Manifest

OK = 0  # every game was played and none failed
STOPPED = 1  # the run stopped before its end on an error (--fail-fast, a lost worker): the message says how to resume
USAGE = 2  # bad input: a one-line error, nothing was played
FAILED_GAMES = 3  # every game was played, but some failed (each kept with its seed and error): --allow-failures: 0
INTERRUPTED = 130  # Ctrl-C (128 + N for signal N, e.g. 143 for SIGTERM): the message says how to resume

_STATUSES = (
    "Exit status: 0 all games played; 3 some games failed (kept with their seed and error; --allow-failures: 0); "
    "1 stopped on an error; 2 bad input; 130 (128+N) interrupted by a signal: "
)
# How each playing command resumes (its help's last line; the stop message prints the exact command line):
HELP = _STATUSES + "resume with the same --out and --resume."  # simulate
HELP_AGAIN = _STATUSES + "run the same command again to resume (finished arms are kept)."  # study, balance
HELP_OUT = _STATUSES + "with --out, run the same command again to resume."  # match, ladder


def failed_games(folder: Path) -> int:
    """The failed games of the run in ``folder``, or of every run below it (a study's arms)."""
    paths = [folder / MANIFEST] if (folder / MANIFEST).exists() else sorted(folder.rglob(MANIFEST))
    total = 0
    for path in paths:
        manifest = Manifest.load(path.parent)
        total += manifest.totals()["errors"] if manifest is not None else 0
    return total


def failure_line(failed: int, what: str) -> str:
    """The last line of a command whose games failed."""
    return f"{failed} game{'s' if failed != 1 else ''} of {what} failed (exit status {FAILED_GAMES})"
