"""Every module of palais_sim/ and strategies/ imports alone, in an interpreter that has imported nothing of the
project before it: an import cycle that the whole test run hides (some other test imported one of its modules
first) fails here, with the module and the error.

One subprocess does them all: it imports the third-party libraries the project leans on (numpy, polars, ...) once,
then forks a child per module that imports that module and nothing else of the project first, so each module starts
from the state a user's ``python -c "import palais_sim.x"`` would start from, at a fraction of the cost.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("palais_sim", "strategies")
# What the project's modules import of other packages, the slow ones: imported once, before the forks.
LIBRARIES = (
    "numpy", "polars", "pyarrow.parquet", "typer", "tqdm", "scipy.stats", "scipy.optimize", "matplotlib.pyplot",
    "multiprocessing", "tomllib", "mypy_extensions",
)  # fmt: skip

# The child of the fork: import one module, report its error in one line. Written for the subprocess's stdin.
_CHILD = r"""
import importlib, os, sys
LIBRARIES = sys.argv[1].split(",")
for library in LIBRARIES:  # shared by every child: none of them is the project's
    try:
        importlib.import_module(library)
    except ImportError:  # an optional one: the module that needs it says so itself
        pass
assert not any(name == "palais_sim" or name.startswith(("palais_sim.", "strategies")) for name in sys.modules)
failed = []
for module in sys.stdin.read().split():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            importlib.import_module(module)
        except BaseException as exc:  # noqa: BLE001 - any failure of the import is the finding
            os.write(write, f"{type(exc).__name__}: {' '.join(str(exc).split())}".encode())
            os._exit(1)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        message = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if status:
        failed.append(f"{module}: {message or f'exit status {status}'}")
print("\n".join(failed))
"""


def project_modules() -> list[str]:
    """Every module of the packages by dotted name (a package under its own name); ``__main__`` modules, which run
    a command when imported, are left out."""
    modules = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__main__":
                continue
            if parts[-1] == "__init__":
                parts.pop()
            modules.append(".".join(parts))
    return modules


def imports_failing_alone(modules: list[str]) -> list[str]:
    """One line per module of ``modules`` that fails to import in an interpreter that imported no project module."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "POLARS_MAX_THREADS": "1", "MPLBACKEND": "Agg"}
    command = [sys.executable, "-c", _CHILD, ",".join(LIBRARIES)]
    done = subprocess.run(
        command, input="\n".join(modules), capture_output=True, text=True, env=env, cwd=REPO, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child per module")
def test_every_module_imports_alone() -> None:
    modules = project_modules()
    assert len(modules) > 100 and "palais_sim.cli" in modules and "strategies.common.search" in modules
    failing = imports_failing_alone(modules)
    assert not failing, "modules that fail to import alone:\n  " + "\n  ".join(failing)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child per module")
def test_the_check_names_a_module_that_fails_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cycle that only an import order hides: ``cyc_a`` imports ``cyc_b`` whose first line needs ``cyc_a``'s
    name, so ``import cyc_a`` alone fails while ``import cyc_b`` alone works."""
    (tmp_path / "cyc_a.py").write_text("import cyc_b\nNAME = 1\n")
    (tmp_path / "cyc_b.py").write_text("from cyc_a import NAME\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{REPO}")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    (failing,) = imports_failing_alone(["cyc_a", "cyc_b"])
    assert failing.startswith("cyc_a: ImportError") and "cyc_b" not in failing.split(":")[0]
