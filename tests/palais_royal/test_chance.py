"""Palais Royal's chance events (chance.py): each one's outcomes sum to probability 1 and hold the actual outcome,
and the game plays on to its end from every outcome."""

from __future__ import annotations

import random
from typing import Any

from palais_sim.core.games import get_game
from palais_sim.core.luck import event_problems
from palais_sim.games.palais_royal.chance import DRAW, KINDS, RESHUFFLE, PrChance
from palais_sim.games.palais_royal.play import continue_game
from palais_sim.games.palais_royal.state import GameState
from palais_sim.registry import load_strategies

GAME = get_game("palais-royal")


def model(players: int) -> PrChance:
    context = GAME.context({"players": players})
    return PrChance(context.components, context.options)


def cards_held(state: GameState) -> int:
    """Every privilege card of the game, wherever it lies."""
    return (
        len(state.deck) + len(state.discard) + sum(len(h) for h in state.hands) + len(state.drawn)
        + sum(len(p) for p in state.played_points) + len(state.in_front)
    )  # fmt: skip


def play(chance: PrChance, seed: int, hook: Any, strategy: str = "random", short_deck: bool = False) -> GameState:
    """A game played to its end with ``hook`` told of its chance events; ``short_deck``: all but 3 cards start in
    the discard pile (reshuffles soon)."""
    state = chance.start(seed)
    if short_deck:
        state.deck, state.discard = state.deck[:3], tuple(state.deck[3:])
    state.chance = hook
    continue_game(state, load_strategies(strategy, state.n, GAME))
    assert state.over and cards_held(state) == len(state.components.deck())
    return state


def test_each_event_sums_to_one_and_holds_its_actual_outcome() -> None:
    seen: dict[str, int] = {}
    for players in (2, 4):
        chance = model(players)

        def check(state: GameState, kind: str, chance: PrChance = chance) -> None:
            assert event_problems(chance, state, kind, random.Random(0)) == []
            if kind == DRAW:
                event = chance.event(state, kind, random.Random(0))
                assert dict(event.outcomes)[state.deck[0]] == state.deck.count(state.deck[0]) / len(state.deck)
            seen[kind] = seen.get(kind, 0) + 1

        for seed in range(6):
            play(chance, seed, check, short_deck=seed % 2 == 1)
    assert seen.get(DRAW, 0) > 50 and seen.get(RESHUFFLE, 0) > 0
    assert set(seen) <= set(KINDS)


def test_the_game_plays_on_from_every_outcome_of_a_draw() -> None:
    """The fifth card drawn of a game forced to each of its outcomes in turn: each game ends, every card kept."""
    chance, seed = model(3), 7
    outcomes: list[object] = []

    def listen(state: GameState, kind: str) -> None:
        if kind == DRAW and len(outcomes) == 0 and state.shuffles == 0 and len(state.deck) < 45:
            outcomes.extend(o for o, _p in chance.event(state, kind, random.Random(0)).outcomes)

    play(chance, seed, listen)
    assert len(outcomes) > 3
    for card in outcomes:
        done: list[str] = []

        def force(state: GameState, kind: str, card: object = card, done: list[str] = done) -> None:
            if kind == DRAW and not done and state.shuffles == 0 and len(state.deck) < 45:
                assert isinstance(card, str)
                state.deck.remove(card)
                state.deck.insert(0, card)
                done.append(card)
                after = chance.after(state, kind, card)
                assert after.drawn[-1] == card and cards_held(after) == cards_held(state)

        play(chance, seed, force)
        assert done == [card]


def test_the_game_plays_on_from_every_sampled_start() -> None:
    chance = model(2)
    state = chance.start(3)
    for start, p in chance.event(state, "setup", random.Random(5)).outcomes[:4]:
        assert p == 1 / 16
        after = chance.after(state, "setup", start)
        continue_game(after, load_strategies("greedy", 2, GAME))
        assert after.over
