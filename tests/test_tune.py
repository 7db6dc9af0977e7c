"""`palais tune`: the parameter space, spec strings, a small search end to end, and its resume."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.game import rule_options
from palais_sim.tuning.measure import share_of
from palais_sim.tuning.search import TuneSettings, run_tuning
from palais_sim.tuning.space import TuneError, search_space, spec_with


def test_the_space_of_a_heuristic_is_its_tuning_space() -> None:
    space = {d.name: d for d in search_space("greedy", None)}
    assert "majority_chase" not in space  # a switch, not a number
    assert space["stairway"].integer and (space["stairway"].low, space["stairway"].high) == (2, 7)
    assert not space["gold_weight"].integer and space["gold_weight"].high == 1.0
    # --params picks and may give ranges; the default is the value in the spec as given.
    picked = search_space("greedy:gold_weight=0.2", "gold_weight=0.1:0.5,mint")
    assert [(d.name, d.low, d.high, d.default) for d in picked] == [
        ("gold_weight", 0.1, 0.5, 0.2),
        ("mint", 0, 4, picked[1].default),
    ]
    with pytest.raises(TuneError, match="not a numeric parameter"):
        search_space("greedy", "majority_chase")
    with pytest.raises(TuneError, match="low < high"):
        search_space("greedy", "gold_weight=0.5:0.1")


def test_spec_strings_round_trip_through_the_registry() -> None:
    from palais_sim.registry import resolve

    text = spec_with("greedy:back=1", {"gold_weight": 0.4123, "stairway": 4})
    assert text == "greedy:back=1,gold_weight=0.412,stairway=4"
    _spec, _cls, params = resolve(text)
    assert dict(params) == {"back": 1, "gold_weight": 0.412, "stairway": 4}


def test_share_interval_is_clustered_on_the_group() -> None:
    rows = [(0, 1.0, True), (0, 0.0, True), (1, 1.0, True), (1, 1.0, True), (2, 0.0, False), (2, 0.5, True)]
    s = share_of(rows)
    assert s.share == pytest.approx((0.5 + 1.0 + 0.25) / 3) and s.games == 6 and s.unfinished == 1
    assert s.low < s.share < s.high


def _settings(budget: int = 160) -> TuneSettings:
    return TuneSettings(
        strategy="greedy",
        against=("seals", "park"),
        players=2,
        budget=budget,
        space=tuple(search_space("greedy", "gold_weight,stairway")),
        seed=5,
        trial_games=16,
        validate_games=12,
        components=None,
        max_rounds=100,
    )


def test_a_small_tuning_runs_and_resumes(tmp_path) -> None:
    out = tmp_path / "tune"
    result = run_tuning(_settings(), out, workers=1, progress=False)
    assert result["trials"] == 8 and result["tuned"].startswith("greedy:gold_weight=")
    assert {"study.journal", "tune.json", "confirm.json", "result.json"} <= {p.name for p in out.iterdir()}
    assert result["head_to_head"]["games"] == 12 and 0.0 <= result["head_to_head"]["share"] <= 1.0
    # Done: the same settings give the stored result; other settings are refused.
    assert run_tuning(_settings(), out, workers=1, progress=False) == result
    with pytest.raises(TuneError, match="different tuning"):
        run_tuning(_settings(budget=200), out, workers=1, progress=False)


def test_an_interrupted_search_goes_on_from_its_trials(tmp_path) -> None:
    out = tmp_path / "tune"
    full = run_tuning(_settings(), tmp_path / "full", workers=1, progress=False)
    # Play the search halfway (a budget of half the trials), then go on with the real settings in a copy of its
    # journal: the trials already played are kept, the rest are played, the result is complete.
    run_tuning(_settings(budget=80), tmp_path / "half", workers=1, progress=False)
    out.mkdir()
    (out / "study.journal").write_bytes((tmp_path / "half" / "study.journal").read_bytes())
    (out / "tune.json").write_text(json.dumps(_settings().to_dict()), encoding="utf-8")
    resumed = run_tuning(_settings(), out, workers=1, progress=False)
    assert resumed["trials"] == full["trials"]


def test_the_command_prints_the_spec_and_the_validation(tmp_path) -> None:
    result = CliRunner().invoke(
        app,
        ["tune", "greedy", "--against", "seals,park", "--params", "gold_weight", "--budget", "80", "--trial-games",
         "8", "--validate", "8", "--out", str(tmp_path / "t"), "--seed", "3", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("tuned: greedy:gold_weight=")
    assert "tuned against the untuned greedy" in result.output
    bad = CliRunner().invoke(app, ["tune", "greedy", "--params", "nope", "--out", str(tmp_path / "u")])
    assert bad.exit_code == 2 and "not a numeric parameter" in bad.output


def test_the_games_a_tuning_plays_are_the_engine_s_games() -> None:
    """Through the game interface, a Palais Royal trial's rows are exactly ``play_game``'s wins (shared wins split)."""
    from palais_sim.games.palais_royal.components import load_components
    from palais_sim.games.palais_royal.play import play_game
    from palais_sim.registry import load_strategy
    from palais_sim.tournament.schedule import Schedule
    from palais_sim.tuning.measure import play_games

    settings = _settings().gauntlet("greedy:gold_weight=0.3", 9, 12)
    rows = play_games((settings, 0, 12))
    comps = load_components(None)
    expected = []
    for spec in Schedule(settings).games(0, 12):
        result = play_game(comps, rule_options(settings.to_dict()), spec.seed, [load_strategy(s) for s in spec.matchup])
        expected.append((spec.group, result.seats[spec.rotation % 2].win, result.finished))
    assert rows == expected


def test_a_palastgefluester_strategy_tunes_through_the_same_command(tmp_path) -> None:
    space = {d.name: d for d in search_space("heuristic", None, get_game("palastgefluester"))}
    assert (space["repeat"].low, space["repeat"].high) == (-20.0, 0)  # a penalty's range stays negative
    assert "game" not in _settings().to_dict()  # a Palais Royal tuning directory of before still resumes
    out = tmp_path / "pg"
    args = ["tune", "heuristic", "--game", "palastgefluester", "--players", "3", "--params", "swap,wizard",
            "--budget", "120", "--trial-games", "12", "--validate", "12", "--seed", "4", "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["tuned"].startswith("heuristic:swap=") and data["against"] == ["heuristic"]
    assert data["players"] == 3 and data["head_to_head"]["games"] == 12
    assert json.loads((out / "tune.json").read_text())["game"] == "palastgefluester"
    # The same command again gives the stored result.
    again = CliRunner().invoke(app, [*args, "--out", str(out), "--json"])
    assert json.loads(again.output) == data
    for bad, needle in (
        (["--players", "2"], "3 to 5 for Palastgeflüster"),
        (["--layout", "PMS/KGD/COB"], "--layout is a rule option of palais-royal; palastgefluester has none"),
        (["--against", "greedy"], "unknown"),
    ):
        refused = CliRunner().invoke(app, [*args, *bad, "--out", str(tmp_path / "x")])
        assert refused.exit_code == 2 and needle in refused.output, refused.output
