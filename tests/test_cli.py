"""The engine's commands: play, score, inspect, replay; bad input gives one line and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim import __version__
from palais_sim.cli import COMMANDS, app
from palais_sim.core.games import get_game
from tests.cli_errors import one_error_line

ROOT = Path(__file__).resolve().parents[1]
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
    assert f"replay log written to {log}" in played.output


def test_play_says_where_it_wrote_the_positions(tmp_path: Path) -> None:
    positions = tmp_path / "pos"
    played = run("play", "--seed", "2", "--positions", str(positions))
    assert played.exit_code == 0, played.output
    assert f"positions written to {positions}/" in played.output.splitlines()[-1]
    assert sorted(positions.glob("turn-*.json"))


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


def test_a_typo_in_a_component_file_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    standard = (ROOT / "palais_sim" / "games" / "palais_royal" / "data" / "standard.toml").read_text()
    comp = tmp_path / "typo.toml"
    comp.write_text(standard.replace("[park]", "[prak]"))
    line = one_error_line(run("play", "--components", str(comp), "--json"))
    assert str(comp) in line and "'prak'" in line


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


@pytest.mark.parametrize("command", ["replay", "inspect", "score"])
def test_a_directory_instead_of_a_file_is_one_line(tmp_path: Path, command: str) -> None:
    line = one_error_line(run(command, str(tmp_path)))
    assert str(tmp_path) in line and "is a directory" in line


def test_a_binary_file_is_one_line(tmp_path: Path) -> None:
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(bytes(range(256)))
    assert "not a text file" in one_error_line(run("replay", str(blob)))
    assert "not a text file" in one_error_line(run("inspect", str(blob)))


def test_version_option_and_command() -> None:
    for args in (["--version"], ["version"]):
        result = run(*args)
        assert result.exit_code == 0 and __version__ in result.output
    from palais_sim.tournament.fingerprint import code_fingerprint

    prints = run("version").output
    from palais_sim.core.games import GAMES

    assert all(f"{game} {code_fingerprint(get_game(game))}" in prints for game in GAMES)


def _help(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    return result.output


def test_help_shows_defaults_and_no_bool_type() -> None:
    texts = {name: _help(name) for name in COMMANDS}
    texts["palais"] = _help()
    for name, text in texts.items():
        assert "<bool>" not in text, name  # a flag takes no value
        assert "palais run " not in text and "`palais run`" not in text, name
    sim = texts["simulate"]
    for shown in ("[default: 1000]", "[default: 2]", "[default: round-robin]", "[default: cores]", "[ray]"):
        assert shown in sim, shown
    assert "pip install 'palais-sim[ray]'" in sim
    assert "--version" in texts["palais"] and "--install-completion" in texts["palais"]
    assert "WHICH" in texts["report"] and "report sections (e.g. winrates) or all" in texts["report"]


def test_shell_completion_completes_commands_and_choices() -> None:
    def complete(words: str) -> list[str]:
        env = {**os.environ, "_PALAIS_COMPLETE": "complete_bash", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - 1), "PYTHONPATH": str(ROOT)}  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "palais_sim.cli"], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("palais sim") == ["simulate"]
    assert complete("palais report w") == ["winrates"]
    assert "--resume" in complete("palais simulate --re")
    # --show-completion detects the shell from its parent process: a bash that does not exec it (make runs sh)
    shown = subprocess.run(["bash", "-c", f"'{sys.executable}' -m palais_sim.cli --show-completion && :"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert shown.returncode == 0 and "_PALAIS_COMPLETE=complete_bash" in shown.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("report", "everything", "."), "is not one of 'winrates', 'nobles', 'setup', 'all'"),
        (("play", "--players", "abc"), "--players"),
        (("simulate",), "Missing option '--out'"),
        (("score",), "Missing argument"),
        (("play", "--no-such-option"), "No such option"),
    ],
)
def test_usage_errors_are_one_line_with_where_to_find_help(args: tuple[str, ...], needle: str) -> None:
    line = one_error_line(run(*args))
    assert needle in line and "--help" in line


def test_play_refuses_a_negative_seed_before_writing_a_log(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    line = one_error_line(run("play", "--seed", "-1", "--log", str(log)))
    assert "--seed must be a whole number >= 0, got -1" in line
    assert not log.exists()


def test_play_checks_log_and_positions_before_playing(tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    result = run("play", "--log", str(a_file / "game.jsonl"))
    line = one_error_line(result)
    assert "--log" in line and f"{a_file} is a file, not a directory" in line and "[Errno" not in line
    assert "Round 1" not in result.stdout  # refused before the game was played
    assert "is a directory" in one_error_line(run("play", "--log", str(tmp_path)))
    assert "is a file" in one_error_line(run("play", "--positions", str(a_file)))
    assert "/proc" in one_error_line(run("play", "--log", "/proc/no/such/game.jsonl"))
    positions = tmp_path / "positions"
    assert run("play", "--seed", "3", "--positions", str(positions), "--json").exit_code == 0
    before = sorted(p.name for p in positions.iterdir())
    line = one_error_line(run("play", "--seed", "4", "--positions", str(positions), "--json"))
    assert "already holds turn-*.json" in line
    assert sorted(p.name for p in positions.iterdir()) == before  # the older positions are not mixed with new ones


def test_strategies_describes_each_strategy_in_a_whole_sentence() -> None:
    """The description was the docstring's first line: expert's stopped at "(optionally the prior of a small"."""
    from palais_sim.cli.strategies import strategies_listing
    from palais_sim.core.games import GAMES, get_game

    for game in GAMES:
        for item in strategies_listing(get_game(game)):
            text = item["description"]
            assert text.endswith((".", "!", "?")) and text.count("(") == text.count(")"), (game, text)


def test_no_command_shows_a_type_after_a_flag() -> None:
    """`palais study seats --help` showed `--gold-factorial <bool>` where `palais simulate --help` showed its flags
    bare: the command groups' commands lacked the top level's help class."""
    import typer.main

    from tests.cli_tree import leaf_commands

    top = typer.main.get_command(app)
    typed = []
    for path, _ in leaf_commands(top):
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        if "<bool>" in result.output:
            typed.append(" ".join(path))
    assert typed == []
