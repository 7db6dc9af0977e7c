"""The engine's commands: play, score, inspect, replay; bad input gives one line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_play_json_has_the_documented_keys() -> None:
    result = run("play", "--players", "3", "--seed", "4", "--strategies", "greedy", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) >= {"seats", "winners", "rounds", "finished"}
    assert len(data["seats"]) == 3
    for seat in data["seats"]:
        assert set(seat) >= {"seat", "strategy", "nobles", "cards_played", "cards_unplayed", "park", "total",
                             "cardinal"}  # fmt: skip
        assert seat["total"] == seat["nobles"] + seat["cards_played"] + seat["cards_unplayed"] + seat["park"]
    assert all(1 <= w <= 3 for w in data["winners"])


def test_play_account_log_and_replay(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    played = run("play", "--seed", "9", "--strategies", "greedy,random", "--layout", "first-game", "--log", str(log))
    assert played.exit_code == 0, played.output
    assert "Round 1" in played.output and "Winner" in played.output
    replayed = run("replay", str(log))
    assert replayed.exit_code == 0, replayed.output
    assert "replay verified" in replayed.output


def test_score_and_inspect_a_position(tmp_path: Path) -> None:
    positions = tmp_path / "pos"
    played = run("play", "--seed", "2", "--positions", str(positions), "--json")
    assert played.exit_code == 0
    position = sorted(positions.glob("turn-*.json"))[10]
    scored = run("score", str(position), "--json")
    assert scored.exit_code == 0, scored.output
    data = json.loads(scored.output)
    assert {"seats", "winners"} <= set(data)
    inspected = run("inspect", str(position), "--json")
    assert inspected.exit_code == 0, inspected.output
    info = json.loads(inspected.output)
    assert set(info["majority"]) == {"gate", "parade_ground", "stairway", "mint", "king", "madame", "office",
                                     "back_entrance", "cardinal"}  # fmt: skip
    pos = json.loads(position.read_text())
    nobles_on_board = [f for f, entry in enumerate(pos["park"]) if isinstance(entry, str)]
    assert sorted(int(f) for f in info["recruit_cost"]) == nobles_on_board
    assert info["movement"] >= pos["rooms"]["stairway"][pos["current_seat"] - 1]


@pytest.mark.parametrize(
    ("content", "command", "needle"),
    [
        ('{"format": "palais-position/1", "players": 2}', "score", "'layout' is missing"),
        ('{"format": "palais-position/1", "components": "no-such.toml"}', "score", "no-such.toml"),
        ("{not json", "inspect", "not valid JSON"),
        ('{"format": "palais-replay/1"}\n[1,2]\n', "replay", "line 2"),
    ],
)
def test_bad_files_give_one_line_and_exit_2(tmp_path: Path, content: str, command: str, needle: str) -> None:
    path = tmp_path / "input.json"
    path.write_text(content)
    result = run(command, str(path))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0] and needle in lines[0]


def test_bad_component_file_names_file_entry_and_problem(tmp_path: Path) -> None:
    comp = tmp_path / "variant.toml"
    comp.write_text('[meta]\nname = "v"\n[[nobles]]\nid = "A"\ngold = -1\nviolet = 0\nturquoise = 0\npoints = 1\n')
    result = run("play", "--components", str(comp), "--json")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert str(comp) in result.output and "noble A" in result.output and "gold" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ("play", "--strategies", "nonsense"),
        ("play", "--layout", "PMS/KGD"),
        ("play", "--players", "5"),
        ("play", "--strategies", "greedy:gold_weight=abc"),
        ("score", "/no/such/file.json"),
    ],
)
def test_bad_options_give_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
