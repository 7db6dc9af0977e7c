"""`palais components show`: each game's standard set as an editable, commented TOML that loads back to the standard
set and plays the same games; `-s` is `--seed` everywhere; a file error names the file (issue 35)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import polars as pl
import pytest
import typer.main
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.games import GAMES, get_game
from tests.cli_tree import leaf_commands

runner = CliRunner()


def toml_tables(data: dict, prefix: str = "") -> list[str]:
    """The table headers of a TOML document: ``[name]`` for a table (and its sub-tables), ``[[name]]`` for an array of
    tables."""
    out = []
    for key, value in data.items():
        if isinstance(value, dict):
            out += [f"[{prefix}{key}]", *toml_tables(value, f"{prefix}{key}.")]
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            out.append(f"[[{prefix}{key}]]")
    return out


def _show(game: str, out: Path, *extra: str):
    return runner.invoke(app, ["components", "show", "--game", game, "--out", str(out), *extra])


@pytest.mark.parametrize("game", list(GAMES))
def test_show_writes_a_commented_set_that_loads_back_to_the_standard_one(tmp_path: Path, game: str) -> None:
    out = tmp_path / "my-set.toml"
    result = _show(game, out)
    assert result.exit_code == 0, result.output
    assert str(out) in result.output and f"--components {out}" in result.output
    text = out.read_text(encoding="utf-8")
    guide = [line for line in text.splitlines() if line.startswith("#")]
    tables = toml_tables(tomllib.loads(text))  # valid TOML
    assert "[meta]" in tables
    for table in tables:  # every table has its comment saying what its fields mean (a sub-table: in it, or its own)
        key = table.strip("[]").rpartition(".")[2]
        assert any(line.startswith(f"# {table}") for line in guide) or ("." in table and key in "".join(guide)), table
    assert all(len(line) <= 120 for line in text.splitlines())
    the_game = get_game(game)
    assert the_game.load_components(str(out)).hash == the_game.load_components(None).hash
    printed = runner.invoke(app, ["components", "show", "--game", game])
    assert printed.exit_code == 0 and printed.output == text


def test_show_refuses_to_replace_a_file_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "set.toml"
    out.write_text("mine")
    refused = _show("palais-royal", out)
    assert refused.exit_code == 2 and "--force" in refused.output and out.read_text() == "mine"
    assert _show("palais-royal", out, "--force").exit_code == 0 and out.read_text() != "mine"


def test_an_edited_set_loads_with_its_change(tmp_path: Path) -> None:
    out = tmp_path / "set.toml"
    _show("palais-royal", out)
    edited = out.read_text().replace('id = "N17"\ngold = ', 'id = "N17"\ngold = 1', 1)
    assert edited != out.read_text()
    out.write_text(edited)
    game = get_game("palais-royal")
    mine, standard = game.load_components(str(out)), game.load_components(None)
    assert mine.hash != standard.hash
    gold = {n.id: n.gold for n in standard.nobles}
    assert next(n.gold for n in mine.nobles if n.id == "N17") == int(f"1{gold['N17']}")
    # its runs do not pass for the standard set's: "component set | standard (32296401a0aa)" was an edited one
    context = game.context({"components": str(out)})
    assert game.components_name(context) == "standard, edited in set.toml"
    assert game.components_name(game.context({})) == "standard"


def _tables(run_dir: Path, table: str) -> pl.DataFrame:
    df = pl.read_parquet(run_dir / table / "*.parquet")
    return df.sort(sorted(c for c in ("game", "seat") if c in df.columns))


@pytest.mark.parametrize("game", list(GAMES))
def test_the_shown_set_plays_the_same_games_as_the_standard_one(tmp_path: Path, game: str) -> None:
    args = ["--players", str(get_game(game).default_players)]
    shown = tmp_path / "set.toml"
    assert _show(game, shown).exit_code == 0
    base = ["simulate", "--game", game, "--games", "6", "--workers", "1", "--seed", "3", *args]
    for name, extra in (("standard", []), ("shown", ["--components", str(shown)])):
        result = runner.invoke(app, [*base, "--out", str(tmp_path / name), *extra])
        assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "shown" / "manifest.json").read_text())
    assert manifest["settings"]["components"] == str(shown.resolve())  # the file was played, not the standard set
    for table in ("games", "seats"):
        standard, mine = _tables(tmp_path / "standard", table), _tables(tmp_path / "shown", table)
        assert len(standard) > 0 and standard.equals(mine), table


@pytest.mark.parametrize("game", list(GAMES))
def test_a_binary_component_file_is_one_line_naming_the_file(tmp_path: Path, game: str) -> None:
    garbage = tmp_path / "garbage.toml"
    garbage.write_bytes(b"\xff\xfe\x00\x81 not text" * 10)
    result = runner.invoke(
        app, ["simulate", "--game", game, "--out", str(tmp_path / "run"), "--games", "2", "--components", str(garbage)]
    )
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {garbage}: not a UTF-8 TOML file (a component set is text)"


def test_a_binary_manifest_names_the_file(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_bytes(b"\xff\xfe\x00\x81")
    for args in (["report", "all", str(run_dir)], ["simulate", "--out", str(run_dir), "--resume"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"error: {run_dir / 'manifest.json'}"), result.output


def test_dash_s_is_the_seed_everywhere() -> None:
    found = 0
    for path, command in leaf_commands(typer.main.get_command(app)):
        for param in command.params:
            if "-s" in param.opts:
                found += 1
                assert "--seed" in param.opts, f"palais {' '.join(path)}: -s is {param.opts}"
    assert found >= 5
    result = runner.invoke(app, ["balance", "nobles", "--out", "x", "-s", "7", "--budget", "0"])
    assert result.exit_code == 2 and "unknown strategy" not in result.output and "--budget" in result.output


@pytest.mark.parametrize("game", list(GAMES))
def test_the_guide_points_at_the_manual_and_every_label_stands_apart_from_its_text(game: str) -> None:
    """It referred to "RULES.md section 9" (not in the repository; the manual's rules page has no numbered
    sections), and a label longer than the label column ran into its text ("[cards.prices]the gold")."""
    result = runner.invoke(app, ["components", "show", "--game", game])
    assert result.exit_code == 0, result.output
    assert "RULES.md" not in result.output and "section 9" not in result.output
    glued = [line for line in result.output.splitlines() if line.startswith("# [") and "]" in line
             and line.split("]", 1)[1][:1] not in (" ", "]", "")]  # fmt: skip
    assert glued == []
