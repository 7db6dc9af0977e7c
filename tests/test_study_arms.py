"""A study's arms: played where --backend says (every study, balance search and match), and kept across a change of
the code fingerprint only when a replay of their first and last groups gives the same outcomes."""

from __future__ import annotations

import json
import logging
import shutil
import sys
from pathlib import Path

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

import palais_sim.study.arms as arms
from palais_sim.cli import app
from palais_sim.cli.options import AddressOpt, BackendOpt
from palais_sim.core.games import get_game
from palais_sim.study.arms import VERIFIED, play_arm
from palais_sim.study.verify import first_difference, sample
from palais_sim.tournament import replay
from palais_sim.tournament.fingerprint import code_fingerprint
from palais_sim.tournament.manifest import Manifest
from palais_sim.tournament.schedule import Settings
from tests.cli_tree import leaf_commands

OTHER_CODE = "0" * 12  # a fingerprint no code has: the arm was "played by other code"


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


# ------------------------------------------------------------------------------ arms that survive a refactor


def arm_settings(**kw) -> Settings:
    """Five rotation groups of three players in three chunks (the last group's games in the last chunk)."""
    base = {"games": 15, "players": 3, "strategies": ("greedy", "random", "seals"), "format": "fixed", "seed": 5,
            "max_rounds": 8}  # fmt: skip
    return Settings(**{**base, **kw})


def played_by_other_code(out: Path, **data: object) -> None:
    """Plant what a change of the code leaves: the arm's manifest names another fingerprint (and ``data``)."""
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update({"code_fingerprint": OTHER_CODE, **data})
    path.write_text(json.dumps(manifest))


def edit_outcome(out: Path, game: int, table: str = "seats", column: str = "total") -> None:
    """Change one recorded outcome: ``column`` of ``game``'s first row in ``table``, in place in its chunk file."""
    for path in sorted((out / table).glob("chunk-*.parquet")):
        frame = pl.read_parquet(path)
        if game in frame["game"].to_list():
            first = frame.with_row_index("i").filter(pl.col("game") == game)["i"][0]
            changed = frame.with_columns(
                pl.when(pl.int_range(pl.len()) == first).then(pl.col(column) + 1).otherwise(pl.col(column))
                .alias(column)
            )  # fmt: skip
            changed.write_parquet(path)
            return
    raise AssertionError(f"game {game} is in no chunk")


@pytest.fixture
def arm(tmp_path: Path) -> tuple[Settings, Path]:
    settings, out = arm_settings(), tmp_path / "arm"
    assert play_arm(settings, out, 1) == 15
    assert Manifest.load(out).data["chunk_size"] == 10  # two chunks: the sample spans both
    return settings, out


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Games replayed by the check, and games played by a run (which a verified arm must not start)."""
    counts = {"replayed": 0, "runs": 0}
    real_play_one, real_run = replay.play_one, arms.run

    def play_one(spec, clock=None):
        counts["replayed"] += 1
        return real_play_one(spec, clock)

    def run(*args, **kwargs):
        counts["runs"] += 1
        return real_run(*args, **kwargs)

    monkeypatch.setattr(replay, "play_one", play_one)
    monkeypatch.setattr(arms, "run", run)
    return counts


def test_the_sample_is_the_first_and_last_rotation_group() -> None:
    assert sample(arm_settings()) == ((0, 1, 2, 12, 13, 14), (0, 4))
    assert sample(arm_settings(games=3)) == ((0, 1, 2), (0,))  # one group: itself
    assert sample(arm_settings(first_group=40)) == ((0, 1, 2, 12, 13, 14), (40, 44))  # a later batch's own groups
    assert sample(arm_settings(rotate_seats=False, games=7)) == ((0, 6), (0, 6))


def test_a_fingerprint_change_with_the_same_games_is_verified(arm, counted) -> None:
    settings, out = arm
    played_by_other_code(out)
    assert play_arm(settings, out, 1) == 0
    assert counted == {"replayed": 6, "runs": 0}  # the sample only, no game beyond it
    data = Manifest.load(out).data
    assert data["code_fingerprint"] == OTHER_CODE  # the arm's own record of what played it stays
    check = data[VERIFIED]
    assert check["code_fingerprint"] == code_fingerprint(settings.game)
    assert check["played_by"]["code_fingerprint"] == OTHER_CODE
    assert check["games_replayed"] == [0, 1, 2, 12, 13, 14] and check["groups_replayed"] == [0, 4]
    # verified once for today's code: the next study run neither replays nor plays anything
    assert play_arm(settings, out, 1) == 0
    assert counted == {"replayed": 6, "runs": 0}


def test_a_changed_outcome_in_the_sample_replays_the_whole_arm(arm, counted, caplog) -> None:
    settings, out = arm
    before = replay.stored_games(out, settings, range(15), 10)
    played_by_other_code(out)
    edit_outcome(out, game=13)  # a seat's score in the last group
    with caplog.at_level(logging.INFO, logger="palais_sim.study.arms"):
        assert play_arm(settings, out, 1) == 15
    assert counted["runs"] == 1
    why = [r.getMessage() for r in caplog.records if r.getMessage().startswith("replaying")]
    assert len(why) == 1 and "seats.total of game 13" in why[0] and OTHER_CODE in why[0]
    data = Manifest.load(out).data
    assert data["code_fingerprint"] == code_fingerprint(settings.game) and VERIFIED not in data
    assert first_difference(before, replay.stored_games(out, settings, range(15), 10)) is None  # today's games


def test_a_change_outside_the_sample_is_not_seen(arm, counted) -> None:
    """What the check promises and no more: the middle groups are not replayed."""
    settings, out = arm
    played_by_other_code(out)
    edit_outcome(out, game=7)
    assert play_arm(settings, out, 1) == 0 and counted == {"replayed": 6, "runs": 0}


def test_another_engine_version_is_checked_too_and_the_engine_column_is_not_an_outcome(arm, counted) -> None:
    settings, out = arm
    played_by_other_code(out, engine_version="0.0.1")
    for path in (out / "games").glob("chunk-*.parquet"):
        pl.read_parquet(path).with_columns(engine=pl.lit("0.0.1")).write_parquet(path)
    assert play_arm(settings, out, 1) == 0 and counted["replayed"] == 6
    assert Manifest.load(out).data[VERIFIED]["played_by"] == {"code_fingerprint": OTHER_CODE,
                                                              "engine_version": "0.0.1"}  # fmt: skip


def test_an_unfinished_arm_of_other_code_is_played_again_from_the_start(arm, counted) -> None:
    settings, out = arm
    played_by_other_code(out, state="interrupted")
    assert play_arm(settings, out, 1) == 15 and counted == {"replayed": 0, "runs": 1}


def test_the_component_check_comes_first(tmp_path: Path, counted) -> None:
    """An arm whose component file changed is played again, whatever code played it (no replay can save it)."""
    from palais_sim.games.palais_royal.components import load_components
    from palais_sim.games.palais_royal.studies.variants import write_variant

    path = write_variant(load_components(None), tmp_path / "set.toml")
    settings, out = arm_settings(components=str(path)), tmp_path / "arm"
    play_arm(settings, out, 1)
    played_by_other_code(out, components_hash="another set")
    assert play_arm(settings, out, 1) == 15 and counted == {"replayed": 0, "runs": 2}


def test_an_arm_whose_component_file_lay_elsewhere_is_the_same_arm(tmp_path: Path, counted) -> None:
    """An arm restored from published evidence into another checkout names the component file where it was played;
    the study names today's file of the same content: the arm is kept (verified where other code played it), not
    refused as a different run; a file of other content is still played again."""
    from palais_sim.games.palais_royal.components import load_components
    from palais_sim.games.palais_royal.studies.variants import write_variant

    there = write_variant(load_components(None), tmp_path / "there" / "set.toml")
    out = tmp_path / "arm"
    play_arm(arm_settings(components=str(there)), out, 1)
    here = tmp_path / "here" / "set.toml"
    here.parent.mkdir()
    shutil.copy(there, here)
    shutil.rmtree(there.parent)  # the checkout it was played in is gone
    played_by_other_code(out)
    settings = arm_settings(components=str(here))
    assert play_arm(settings, out, 1) == 0 and counted == {"replayed": 6, "runs": 1}
    assert Manifest.load(out).settings == settings and VERIFIED in Manifest.load(out).data
    here.write_text(here.read_text(encoding="utf-8").replace("gold = 0", "gold = 1", 1), encoding="utf-8")
    assert play_arm(settings, out, 1) == 15 and counted["runs"] == 2


def test_first_difference_names_table_column_and_game() -> None:
    a = {"seats": pl.DataFrame({"game": [0, 0, 1], "total": [3, 4, 5]}), "games": pl.DataFrame({"game": [0, 1]})}
    assert first_difference(a, a) is None
    b = {**a, "seats": a["seats"].with_columns(total=pl.Series([3, 4, 6]))}
    assert first_difference(a, b) == "seats.total of game 1: 5 recorded, 6 today"
    c = {**a, "seats": a["seats"].with_columns(bonus=pl.lit(0))}
    assert first_difference(a, c) == "table seats records other columns today (+bonus)"
    assert (
        first_difference(a, {**a, "seats": a["seats"].head(2)})
        == "table seats has 2 rows for the sample today, 3 recorded"
    )
    assert first_difference(a, {"seats": a["seats"]}) == "table games is gone today"
    engine = {**a, "games": a["games"].with_columns(engine=pl.Series(["1", "2"]))}
    assert first_difference(engine, {**a, "games": a["games"].with_columns(engine=pl.lit("3"))}) is None


def test_a_study_rerun_after_a_refactor_says_verified_on_its_page_json_and_index(tmp_path: Path) -> None:
    out = tmp_path / "studies" / "s"
    args = ["study", "seats", "--out", str(out), "--players", "2", "--groups", "4", "--strategy", "random",
            "--strategy", "greedy"]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    arms_of = {s: next((out / "runs" / s).rglob("manifest.json")).parent for s in ("random", "greedy")}
    for d in arms_of.values():
        played_by_other_code(d)
    edit_outcome(arms_of["greedy"], game=0)  # greedy's arm differs in its first group: played again
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    games = json.loads((out / "study.json").read_text())["games"]
    today = code_fingerprint(get_game())
    assert games["random"]["played_now"] == 0 and games["greedy"]["played_now"] == 4
    random_arm = {"arm": "random/2p/gold-0-1", "played_by": OTHER_CODE, "verified_with": today, "games_replayed": 2,
                  "groups_replayed": [0, 3]}  # fmt: skip
    assert games["random"]["verified"] == [random_arm]
    assert games["greedy"]["verified"] == [] and games["greedy"]["played_by"] == [today]
    assert {g["code_fingerprint"] for g in games.values()} == {today}
    page = (out / "study.md").read_text()
    assert (
        "**Verified** arms, played by earlier code: 1 of `random` (played by `000000000000`; 2 games replayed)" in page
    )
    assert "`greedy` (played" not in page
    from palais_sim.study.publish import publish

    index = publish(out.parent, tmp_path / "published").read_text()
    assert f"Played (or verified by replay) by the code with fingerprint `{today}`" in index
    assert "1 of `random` (played by `000000000000`" in index


def test_an_arm_read_twice_is_listed_verified_once(arm) -> None:
    """A balance search reads an arm again in a later round: the ledger lists its check once."""
    from palais_sim.study.common import Ledger, StudySpec

    settings, out = arm
    played_by_other_code(out)
    ledger = Ledger()
    for _ in range(2):
        ledger.play(StudySpec(strategies=("x",)), "x", settings, out)
    level = ledger.to_dict()["x"]
    assert [v["arm"] for v in level["verified"]] == ["arm"] and level["played_by"] == [OTHER_CODE]
    assert level["code_fingerprint"] == code_fingerprint(settings.game) and level["played_now"] == 0
