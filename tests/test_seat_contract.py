"""The seat contract of the core (``palais_sim.core.contract``, exported by ``palais_sim.strategy``): every game's
view and decision have its members, and a strategy that uses nothing else plays every game."""

from __future__ import annotations

import pytest

from palais_sim import strategy
from palais_sim.core import contract
from palais_sim.core.games import GAMES, get_game


def members(protocol: type) -> set[str]:
    """A protocol's attributes and methods (its annotations, properties and functions)."""
    own = vars(protocol)
    return {name for name in own if not name.startswith("_")} | set(own.get("__annotations__", {}))


class ContractOnly:
    """Plays through the contract's members alone, checking every view and decision against it."""

    name = "contract_only"

    def __init__(self) -> None:
        self.asked = 0

    def choose(self, view: strategy.PlayerView, decision: strategy.Decision) -> object:
        missing = [m for m in members(contract.PlayerView) if not hasattr(view, m)]
        missing += [m for m in members(contract.Decision) if not hasattr(decision, m)]
        assert not missing, f"{view.game}: {missing}"
        assert decision.seat == view.seat and view.game in GAMES
        assert strategy.describe_decision(decision) == decision.label and decision.label.startswith(decision.kind)
        self.asked += 1
        return view.sample_option(decision, view.rng)


def test_the_contract_names_what_a_strategy_and_a_view_offer() -> None:
    assert strategy.PlayerView is contract.PlayerView and strategy.Decision is contract.Decision
    assert {"choose", "name"} <= members(contract.Strategy)
    wanted = {"seat", "game", "rng", "legal_options", "sample_option", "sample_state"}
    assert wanted <= members(contract.PlayerView) and {"kind", "seat", "label"} <= members(contract.Decision)


@pytest.mark.parametrize("name", list(GAMES))
def test_a_strategy_of_the_contract_alone_plays_every_game(name: str) -> None:
    game = get_game(name)
    seats = [ContractOnly() for _ in range(game.default_players)]
    result = game.play(game.context({"max_rounds": 3}), 7, seats)
    assert result.rounds >= 1 and all(seat.asked > 0 for seat in seats)
