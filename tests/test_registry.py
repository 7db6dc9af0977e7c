"""Loading strategies by name or module:Class with parameters; every error lists what is available."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.game import STRATEGIES as BUILTINS
from palais_sim.registry import StrategySpecError, load_strategies, load_strategy, run_parameters, strategy_parameters
from strategies.palais_royal.heuristic import HeuristicStrategy
from strategies.palais_royal.restricted import RestrictedStrategy
from strategies.palais_royal.styles import EconomyStrategy


def test_builtins_load_with_parameters() -> None:
    s = load_strategy("greedy:gold_weight=0.5,edge_bonus=2")
    assert s.gold_weight == 0.5 and s.edge_bonus == 2.0 and s.name == "greedy:gold_weight=0.5,edge_bonus=2"
    assert load_strategy("economy:mint=4").mint == 4
    assert load_strategy("lookahead:budget=3,styles=greedy/park").budget == 3


def test_styles_show_their_own_defaults() -> None:
    params = strategy_parameters(EconomyStrategy)
    assert params["mint"] == EconomyStrategy.DEFAULTS["mint"] and "gold_weight" in params
    assert params != strategy_parameters(HeuristicStrategy)  # the style's own defaults, not the base's
    assert EconomyStrategy().mint == params["mint"] and EconomyStrategy(mint=1).mint == 1


def test_a_run_records_each_specs_own_parameters() -> None:
    """Two specs of one class in one run (a nobles study's forbid= and watch= pair) each record their own values; the
    class's defaults, looked up once per process, are not overwritten by the first spec's."""

    specs = (
        "restricted:base=greedy,forbid=N23",
        "restricted:base=greedy,watch=N23",
        "restricted:base=greedy,watch=N05",
    )
    recorded = run_parameters(specs, get_game("palais-royal"))
    assert recorded[specs[0]] == {"base": "greedy", "forbid": "N23", "eager": "", "watch": ""}
    assert recorded[specs[1]] == {"base": "greedy", "forbid": "", "eager": "", "watch": "N23"}
    assert recorded[specs[2]]["watch"] == "N05" and recorded[specs[2]]["forbid"] == ""
    assert strategy_parameters(RestrictedStrategy) == {"base": "greedy", "forbid": "", "eager": "", "watch": ""}


def test_user_class_loads_from_the_working_directory(monkeypatch) -> None:
    s = load_strategy("examples.my_strategy:MyStrategy:min_points=5")
    assert s.min_points == 5


def test_unknown_name_lists_builtins() -> None:
    with pytest.raises(StrategySpecError) as info:
        load_strategy("grredy")
    for name in BUILTINS:
        assert name in str(info.value)


def test_unknown_parameter_lists_parameters() -> None:
    with pytest.raises(StrategySpecError) as info:
        load_strategy("greedy:goldweight=1")
    assert "gold_weight=" in str(info.value) and "goldweight" in str(info.value)


def test_bad_value_and_bad_class() -> None:
    with pytest.raises(StrategySpecError, match="not a valid float"):
        load_strategy("greedy:gold_weight=lots")
    with pytest.raises(StrategySpecError, match="no class"):
        load_strategy("strategies.palais_royal.greedy:Nope")
    with pytest.raises(StrategySpecError, match="Strategy protocol"):
        load_strategy("palais_sim.registry:StrategySpec")
    with pytest.raises(StrategySpecError, match="cannot import"):
        load_strategy("no_such_module:Thing")
    with pytest.raises(StrategySpecError, match="could not be created"):
        load_strategy("lookahead:budget=0")
    with pytest.raises(StrategySpecError, match="3 players need 3"):
        load_strategies("greedy,random", players=3)


def test_cli_strategies_lists_builtins_with_parameters() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["strategies"])
    assert result.exit_code == 0 and "greedy" in result.output and "gold_weight=" in result.output
    listed = json.loads(runner.invoke(app, ["strategies", "--json"]).output)
    assert [item["name"] for item in listed] == list(BUILTINS)
    assert [item["name"] for item in listed if not item["description"]] == []


def test_the_registry_takes_the_game_object() -> None:
    """The command line resolves the game once and passes the object (None: the default game, for a caller that
    plays only that one). A strategy of every game still receives the game's name (it pickles as it is)."""
    from palais_sim.registry import builtins, split_strategy_list

    pg = get_game("palastgefluester")
    assert builtins(pg) == pg.strategies and builtins(None) == get_game("palais-royal").strategies
    assert split_strategy_list("heuristic:six=3,random", pg) == ["heuristic:six=3", "random"]
    assert load_strategy("search:budget=2", pg)._game == "palastgefluester"  # bound by name
    with pytest.raises(StrategySpecError, match="built-ins of palastgefluester"):
        load_strategy("greedy", pg)
