"""The game interface: both games behind it, the runner, records, reports and commands used without knowing which
game they run (Palastgeflüster here; Palais Royal everywhere else in the tests); the registry of games (built-in,
entry points, ``PALAIS_GAMES``)."""

from __future__ import annotations

import json
import re
from importlib.metadata import EntryPoint
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.analytics import report
from palais_sim.analytics.runs import RunError, open_run
from palais_sim.cli import app
from palais_sim.core import games as registry
from palais_sim.core.game import missing_common_columns
from palais_sim.core.games import ENTRY_POINT_GROUP, ENV_VAR, GAMES, UnknownGame, game_names, get_game
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import ScheduleError, Settings

PG = "palastgefluester"
BUILT_IN = next(iter(GAMES))  # any built-in game
runner = CliRunner()


def pg_settings(**changes) -> Settings:
    values = dict(games=48, players=4, strategies=("heuristic", "random"), format="gauntlet", max_rounds=200)
    values.update(changes)
    return Settings(**values, game=get_game(PG))


def tables(run_dir: Path) -> dict[str, pl.DataFrame]:
    keys = {"games": ["game"], "seats": ["game", "seat"], "round_ends": ["game", "round"], "recruits": ["game"]}
    return {
        t.name: pl.read_parquet(sorted(t.glob("*.parquet"))).sort(keys[t.name]) for t in run_dir.iterdir() if t.is_dir()
    }


@pytest.mark.parametrize("name", game_names())
def test_every_game_writes_the_common_columns_games_and_seats_first(name: str) -> None:
    game = get_game(name)
    columns = game.columns()
    assert list(columns)[:2] == ["games", "seats"]
    assert missing_common_columns(columns) == []
    assert game.min_players <= game.default_players <= game.max_players


def test_a_palastgefluester_run_gives_the_same_tables_for_any_workers_and_chunks(tmp_path: Path) -> None:
    run(pg_settings(), tmp_path / "w1", workers=1, chunk_size=48)
    summary = run(pg_settings(), tmp_path / "w2", workers=2, chunk_size=7)
    assert summary.games == 48 and summary.errors == 0
    one, two = tables(tmp_path / "w1"), tables(tmp_path / "w2")
    assert set(one) == {"games", "seats", "round_ends"}
    for name, frame in one.items():
        assert frame.equals(two[name]), name
    games, seats, ends = one["games"], one["seats"], one["round_ends"]
    assert seats.height == 4 * games.height
    # the games table's round-end counters are the round_ends rows, and every round but a stopped game's last ended
    per_game = ends.group_by("game").agg(pl.len().alias("n")).sort("game")
    counted = games.select("game", (pl.col("ends_repeat") + pl.col("ends_six") + pl.col("ends_jester")).alias("n"))
    assert per_game.join(counted, on="game")["n"].to_list() == per_game.join(counted, on="game")["n_right"].to_list()
    assert (games["rounds"] == counted["n"]).all()
    manifest = json.loads((tmp_path / "w1" / "manifest.json").read_text())
    assert manifest["game"] == PG and manifest["settings"]["game"] == PG


def test_the_report_of_a_palastgefluester_run_has_its_game_tables_and_refuses_nobles(tmp_path: Path) -> None:
    run(pg_settings(games=40), tmp_path / "r", workers=1)
    opened = open_run(tmp_path / "r")
    assert opened.game.name == PG and opened.tie_column == "display"
    path = report.write(opened, "all", tmp_path / "rep", "json")
    data = json.loads(path.read_text())
    assert {"seats", "balance", "round_ends", "game_length"} <= set(data)
    kinds = {r["kind"] for r in data["round_ends"]}
    assert kinds <= {"repeat", "six", "jester"} and "repeat" in kinds
    assert sum(r["share"] for r in data["round_ends"]) == pytest.approx(1.0)
    for r in data["tiebreaks"]:
        assert r["rules_differ"] <= r["ties"] <= r["games"] and r["shared_display"] <= r["ties"]
    with pytest.raises(RunError, match="no nobles report"):
        report.write(opened, "nobles", tmp_path / "rep2", "md")


def test_player_counts_and_options_are_the_games_own(tmp_path: Path) -> None:
    with pytest.raises(ScheduleError, match="3 to 5 for Palastgeflüster"):
        run(pg_settings(players=2), tmp_path / "a", workers=1)
    with pytest.raises(ValueError, match="--layout: not a rule option of palastgefluester"):
        run(pg_settings(rules={"layout": "first-game"}), tmp_path / "b", workers=1)
    result = runner.invoke(app, ["simulate", "--game", "chess", "--out", str(tmp_path / "c")])
    assert result.exit_code == 2 and "unknown game 'chess'" in result.output


def test_play_and_replay_a_palastgefluester_game_from_the_command_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--game", PG, "--players", "4", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["finished"] and data["winners"] and len(data["seats"]) == 4
    assert max(s["total"] for s in data["seats"]) >= 5  # 5 points win at 4 players
    log = tmp_path / "game.json"
    assert runner.invoke(app, ["play", "--game", PG, "--seed", "3", "--log", str(log)]).exit_code == 0
    checked = runner.invoke(app, ["replay", "--game", PG, str(log)])
    assert checked.exit_code == 0 and "result identical" in checked.output
    bad = runner.invoke(app, ["play", "--game", PG, "--layout", "first-game"])
    assert bad.exit_code == 2 and "--layout" in bad.output


def test_games_and_strategies_are_listed_per_game() -> None:
    listed = json.loads(runner.invoke(app, ["games", "--json"]).output)
    assert [g["name"] for g in listed] == game_names()
    mine = json.loads(runner.invoke(app, ["strategies", "--game", PG, "--json"]).output)
    assert {s["name"] for s in mine} == {"random", "heuristic", "restricted", "search", "expert"}


@pytest.mark.parametrize("tiebreak", ["display", "noted"])
def test_the_recorded_winners_follow_the_runs_tie_break(tmp_path: Path, tiebreak: str) -> None:
    """The engine's winners are the top scores, then the larger display (or noted total, the variant): the columns
    the analytics decide ties with."""
    run(pg_settings(games=60, players=5, rules={"tiebreak": tiebreak}), tmp_path / "r", workers=1)
    t = tables(tmp_path / "r")
    seats = t["seats"].join(t["games"].select("game", "winners", "finished"), on="game").filter(pl.col("finished"))
    top = seats.filter(pl.col("total") == pl.col("total").max().over("game"))
    best = top.filter(pl.col(tiebreak) == pl.col(tiebreak).max().over("game"))
    expected = best.group_by("game").agg(pl.col("seat").sort().cast(pl.Int8)).sort("game")
    recorded = t["games"].filter(pl.col("finished")).select("game", pl.col("winners").list.sort()).sort("game")
    assert expected["seat"].to_list() == recorded["winners"].to_list()
    assert top.group_by("game").len()["len"].max() > 1  # some game was a tie for the win


# ------------------------------------------------------------------------------------------------ the registry
TOY = "tests.toygame.game:GAME"


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch):
    """Installed packages' entry points, as a test sets them (the registry reads them once per process)."""
    installed: list[EntryPoint] = []

    def entry_points(group: str) -> list[EntryPoint]:
        return [ep for ep in installed if ep.group == group]

    monkeypatch.setattr(registry, "entry_points", entry_points)
    monkeypatch.delenv(ENV_VAR, raising=False)
    registry._plugins.cache_clear()
    yield installed
    registry._plugins.cache_clear()


def test_games_come_from_the_built_ins_the_entry_points_and_the_environment(plugins, monkeypatch) -> None:
    assert game_names() == list(GAMES)
    plugins.append(EntryPoint("toy", TOY, ENTRY_POINT_GROUP))
    plugins.append(EntryPoint("other", "somewhere:GAME", "another.group"))  # not ours: ignored
    registry._plugins.cache_clear()
    assert game_names() == [*GAMES, "toy"]
    assert get_game("toy").title == "Toy race" and get_game("TOY").name == "toy"
    # the environment variable adds games, several separated by commas (spaces and empty items are fine)
    monkeypatch.setenv(ENV_VAR, " toy2 = tests.toygame.game:GAME2 ,, ")
    assert game_names() == [*GAMES, "toy", "toy2"]
    plugins.clear()
    registry._plugins.cache_clear()
    monkeypatch.setenv(ENV_VAR, f"toy={TOY}")
    assert game_names() == [*GAMES, "toy"] and get_game("toy") is get_game("toy")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("toy", "'toy' is not name=module:attribute"),
        ("Toy=tests.toygame.game:GAME", "a lower-case name"),
        ("toy=tests.toygame.game", "not name=module:attribute"),
        ("toy=tests.toygame.game:GAME:extra", "not name=module:attribute"),
        (f"{BUILT_IN}=tests.toygame.game:GAME", f"{BUILT_IN!r} is a built-in game"),
    ],
)
def test_a_malformed_environment_entry_is_one_line_naming_the_variable(plugins, monkeypatch, value, says) -> None:
    monkeypatch.setenv(ENV_VAR, f"{value},other={TOY}")
    for ask in (game_names, lambda: get_game("other")):
        with pytest.raises(UnknownGame, match=says) as info:
            ask()
        assert str(info.value).startswith(f"{ENV_VAR}: ") and "\n" not in str(info.value)
    assert all(get_game(name).name == name for name in GAMES)  # the built-in games never read it
    assert get_game("Palastgeflüster").name == "palastgefluester"


def test_a_malformed_entry_point_is_one_line_naming_the_group(plugins) -> None:
    plugins.append(EntryPoint("toy", "tests.toygame.game:GAME [extra]", ENTRY_POINT_GROUP))
    with pytest.raises(UnknownGame, match=f"entry point group {ENTRY_POINT_GROUP}: toy=") as info:
        game_names()
    assert "\n" not in str(info.value)


def test_a_game_that_does_not_load_is_one_line_saying_why(plugins, monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "broken_game.py").write_text('raise RuntimeError("no luck\\nat all")\n')
    (tmp_path / "named_game.py").write_text("class G:\n    name = 'someone-else'\n\n\nGAME = G()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(
        ENV_VAR,
        "missing=no_such_module_here:GAME,broken=broken_game:GAME,noattr=tests.toygame.game:NOPE,named=named_game:GAME",
    )
    expected = {
        "missing": "cannot import no_such_module_here (ModuleNotFoundError: No module named 'no_such_module_here')",
        "broken": "cannot import broken_game (RuntimeError: no luck at all)",
        "noattr": "module tests.toygame.game has no NOPE",
        "named": "named_game:GAME is called 'someone-else', not 'named'",
    }
    assert game_names() == [*GAMES, *expected]  # listing names imports nothing
    for name, says in expected.items():
        with pytest.raises(UnknownGame) as info:
            get_game(name)
        assert str(info.value) == f"{ENV_VAR}: game {name!r}: {says}"
    with pytest.raises(UnknownGame, match=re.escape(f"unknown game 'chess'; games: {', '.join([*GAMES, 'missing'])}")):
        get_game("chess")


def test_the_games_command_lists_registered_games_and_refuses_a_broken_one(plugins, monkeypatch) -> None:
    monkeypatch.setenv(ENV_VAR, f"toy={TOY}")
    listed = json.loads(runner.invoke(app, ["games", "--json"]).output)
    assert [g["name"] for g in listed] == [*GAMES, "toy"]
    assert listed[-1]["strategies"] == ["random", "search", "greedy"] and listed[-1]["players"] == [2, 4]
    monkeypatch.setenv(ENV_VAR, f"toy={TOY},bad=tests.toygame.game:NOPE")
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {ENV_VAR}: game 'bad': module tests.toygame.game has no NOPE"
    monkeypatch.setenv(ENV_VAR, f"toy={TOY}")
    version = runner.invoke(app, ["version"])  # every registered game's code fingerprint
    assert version.exit_code == 0 and "toy " in version.output.splitlines()[-1]


def test_version_names_a_registered_game_that_does_not_load(monkeypatch) -> None:
    from typer.testing import CliRunner

    from palais_sim.cli import app

    monkeypatch.setenv("PALAIS_GAMES", "broken=no_such_module:GAME")
    res = CliRunner().invoke(app, ["version"])
    assert res.exit_code == 0 and "Traceback" not in res.output
    assert all(name in res.output for name in GAMES) and "broken (not loaded" in res.output
