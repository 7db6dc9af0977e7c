"""The start_gold rule option and the first_group of a run (a sequential test's next batch of groups)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.game import rule_options
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.setup import SetupError, new_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Schedule, Settings, group_seed

COMPS = load_components(None)


def test_default_start_gold_is_the_rulebooks() -> None:
    assert new_game(COMPS, RuleOptions(players=4), 3).gold == (0, 1, 2, 3)


def test_start_gold_option_sets_each_seats_gold_and_is_recorded() -> None:
    options = RuleOptions(players=3, start_gold=[5, 0, 2])
    assert options.start_gold == (5, 0, 2)  # kept as a tuple: options stay hashable
    assert new_game(COMPS, options, 3).gold == (5, 0, 2)
    result = play_game(COMPS, options, 3, [load_strategy("greedy") for _ in range(3)])
    assert [s.start_gold for s in result.seats] == [5, 0, 2]
    assert RuleOptions(**options.to_dict()) == options


def test_options_without_start_gold_serialise_as_before() -> None:
    assert "start_gold" not in RuleOptions(players=2).to_dict()


@pytest.mark.parametrize("gold", [(1,), (1, 2, 3), (-1, 0)])
def test_impossible_start_gold_is_refused(gold: tuple[int, ...]) -> None:
    with pytest.raises(SetupError, match="start_gold"):
        new_game(COMPS, RuleOptions(players=2, start_gold=gold), 1)


def test_gold_limit_counts_the_start_gold() -> None:
    with pytest.raises(SetupError, match="gold_limit"):
        new_game(COMPS, RuleOptions(players=2, start_gold=(30, 30), gold_limit=57), 1)


def test_settings_round_trip_and_old_manifests_still_match() -> None:
    plain = Settings()
    assert plain.to_dict()["rules"] == {} and "first_group" not in plain.to_dict()
    assert Settings.from_dict({**plain.to_dict(), "rules": {}, "start_gold": None}) == plain
    s = Settings(rules={"start_gold": (2, 2)}, first_group=5)
    assert Settings.from_dict(s.to_dict()) == s
    assert rule_options(s.to_dict()).start_gold == (2, 2)


def test_first_group_continues_the_seeds_of_an_unbroken_run() -> None:
    whole = Schedule(Settings(games=12, players=2, seed=9))
    tail = Schedule(Settings(games=6, players=2, seed=9, first_group=3))
    assert [g.seed for g in tail.games(0, 6)] == [g.seed for g in whole.games(6, 6)]
    assert [g.group for g in tail.games(0, 6)] == [3, 3, 4, 4, 5, 5]
    assert tail.game(0).seed == group_seed(9, 3)


def test_a_run_with_start_gold_records_it(tmp_path: Path) -> None:
    settings = Settings(
        games=2, players=2, strategies=("greedy",), format="fixed", rules={"start_gold": (4, 4)}, seed=2
    )
    run(settings, tmp_path / "run", workers=1)
    seats = pl.read_parquet(tmp_path / "run" / "seats" / "*.parquet")
    assert seats["start_gold"].unique().to_list() == [4]
