"""The walkthrough notebook runs end to end on a small run, so it never rots."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from palais_sim.analytics.synthetic import SynthSpec, synthetic_run

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "walkthrough.ipynb"


def test_walkthrough_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = synthetic_run(tmp_path / "run", SynthSpec(groups=300, players=(3,), seed=4, noble_bonus={"N41": 15}))
    monkeypatch.setenv("PALAIS_RUN", str(run_dir))
    monkeypatch.setenv("PALAIS_NOBLE", "N41")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = "".join(
        out.get("text", "") for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    )
    assert "points associated: 16" in outputs or "points associated: 15" in outputs  # 1 printed + 15 planted
    assert "not a value" in outputs and "verdict" not in outputs  # a description: no price verdict from a run
    assert os.environ["PALAIS_RUN"] == str(run_dir)
