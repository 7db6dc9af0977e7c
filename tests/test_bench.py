"""`palais bench --per-strategy`: every strategy of a mix gets its own decisions per CPU-second, for either game."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.games import GAMES, get_game
from palais_sim.tournament.bench import rate


@pytest.mark.parametrize("game", list(GAMES))
def test_per_strategy_times_each_strategy_of_a_mix(game: str) -> None:
    """The common search against the game's usual player, at its fewest players."""
    players, strategies = get_game(game).min_players, f"search:budget=2,{get_game(game).default_strategy}"
    args = ["bench", "--game", game, "--players", str(players), "--strategies", strategies, "--games", "2"]
    args += ["--workers", "1"]
    result = CliRunner().invoke(app, [*args, "--per-strategy", "--json"])
    assert result.exit_code == 0, result.output
    timed = json.loads(result.output)["strategies_timed"]
    assert set(timed) == set(strategies.split(","))
    for spec, entry in timed.items():
        assert entry["decisions"] > 0 and entry["decisions_per_cpu_s"] > 0, spec
    search, simple = (timed[s] for s in strategies.split(","))
    assert search["decisions_per_cpu_s"] < simple["decisions_per_cpu_s"]  # a search thinks longer than its base


def test_per_strategy_text_names_every_strategy() -> None:
    args = ["bench", "--players", "2", "--strategies", "greedy,random", "--games", "2", "--workers", "1"]
    result = CliRunner().invoke(app, [*args, "--per-strategy"])
    assert result.exit_code == 0, result.output
    lines = result.output.split("per strategy")[1].splitlines()
    assert any(line.strip().startswith("greedy ") for line in lines)
    assert any(line.strip().startswith("random ") for line in lines)


def test_a_benchmark_whose_games_fail_says_so_and_exits_3() -> None:
    """A failed game makes a speed meaningless (it would time failures): one line naming the first failure, and the
    failed-games exit status, never a games/s."""
    args = ["bench", "--players", "2", "--strategies", "tests.test_exit_codes:Boom,greedy", "--games", "2"]
    result = CliRunner().invoke(app, [*args, "--workers", "1", "--json"])
    assert result.exit_code == 3, result.output
    assert "games of the benchmark failed" in result.output and "boom" in result.output
    assert "games_per_cpu_s" not in result.output


def test_rates_keep_three_significant_figures() -> None:
    """A search's games/s is not rounded to one decimal (1.75 and 1.65 both printed 1.7 before)."""
    assert [rate(x) for x in (1.7534, 950.73, 0.042137, 12345.67, 0.0)] == [1.75, 950.7, 0.0421, 12345.7, 0.0]
