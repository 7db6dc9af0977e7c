"""`palais --help` and `palais games` answer at once: the command line imports Typer, the games and the engine, and
the heavy libraries (polars, numpy, scipy, matplotlib: seconds on a loaded machine) only in the commands that use
them. A structural check in a fresh interpreter, not a timed test (benchmarks/cli_start.py gives the times)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("polars", "numpy", "scipy", "matplotlib", "pyarrow", "optuna")

_IMPORT_ONLY = "import palais_sim.cli.commands"
# The command run in-process, as the console script runs it, then what it imported.
_RUN = """
import sys
from palais_sim.cli import main
sys.argv = ["palais", *{arguments!r}]
try:
    main()
except SystemExit as stop:
    assert not stop.code, stop.code
"""
_REPORT = """
import json, sys
print(json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)), file=sys.stderr)
"""


def heavy_modules_after(code: str) -> list[str]:
    """The heavy libraries a fresh interpreter has imported after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", code + _REPORT.format(heavy=HEAVY)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_importing_the_command_line_imports_no_heavy_library() -> None:
    assert heavy_modules_after(_IMPORT_ONLY) == []


@pytest.mark.parametrize("arguments", [("--help",), ("games",), ("study", "--help")], ids=" ".join)
def test_a_command_that_plays_nothing_imports_no_heavy_library(arguments: tuple[str, ...]) -> None:
    assert heavy_modules_after(_RUN.format(arguments=list(arguments))) == []
