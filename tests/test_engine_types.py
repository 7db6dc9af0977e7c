"""The compiled engine type-checks: mypyc compiles the engine only when mypy accepts every compiled module and what
they import, and on a type error `make` falls back to the pure Python engine (the suite then fails on
PALAIS_REQUIRE_COMPILED far from the cause). This runs the same check as the build (``setup.py``: the compiled list,
``--ignore-missing-imports``) in a few seconds, so a change seen only in a pure install still names its type error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from palais_sim import _build

ROOT = Path(__file__).resolve().parents[1]


def test_the_compiled_modules_type_check_as_the_build_checks_them() -> None:
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental", *_build.COMPILED_SOURCES],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
