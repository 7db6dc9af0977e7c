"""Rule options are each game's own: declared on its GAME, carried in ``Settings.rules``, offered by every playing
command from the declarations, refused generically for a game that has not got them, and read from the flat fields
of a manifest written before (so such a run still resumes, playing the same games).

Every run here is tiny: a few games, one worker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.cli.options import declared_rule_options, rules_for
from palais_sim.core.game import Game
from palais_sim.core.games import ENV_VAR, GAMES, get_game
from palais_sim.core.rule_options import RuleOption, parse_rules, rules_of
from palais_sim.tournament.schedule import Settings
from tests.run_dirs import chunk_states, unmark_chunk

runner = CliRunner()
PG = "palastgefluester"
TOY = "toy=tests.toygame.game:GAME"


def palais(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def games_table(run_dir: Path) -> pl.DataFrame:
    return pl.read_parquet(sorted((run_dir / "games").glob("*.parquet"))).sort("game")


def settings_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text())["settings"]


# ------------------------------------------------------------------------------------------ the declarations
def built_in_games() -> list[Game]:
    return [get_game(name) for name in GAMES]


def test_every_declared_option_is_offered_with_the_games_that_have_it() -> None:
    declared = declared_rule_options()
    owners: dict[str, tuple[str, ...]] = {}
    for game in built_in_games():
        for option in game.rule_options:
            owners[option.name] = (*owners.get(option.name, ()), game.name)
    assert owners and {name: games for name, (_, games) in declared.items()} == owners
    for game in built_in_games():
        assert [o.name for o in game.rule_options] == [n for n, (_, games) in declared.items() if game.name in games]


def test_parse_rules_fills_defaults_converts_and_names_what_it_refuses() -> None:
    options = (
        RuleOption("rounds", 3, "how many", int, metavar="N"),
        RuleOption("mode", "a", "which", choices=("a", "b")),
    )
    assert parse_rules(options, {}, "g") == {"rounds": 3, "mode": "a"}
    assert parse_rules(options, {"rounds": "7", "mode": "b"}, "g") == {"rounds": 7, "mode": "b"}
    with pytest.raises(ValueError, match=r"^--mode of g must be a or b, got 'c'$"):
        parse_rules(options, {"mode": "c"}, "g")
    with pytest.raises(ValueError, match=r"^--rounds of g: invalid literal"):
        parse_rules(options, {"rounds": "many"}, "g")
    with pytest.raises(ValueError, match=r"^--colour: not a rule option of g \(its rule options: --rounds, --mode\)$"):
        parse_rules(options, {"colour": "red"}, "g")


def peer_options() -> list[tuple[Game, Game, RuleOption]]:
    """Every (game, peer, option of the peer's that the game has not got) among the built-in games."""
    games = built_in_games()
    return [
        (game, peer, option)
        for game in games
        for peer in games
        if peer is not game
        for option in peer.rule_options
        if option.name not in {own.name for own in game.rule_options}
    ]


def test_a_peer_s_option_is_refused_by_the_shared_code() -> None:
    assert peer_options(), "no built-in game has an option another lacks"
    for game, peer, option in peer_options():
        flag = option.name.replace("_", "-")
        with pytest.raises(ValueError, match=f"^--{flag} is a rule option of {peer.name}; {game.name} has none"):
            rules_for(game, {option.name: str(option.default)})
    game = built_in_games()[0]
    with pytest.raises(ValueError, match=f"^--speed is not a rule option of any game; {game.name} has none"):
        rules_for(game, {"speed": "1"})
    assert rules_for(get_game(PG), {"tiebreak": "noted"}) == {"tiebreak": "noted"}


def test_no_game_names_a_peer_s_option() -> None:
    """The refusals live in shared code: a game's own package never spells another game's option."""
    for game, _, option in peer_options():
        package = Path(sys.modules[type(game).__module__].__file__).parent
        for path in package.glob("*.py"):
            text = path.read_text(encoding="utf-8")
            name = option.name
            assert name not in text and name.replace("_", "-") not in text, f"{path.name} names {name}"


# ---------------------------------------------------------------------------------- every command, every option
def test_simulate_plays_palastgefluester_with_the_variant_tie_break(tmp_path: Path) -> None:
    code, out = palais("simulate", "--game", PG, "--tiebreak", "noted", "-n", "8", "-w", "1", "-o", tmp_path / "r")
    assert code == 0, out
    assert "tiebreak noted" in out
    assert settings_of(tmp_path / "r")["rules"] == {"tiebreak": "noted"}
    assert set(games_table(tmp_path / "r")["tiebreak"]) == {"noted"}


def test_variant_is_the_rulebooks_name_for_the_noted_tie_break(tmp_path: Path) -> None:
    code, out = palais("simulate", "--game", PG, "--tiebreak", "variant", "-n", "4", "-w", "1", "-o", tmp_path / "r")
    assert code == 0, out
    assert settings_of(tmp_path / "r")["rules"] == {"tiebreak": "noted"}
    assert set(games_table(tmp_path / "r")["tiebreak"]) == {"noted"}


def test_simulate_takes_every_palais_royal_option(tmp_path: Path) -> None:
    args = ("--layout", "first-game", "--gold-limit", "57", "--start-gold", "1,1", "--strategies", "greedy,random")
    code, out = palais("simulate", *args, "-n", "4", "-w", "1", "-o", tmp_path / "r")
    assert code == 0, out
    assert settings_of(tmp_path / "r")["rules"] == {"layout": "first-game", "gold_limit": 57, "start_gold": [1, 1]}
    games = games_table(tmp_path / "r")
    first_game = get_game("palais-royal").load_components(None).first_game_layout
    assert set(games["layout"]) == {first_game} and set(games["gold_limit"]) == {57}
    seats = pl.read_parquet(sorted((tmp_path / "r" / "seats").glob("*.parquet")))
    assert set(seats["start_gold"]) == {1}


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("match", ("heuristic", "random", "--no-sprt", "--max-games", "4", "--batch", "1", "--json")),
        ("ladder", ("--games", "3", "--players", "3", "--strategies", "heuristic,random,heuristic:six=3", "--json")),
        ("bench", ("--games", "4", "--workers", "1", "--json")),
        ("play", ("--json",)),
    ],
)
def test_every_playing_command_takes_the_tie_break(command: str, args: tuple[str, ...], tmp_path: Path) -> None:
    out_dir = ("--out", tmp_path / "o") if command in ("match", "ladder") else ()
    code, out = palais(command, *args, "--game", PG, "--tiebreak", "noted", *out_dir)
    assert code == 0, out
    if command in ("match", "ladder"):
        run_dir = tmp_path / "o" if command == "ladder" else next((tmp_path / "o").glob("**/manifest.json")).parent
        assert settings_of(run_dir)["rules"] == {"tiebreak": "noted"}
        assert set(games_table(run_dir)["tiebreak"]) == {"noted"}
    code, out = palais(command, *args, "--game", PG, "--tiebreak", "x", *out_dir)
    assert (
        code == 2 and out.strip() == "error: --tiebreak of palastgefluester must be display, noted or variant, got 'x'"
    )


@pytest.mark.parametrize("command", ["simulate", "match", "ladder", "bench", "play", "tune"])
def test_every_playing_command_refuses_a_peer_s_option_in_one_line(command: str, tmp_path: Path) -> None:
    head = {"match": ("greedy", "random"), "tune": ("greedy",)}.get(command, ())
    out_dir = ("--out", tmp_path / "o") if command in ("simulate", "tune") else ()
    code, out = palais(command, *head, "--tiebreak", "noted", *out_dir)
    assert (
        code == 2
        and out.strip() == "error: --tiebreak is a rule option of palastgefluester; palais-royal has none by that name"
    )
    code, out = palais(command, *head, "--game", PG, "--gold-limit", "57", *out_dir)
    assert (
        code == 2
        and out.strip()
        == "error: --gold-limit is a rule option of palais-royal; palastgefluester has none by that name"
    )
    assert not (tmp_path / "o").exists()


def test_tune_plays_under_the_rule_options_and_keeps_them(tmp_path: Path) -> None:
    args = ("tune", "heuristic", "--game", PG, "--players", "3", "--params", "swap", "--budget", "30",
            "--trial-games", "6", "--validate", "3", "--no-progress", "--tiebreak", "noted")  # fmt: skip
    code, out = palais(*args, "--out", tmp_path / "t", "--json")
    assert code == 0, out
    assert json.loads((tmp_path / "t" / "tune.json").read_text())["rules"] == {"tiebreak": "noted"}
    # the same tuning without the option is another one: refused in that directory
    code, out = palais(*args[:-2], "--out", tmp_path / "t")
    assert code == 2 and "holds a different tuning" in out


def test_help_groups_the_rule_options() -> None:
    code, out = palais("simulate", "--help")
    assert code == 0 and "Rule options" in out
    panel = out[out.index("Rule options") :]
    for flag in ("--layout", "--gold-limit", "--start-gold", "--tiebreak"):
        assert flag in panel


# ---------------------------------------------------------------------------------- the toy game's own option
def test_the_toy_game_s_option_needs_nothing_but_its_package(tmp_path: Path, monkeypatch) -> None:
    """``--target`` is declared in tests/toygame/options.py only; every command offers it once the toy is
    registered, and a run plays and records it."""
    monkeypatch.setenv(ENV_VAR, TOY)
    code, out = palais("simulate", "--game", "toy", "--target", "8", "-n", "12", "-w", "1", "-o", tmp_path / "r")
    assert code == 0, out
    assert settings_of(tmp_path / "r")["rules"] == {"target": 8}
    games = games_table(tmp_path / "r")
    assert set(games["target"]) == {8} and games["finished"].all()
    seats = pl.read_parquet(sorted((tmp_path / "r" / "seats").glob("*.parquet")))
    best = seats.group_by("game").agg(pl.col("total").max())
    assert (best["total"] >= 8).all() and (best["total"] < 8 + 6).all()  # a race to 8, not to 15
    code, out = palais("play", "--game", "toy", "--target", "6", "--players", "2", "--json")
    assert code == 0 and max(s["total"] for s in json.loads(out)["seats"]) >= 6
    code, out = palais("play", "--game", "toy", "--target", "2")
    assert code == 2 and out.strip() == "error: --target of toy: a whole number of at least 5 is needed, got 2"
    code, out = palais("simulate", "--help")
    assert "--target" in out[out.index("Rule options") :]


# ------------------------------------------------------------------------ manifests of before the declarations
def _as_before(settings: dict) -> dict:
    """A manifest's settings as they were written before the games declared their rule options: every rule field
    of then flat beside the players, layout and gold_limit always, start_gold and tiebreak when set."""
    rules = settings.pop("rules")
    flat = {**settings, "layout": rules.get("layout", "random"), "gold_limit": rules.get("gold_limit")}
    if "start_gold" in rules:
        flat["start_gold"] = rules["start_gold"]
    if "tiebreak" in rules:
        flat["tiebreak"] = rules["tiebreak"]
    return flat


def _stop_early(run_dir: Path, chunks: list[int]) -> None:
    """Turn a finished run into one that stopped before ``chunks``, with its manifest in the earlier format."""
    manifest_path = run_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["settings"] = _as_before(manifest["settings"])
    manifest["state"] = "interrupted"
    manifest_path.write_text(json.dumps(manifest, indent=1))
    for chunk in chunks:
        unmark_chunk(run_dir, chunk)
        for table in (p for p in run_dir.iterdir() if p.is_dir()):
            (table / f"chunk-{chunk:06d}.parquet").unlink()


@pytest.mark.parametrize(
    "args",
    [
        ("--layout", "first-game", "--gold-limit", "60", "--strategies", "greedy,random"),
        ("--game", PG, "--tiebreak", "noted"),
        ("--strategies", "greedy,random"),
    ],
)
def test_a_run_with_an_earlier_manifest_resumes_and_plays_the_same_games(tmp_path: Path, args) -> None:
    common = ("-n", "12", "--chunk-size", "4", "-w", "1")
    assert palais("simulate", *args, *common, "-o", tmp_path / "whole")[0] == 0
    assert palais("simulate", *args, *common, "-o", tmp_path / "old")[0] == 0
    _stop_early(tmp_path / "old", [1, 2])
    old = settings_of(tmp_path / "old")
    assert "rules" not in old and "layout" in old  # the earlier format
    assert Settings.from_dict(old) == Settings.from_dict(settings_of(tmp_path / "whole"))
    code, out = palais("simulate", "-o", tmp_path / "old", "--resume")
    assert code == 0, out
    assert [c["state"] for c in chunk_states(tmp_path / "old")] == ["done"] * 3
    for table in ("games", "seats"):
        read = {d: pl.read_parquet(sorted((tmp_path / d / table).glob("*.parquet"))) for d in ("whole", "old")}
        keys = ["game"] if table == "games" else ["game", "seat"]
        assert read["old"].sort(keys).equals(read["whole"].sort(keys)), table
    # resuming with another rule option is refused as a different run
    _stop_early(tmp_path / "whole", [2])
    flag = ("--tiebreak", "display") if PG in args else ("--layout", "KGD/PMS/COB")
    code, out = palais("simulate", "-o", tmp_path / "whole", "--resume", *flag)
    assert code == 2 and "holds a different run" in out


def test_rules_of_reads_both_formats() -> None:
    pr, pg = get_game("palais-royal").rule_options, get_game("palastgefluester").rule_options
    assert rules_of({"rules": {"tiebreak": "noted"}, "layout": "first-game"}, pr) == {"tiebreak": "noted"}
    assert rules_of({"layout": "random", "gold_limit": None, "tiebreak": "noted"}, pg) == {"tiebreak": "noted"}
    assert rules_of({"layout": "first-game", "gold_limit": 57, "tiebreak": "noted"}, pr) == {
        "layout": "first-game", "gold_limit": 57,
    }  # fmt: skip
    assert rules_of({"players": 2}, pr) == {}
    # the analytics read a run's tie-break through the game, from either format
    assert get_game(PG).tie_column({"tiebreak": "noted"}) == "noted"
    assert get_game(PG).tie_column({"rules": {"tiebreak": "noted"}}) == "noted"
    assert get_game(PG).tie_column({"rules": {}}) == "display"


def test_an_earlier_tuning_directory_still_matches(tmp_path: Path) -> None:
    from palais_sim.tuning.search import TuneSettings, _normalised

    now = TuneSettings(strategy="greedy", against=("seals",), players=2, budget=100, space=(), seed=1, trial_games=4,
                       validate_games=4, components=None, max_rounds=100, rules={"gold_limit": "57"})  # fmt: skip
    before = {k: v for k, v in now.to_dict().items() if k != "rules"} | {"layout": "random", "gold_limit": 57}
    assert _normalised(before, now.game.rule_options) == now.to_dict()
    assert _normalised({**before, "gold_limit": None}, now.game.rule_options) != now.to_dict()


# ------------------------------------------------------------------- the block on a study command
def test_a_study_command_takes_the_block(tmp_path: Path, monkeypatch) -> None:
    """The seats study takes the block (``with_rule_options``) beside its own --start-gold (the start golds of its
    arms): a registered game's option reaches the study's runs, and the help lists each flag once."""
    import typer

    from palais_sim.cli import study

    monkeypatch.setenv(ENV_VAR, TOY)
    studies = typer.Typer()
    studies.command("seats")(study.seats)
    studies.command("other")(lambda: None)  # two commands: the first is not the app itself
    args = ["seats", "--game", "toy", "--groups", "2", "--players", "2", "--strategy", "greedy", "--target", "7"]
    result = runner.invoke(studies, [*args, "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    manifests = list((tmp_path / "s").glob("runs/**/manifest.json"))
    assert manifests and all(json.loads(m.read_text())["settings"]["rules"] == {"target": 7} for m in manifests)
    refused = runner.invoke(studies, [*args[:-2], "--start-gold", "0,1", "--out", str(tmp_path / "t")])
    assert refused.exit_code == 2  # the seats study's own --start-gold: kept, and refused for the toy as before
    help_text = runner.invoke(studies, ["seats", "--help"]).output
    assert help_text.count("--layout") == 1 and "--target" in help_text[help_text.index("Rule options") :]
