"""`palais study layouts`: the joint feature model and the variance share find planted effects in synthetic data;
the study runs end to end on real games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import polars as pl
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.games.palais_royal.analysis.setup_balance import layout_features
from palais_sim.games.palais_royal.board import random_layout_code
from palais_sim.games.palais_royal.studies.layouts import joint_model, variance_share


def _layouts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [random_layout_code(rng) for _ in range(n)]


def test_joint_model_finds_a_planted_feature_and_not_its_correlated_neighbour() -> None:
    codes = _layouts(6000)
    feats = layout_features(pl.DataFrame({"layout": codes}).lazy()).collect()
    rng = np.random.default_rng(1)
    centre = feats["gate_in_centre"].to_numpy()
    # seat 1 wins 30 pp more often with the Gate in the centre; nothing else matters
    win = (rng.random(len(codes)) < 0.5 + 0.3 * centre - 0.3 * centre.mean()).astype(float)
    rows, aliased, n = joint_model(pl.DataFrame({"layout": codes, "win": win}), players=2)
    by = {r["feature"]: r for r in rows}
    assert n == 6000 and len(aliased) >= 1  # nine in-centre indicators sum to one: one is left out
    if "gate_in_centre" in by:
        assert by["gate_in_centre"]["low"] > 0.15
    else:  # the Gate's indicator was the aliased one: every other room in the centre is then worse
        assert all(by[f"{r}_in_centre"]["high"] < -0.1 for r in ("king", "madame", "mint"))
    # a distance from the Gate is correlated with the Gate's place, but it gets no credit in the joint model
    assert by["gate_to_king"]["low"] < 0 < by["gate_to_king"]["high"] or abs(by["gate_to_king"]["mean"]) < 0.05


def test_variance_share_finds_a_layout_effect_and_no_effect() -> None:
    rng = np.random.default_rng(2)
    setups = rng.normal(0, 0.2, 200)
    none = (rng.random((10, 200)) < 0.5 + setups).astype(float)
    planted = (rng.random((10, 200)) < 0.5 + np.linspace(-0.3, 0.3, 10)[:, None] + 0 * setups).astype(float)
    a, b = variance_share(none), variance_share(planted)
    assert a["share"] < 0.02 and a["p"] > 0.01
    assert b["share"] > 0.05 and b["ci"][0] > 0.02 and b["p"] < 1e-6


def test_cli_layouts_end_to_end(tmp_path: Path) -> None:
    args = ["study", "layouts", "--out", str(tmp_path / "l"), "--strategy", "greedy", "--strategy", "seals",
            "--groups", "80", "--layouts", "3", "--setups", "10"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "l" / "study.json").read_text())
    assert data["study"] == "layouts" and len(data["fixed_layouts"]) == 3
    assert {r["subject"] for r in data["rows"]} == {"layout_feature", "layout"}
    assert len(data["variance"]) == 2 and all(0 <= v["share"] <= 1 for v in data["variance"])
    assert data["games"]["greedy"]["games"] == 80 + 4 * 10
    assert (tmp_path / "l" / "charts" / "features_2p.png").exists()
