"""The exit status of every command that plays games (palais_sim.tournament.exits): a script or CI can trust it.

0 all games played; 3 some failed (the count in the last line; --allow-failures: 0); 1 stopped on an error
(--fail-fast); 2 bad input. Interrupts (130, 128+N) are proved with real signals in test_tournament_runner.py.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.tournament import exits
from strategies.palais_royal.greedy import GreedyStrategy


class Boom(GreedyStrategy):
    """Raises at its first decision in every game."""

    name = "boom"

    def choose(self, view, decision):
        raise RuntimeError("boom")


class SometimesBoom(GreedyStrategy):
    """Raises in the games whose layout has the Gate, the Mint or the Office top left (about a third)."""

    name = "sometimes-boom"

    def choose(self, view, decision):
        if view.layout.room_at[0] % 3 == 0:
            raise RuntimeError("boom")
        return super().choose(view, decision)


BOOM = f"{__name__}:Boom"
SOMETIMES = f"{__name__}:SometimesBoom"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def simulate(tmp_path, strategies: str, *extra: str):
    out = tmp_path / "run"
    args = ("simulate", "--out", str(out), "--games", "12", "--workers", "1", "--strategies", strategies)
    return invoke(*args, *extra), out


def last_line(result) -> str:
    return result.output.strip().splitlines()[-1]


def test_a_run_without_failures_exits_0(tmp_path):
    result, _ = simulate(tmp_path, "greedy,random")
    assert result.exit_code == exits.OK, result.output
    assert "no game failed" in result.output


def test_a_run_in_which_every_game_failed_exits_3_with_the_count_last(tmp_path):
    result, out = simulate(tmp_path, f"{BOOM},{BOOM}")
    assert result.exit_code == exits.FAILED_GAMES, result.output
    assert last_line(result) == "12 games of the run failed (exit status 3)"
    assert json.loads((out / "manifest.json").read_text())["totals"]["errors"] == 12  # kept, with seed and error


def test_a_run_with_some_failed_games_exits_3_and_allow_failures_gives_0(tmp_path):
    result, out = simulate(tmp_path, f"{SOMETIMES},greedy")
    failed = json.loads((out / "manifest.json").read_text())["totals"]["errors"]
    assert 0 < failed < 12
    assert result.exit_code == exits.FAILED_GAMES
    assert last_line(result) == f"{failed} game{'s' if failed > 1 else ''} of the run failed (exit status 3)"
    allowed, _ = simulate(tmp_path / "again", f"{SOMETIMES},greedy", "--allow-failures")
    assert allowed.exit_code == exits.OK, allowed.output
    assert "failed (exit status 3)" in allowed.output  # still said, only the status is 0


def test_fail_fast_exits_1_and_bad_input_exits_2(tmp_path):
    result, _ = simulate(tmp_path, f"{BOOM},greedy", "--fail-fast")
    assert result.exit_code == exits.STOPPED, result.output
    bad, _ = simulate(tmp_path / "bad", "no-such-strategy,greedy")
    assert bad.exit_code == exits.USAGE and "error:" in bad.output


def test_the_ladder_and_a_study_count_failed_games_too(tmp_path):
    ladder = invoke("ladder", "--strategies", f"greedy,{SOMETIMES}", "--games", "24", "--seed", "1")
    assert ladder.exit_code == exits.FAILED_GAMES, ladder.output
    assert "of the ladder failed (exit status 3)" in last_line(ladder)
    study = invoke(
        "study", "seats", "--out", str(tmp_path / "study"), "--players", "2", "--groups", "12",
        "--strategy", SOMETIMES,
    )  # fmt: skip
    assert study.exit_code == exits.FAILED_GAMES, study.output
    assert "of the study's arms failed" in last_line(study)


@pytest.mark.parametrize("command", ["simulate", "ladder", "match", "study seats", "study nobles"])
def test_the_help_documents_the_exit_status(command):
    result = invoke(*command.split(), "--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "Exit status: 0 all games played; 3 some games failed" in text and "--allow-failures" in text
