"""Root seeds reserved for fitting value functions (core.seeds) are refused by every command whose games' results
are published, before any game is played: one `error:` line, exit 2. An ordinary root seed on either side of the
range is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.seeds import FIT_ROOT_SEEDS
from tests.cli_errors import one_error_line

runner = CliRunner()

# Each command at a tiny size, so that one which failed to refuse the seed would finish (and fail the test) quickly.
COMMANDS = {
    "simulate": ["simulate", "--games", "2", "--strategies", "greedy,random", "--workers", "1", "--out", "{out}"],
    "match": ["match", "greedy", "random", "--max-games", "4", "--workers", "1"],
    "ladder": ["ladder", "--games", "2", "--strategies", "greedy,random"],
    "study seats": ["study", "seats", "--strategy", "greedy", "--groups", "1", "--out", "{out}"],
    "study nobles": ["study", "nobles", "--strategy", "greedy", "--groups", "1", "--out", "{out}"],
    "study layouts": ["study", "layouts", "--strategy", "greedy", "--groups", "1", "--out", "{out}"],
    "study persons": ["study", "persons", "--strategy", "random", "--groups", "1", "--out", "{out}"],
    "balance nobles": ["balance", "nobles", "--strategy", "greedy", "--groups", "1", "--rounds", "1", "--out", "{out}"],
    "tune": ["tune", "greedy", "--budget", "8", "--out", "{out}"],
}


def command(name: str, out: Path, seed: int) -> list[str]:
    return [arg.replace("{out}", str(out)) for arg in COMMANDS[name]] + ["--seed", str(seed)]


@pytest.mark.parametrize("seed", [FIT_ROOT_SEEDS.start, FIT_ROOT_SEEDS.stop - 1])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_reserved_root_seed_is_refused_before_any_game(name: str, seed: int, tmp_path: Path) -> None:
    out = tmp_path / "out"
    line = one_error_line(runner.invoke(app, command(name, out, seed)))
    assert f"--seed {seed} lies in the range reserved for fitting" in line
    assert not out.exists()  # refused before the command wrote anything


@pytest.mark.parametrize("seed", [FIT_ROOT_SEEDS.start - 1, FIT_ROOT_SEEDS.stop])
def test_an_ordinary_root_seed_is_accepted(seed: int, tmp_path: Path) -> None:
    result = runner.invoke(app, command("simulate", tmp_path / "run", seed))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "run").is_dir()
