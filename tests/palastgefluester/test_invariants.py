"""Invariants over thousands of random games of Palastgeflüster at 3, 4 and 5 players."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palais_sim.games.palastgefluester.components import PERSONS
from palais_sim.games.palastgefluester.play import play_game
from palais_sim.games.palastgefluester.rules import Decision, apply, decision, legal_options, new_game
from palais_sim.games.palastgefluester.state import JESTER, REPEAT, SIX, PgOptions, PgState
from strategies.common.random_play import RandomStrategy
from strategies.palastgefluester.heuristic import HeuristicStrategy
from strategies.palastgefluester.restricted import RestrictedStrategy

GAMES = 700  # per player count


def check(state: PgState, points_before: list[int]) -> None:
    cards = state.components.cards_in_game(state.n)
    places = [c for h in state.hands for c in h] + [c for d in state.displays for c in d] + state.draw + state.discards
    assert sorted(places) == cards, "every card is in exactly one place"
    assert all(a >= b for a, b in zip(state.points, points_before, strict=True)), "points never decrease"
    if not state.over:
        for s in range(state.n):
            persons = [c % PERSONS for c in state.displays[s]]
            assert len(set(persons)) == len(persons), "a display never holds a person twice"
            assert len(state.hands[s]) + len(state.displays[s]) == state.components.hand_size
            assert len(state.displays[s]) < state.components.different_to_end
    assert sorted(state.king_pile + state.kings_revealed) == sorted(state.components.kings)


def check_play(state: PgState, dec: Decision, choice: object) -> None:
    """No repeat is ever played while the hand held a card whose person is not yet in the display (PALASTGEFLUESTER.md
    section 4, Decision: a repeat is played only when forced), counted from the hand itself, not the legal options."""
    if dec.kind != "play":
        return
    laid_out = {c % PERSONS for c in state.displays[dec.seat]}
    assert isinstance(choice, int)
    if choice % PERSONS in laid_out:
        new = [c for c in state.hands[dec.seat] if c % PERSONS not in laid_out]
        assert not new, f"repeat {choice} played from {state.hands[dec.seat]} holding the new {new}"


def random_game(n: int, seed: int, tiebreak: str = "display") -> PgState:
    state = new_game(PgOptions(players=n, tiebreak=tiebreak), seed)
    rng = random.Random(seed)
    while not state.over:
        before = state.points[:]
        dec = decision(state)
        options = legal_options(state, dec)
        assert options, "a pending decision always has a legal choice"
        choice = options[rng.randrange(len(options))]
        check_play(state, dec, choice)
        apply(state, choice)
        check(state, before)
    return state


def check_end(state: PgState) -> None:
    target = state.components.points_to_win(state.n)
    assert state.finished and state.winners, "a finished game has a winner set"
    assert max(state.points) == target and all(state.points[w] == target for w in state.winners)
    # the round-end record agrees with the points
    points = [0] * state.n
    for r in state.round_ends:
        if r.kind == SIX:
            assert r.scorers == (r.seat,)
        else:
            assert r.kind in (REPEAT, JESTER) and r.scorers == tuple(s for s in range(state.n) if s != r.seat)
        for s in r.scorers:
            points[s] += 1
    assert points == state.points
    assert [r.round for r in state.round_ends] == list(range(1, state.round + 1))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_games_keep_every_invariant(n: int) -> None:
    for game in range(GAMES):
        check_end(random_game(n, 1000 * n + game, "noted" if game % 2 else "display"))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**63 - 1))
def test_any_seed_plays_to_a_consistent_end(n: int, seed: int) -> None:
    check_end(random_game(n, seed))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_no_player_plays_a_repeat_while_holding_a_new_person(n: int) -> None:
    """The same over games of the built-in players (heuristic, restricted, random), every play watched."""
    plays = repeats = 0

    def watch(before: PgState, dec: Decision, choice: object) -> None:
        nonlocal plays, repeats
        check_play(before, dec, choice)
        if dec.kind == "play":
            plays += 1
            repeats += choice % PERSONS in {c % PERSONS for c in before.displays[dec.seat]}  # type: ignore[operator]

    for game in range(40):
        seats = [HeuristicStrategy(), RestrictedStrategy(forbid="Zofe/Hofnarr"), *[RandomStrategy()] * (n - 2)]
        check_end(play_game(PgOptions(players=n), 7_000 * n + game, seats, watch).final_state)
    assert plays > 1000 and repeats > 40  # forced repeats still happen and end most rounds


def test_the_same_seed_gives_the_same_game() -> None:
    a = play_game(PgOptions(players=4), 9, [RandomStrategy() for _ in range(4)])
    b = play_game(PgOptions(players=4), 9, [RandomStrategy() for _ in range(4)])
    assert a.to_json() == b.to_json() and a.final_state.hands == b.final_state.hands
    c = play_game(PgOptions(players=4), 10, [RandomStrategy() for _ in range(4)])
    assert a.to_json() != c.to_json()
