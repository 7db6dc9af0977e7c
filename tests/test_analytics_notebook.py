"""The walkthrough notebook runs end to end on a small run, so it never rots: from the top directory with
PALAIS_RUN set, and opened from notebooks/ with nothing set (it finds runs/demo above it). Its last figure renders."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from palais_sim.games.palais_royal.analysis.synthetic import SynthSpec, synthetic_run

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "walkthrough.ipynb"


@pytest.fixture(autouse=True)
def kernel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel imports this checkout's palais_sim (its working directory is elsewhere) and draws headless."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    monkeypatch.setenv("MPLBACKEND", "Agg")


def execute(cwd: Path) -> nbformat.NotebookNode:
    """Run the notebook in a kernel whose working directory is ``cwd``."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def outputs_text(nb: nbformat.NotebookNode) -> str:
    return "".join(
        out.get("text", "") for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    )


def assert_last_figure_renders(nb: nbformat.NotebookNode) -> None:
    last = [cell for cell in nb.cells if cell.cell_type == "code"][-1]
    images = [out for out in last.get("outputs", []) if "image/png" in out.get("data", {})]
    assert len(images) == 1, last.get("outputs")
    assert len(images[0]["data"]["image/png"]) > 5000  # a picture, not an empty canvas


def test_walkthrough_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = synthetic_run(tmp_path / "run", SynthSpec(groups=300, players=(3,), seed=4, noble_bonus={"N41": 15}))
    monkeypatch.setenv("PALAIS_RUN", str(run_dir))
    monkeypatch.setenv("PALAIS_NOBLE", "N41")
    nb = execute(tmp_path)
    outputs = outputs_text(nb)
    assert "points associated: 16" in outputs or "points associated: 15" in outputs  # 1 printed + 15 planted
    assert "not a value" in outputs and "verdict" not in outputs  # a description: no price verdict from a run
    assert_last_figure_renders(nb)
    assert os.environ["PALAIS_RUN"] == str(run_dir)


def test_walkthrough_notebook_opened_from_notebooks_finds_runs_demo(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    (repo / "notebooks").mkdir(parents=True)
    shutil.copy(NOTEBOOK, repo / "notebooks" / NOTEBOOK.name)
    synthetic_run(repo / "runs" / "demo", SynthSpec(groups=200, players=(2,), seed=5))
    monkeypatch.delenv("PALAIS_RUN", raising=False)
    monkeypatch.delenv("PALAIS_NOBLE", raising=False)
    nb = execute(repo / "notebooks")  # the working directory Jupyter gives a notebook opened from notebooks/
    text = outputs_text(nb)
    assert f"run: {(repo / 'runs' / 'demo').resolve()}" in text and "points associated:" in text
    assert_last_figure_renders(nb)
