"""Palastgeflüster's chance events (chance.py): each one's outcomes sum to probability 1 and hold the actual
outcome, and the game plays on to its end from every outcome."""

from __future__ import annotations

import math
import random
from typing import Any

from palais_sim.core.games import get_game
from palais_sim.core.luck import event_problems
from palais_sim.games.palastgefluester.chance import DEAL, DRAW, KINDS, KING, RESHUFFLE, PgChance, card_kind
from palais_sim.games.palastgefluester.play import continue_game
from palais_sim.games.palastgefluester.state import PgState
from palais_sim.registry import load_strategies

GAME = get_game("palastgefluester")


def model(players: int) -> PgChance:
    return PgChance(GAME.context({"players": players}).options)


def cards_held(state: PgState) -> int:
    return state.location_counts()


def play(chance: PgChance, seed: int, hook: Any, strategy: str = "heuristic") -> PgState:
    state = chance.start(seed)
    total = cards_held(state)
    state.chance = hook
    continue_game(state, load_strategies(strategy, state.n, GAME))
    assert state.over and cards_held(state) == total
    return state


def test_each_event_sums_to_one_and_holds_its_actual_outcome() -> None:
    seen: dict[str, int] = {}
    for players in (3, 4):
        chance = model(players)

        def check(state: PgState, kind: str, chance: PgChance = chance) -> None:
            assert event_problems(chance, state, kind, random.Random(0)) == []
            event = chance.event(state, kind, random.Random(0))
            if kind == DRAW:
                top = card_kind(state, state.draw[-1])
                same = sum(1 for c in state.draw if card_kind(state, c) == top)
                assert math.isclose(dict(event.outcomes)[top], same / len(state.draw))
            if kind == DEAL:
                after = chance.after(state, kind, event.outcomes[0][0])
                assert cards_held(after) == cards_held(state)
                assert all(
                    len(h) == state.components.hand_size and not d
                    for h, d in zip(after.hands, after.displays, strict=True)
                )
            seen[kind] = seen.get(kind, 0) + 1

        for seed in range(4):
            play(chance, seed, check, "random" if seed % 2 else "heuristic")
    assert all(seen.get(kind, 0) > 0 for kind in (DEAL, DRAW, KING)), seen
    assert set(seen) <= set(KINDS)
    assert RESHUFFLE in KINDS


def force_each(chance: PgChance, seed: int, kind: str, move: Any) -> int:
    """Play ``seed`` once per outcome of its first event of ``kind``, that outcome forced (``move`` puts it on top of
    the real pile): each game must end with every card kept. Returns the number of outcomes."""
    outcomes: list[object] = []

    def listen(state: PgState, k: str) -> None:
        if k == kind and not outcomes:
            outcomes.extend(o for o, _p in chance.event(state, k, random.Random(0)).outcomes)

    play(chance, seed, listen)
    for outcome in outcomes:
        done: list[object] = []

        def force(state: PgState, k: str, outcome: object = outcome, done: list[object] = done) -> None:
            if k == kind and not done:
                move(state, outcome)
                done.append(outcome)
                assert chance.actual(state, k) == outcome

        play(chance, seed, force)
        assert done == [outcome]
    return len(outcomes)


def test_the_game_plays_on_from_every_outcome_of_a_draw_and_a_king() -> None:
    def draw_on_top(state: PgState, outcome: object) -> None:
        card = next(c for c in state.draw if card_kind(state, c) == outcome)
        state.draw.remove(card)
        state.draw.append(card)

    def king_on_top(state: PgState, outcome: object) -> None:
        pile = state.king_pile
        if pile:
            assert isinstance(outcome, int)
            pile.remove(outcome)
            pile.append(outcome)

    chance = model(3)
    assert force_each(chance, 2, DRAW, draw_on_top) > 3
    assert force_each(chance, 2, KING, king_on_top) > 1


def test_the_game_plays_on_from_sampled_deals() -> None:
    chance = model(4)
    deals: list[PgState] = []

    def listen(state: PgState, kind: str) -> None:
        if kind == DEAL and not deals:
            event = chance.event(state, kind, random.Random(1))
            deals.extend(chance.after(state, kind, o) for o, _p in event.outcomes[:4])

    play(chance, 1, listen)
    for after in deals:
        continue_game(after, load_strategies("heuristic", 4, GAME))
        assert after.over
