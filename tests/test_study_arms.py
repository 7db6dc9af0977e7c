"""A study's arms: played where --backend says (every study, balance search and match)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import palais_sim.study.arms as arms
from palais_sim.cli import app
from palais_sim.cli.options import AddressOpt, BackendOpt
from tests.cli_tree import leaf_commands

# ------------------------------------------------------------------------------------- --backend ray --address


def _playing_commands() -> list[tuple[tuple[str, ...], object]]:
    tree = typer.main.get_command(app)
    return [(path, cmd) for path, cmd in leaf_commands(tree) if path[0] in ("study", "balance", "match", "simulate")]


def test_every_study_balance_and_match_takes_the_shared_backend_options() -> None:
    commands = _playing_commands()
    names = {path for path, _ in commands}
    assert {("study", "seats"), ("study", "nobles"), ("study", "layouts"), ("study", "persons"),
            ("balance", "nobles"), ("match",), ("simulate",)} <= names  # fmt: skip
    for path, command in commands:
        params = {p.name: p for p in command.params}
        for name, shared in (("backend", BackendOpt), ("address", AddressOpt)):
            assert name in params, f"palais {' '.join(path)} has no --{name}"
            # the one definition (cli/options.py), not a copy: the same flag, default and help
            assert params[name].opts == list(shared.param_decls), path
            assert params[name].default == shared.default and params[name].help == shared.help, path


@pytest.fixture
def on_a_fake_cluster(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Ray "installed"; every arm's run records where it was sent, then plays locally on one worker."""
    seen: list[tuple] = []
    real_run = arms.run

    def recording_run(settings, out, workers, **kwargs):
        seen.append((kwargs.get("backend"), kwargs.get("address"), workers))
        return real_run(settings, out, 1, **{**kwargs, "backend": "local", "address": None})

    monkeypatch.setattr(arms, "run", recording_run)
    monkeypatch.setattr("palais_sim.tournament.ray_backend.require_ray", lambda: None)
    return seen


STUDY_ARGS = {
    "seats": ["study", "seats", "--players", "2", "--groups", "2", "--strategy", "random"],
    "seats-ladder": [
        "study",
        "seats",
        "--players",
        "2",
        "--groups",
        "2",
        "--ladder",
        "ismcts:budget=1",
        "--rungs",
        "2",
        "--elo-groups",
        "2",
    ],  # fmt: skip
    "nobles": ["study", "nobles", "--nobles", "N17", "--groups", "2", "--strategy", "random", "--reprice", "none"],
    "layouts": ["study", "layouts", "--groups", "2", "--layouts", "3", "--setups", "2", "--strategy", "random"],
    "persons": ["study", "persons", "--persons", "zofe", "--players", "3", "--groups", "2", "--strategy", "random"],
    "match": ["match", "greedy", "random", "--max-games", "4", "--batch", "1", "--no-sprt"],
}


@pytest.mark.parametrize("name", sorted(STUDY_ARGS))
def test_backend_and_address_reach_every_arm(name: str, on_a_fake_cluster: list, tmp_path: Path) -> None:
    args = [*STUDY_ARGS[name], "--max-rounds", "6", "--out", str(tmp_path / name), "--backend", "ray", "--address",
            "auto"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    # every arm (the ladder's rung matches and the match's batches included) on the cluster, on all its CPUs
    assert on_a_fake_cluster and set(on_a_fake_cluster) == {("ray", "auto", None)}, on_a_fake_cluster


def test_workers_stay_one_per_arm_locally_and_are_kept_on_the_cluster(on_a_fake_cluster, tmp_path: Path) -> None:
    res = CliRunner().invoke(app, [*STUDY_ARGS["seats"], "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, [*STUDY_ARGS["seats"], "--out", str(tmp_path / "b"), "--backend", "ray",
                                   "--workers", "3"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert on_a_fake_cluster == [("local", None, 1), ("ray", None, 3)]


@pytest.mark.parametrize("name", ["seats", "nobles", "persons", "match"])
def test_without_ray_a_study_says_how_to_install_it(name: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as when it is not installed
    out = tmp_path / "r"
    res = CliRunner().invoke(app, [*STUDY_ARGS[name], "--out", str(out), "--backend", "ray"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == ["error: --backend ray needs Ray: pip install 'palais-sim[ray]'"]
    assert not out.exists()


def test_balance_without_ray_and_a_stray_address_are_one_line(tmp_path: Path, monkeypatch) -> None:
    args = ["balance", "nobles", "--out", str(tmp_path / "b"), "--nobles", "N17", "--strategy", "random"]
    monkeypatch.setitem(sys.modules, "ray", None)
    res = CliRunner().invoke(app, [*args, "--backend", "ray"])
    assert res.exit_code == 2 and "pip install 'palais-sim[ray]'" in res.output
    res = CliRunner().invoke(app, [*STUDY_ARGS["seats"], "--out", str(tmp_path / "s"), "--address", "auto"])
    assert res.exit_code == 2 and res.output.strip() == "error: --address is only for --backend ray"
