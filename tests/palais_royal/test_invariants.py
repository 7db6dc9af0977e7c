"""Invariants checked after every decision of many whole games (random, greedy and mixed seats, 2 to 4 players,
with and without a gold limit), and a cross-check of the legal-option enumeration against the engine.

Game counts: 450 random + 300 greedy + 250 mixed = 1,000 games with invariants, plus the greedy finishing test
and the option cross-check. Hypothesis runs derandomized, so the suite is the same on every machine.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.options import legal_options, random_moves
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.rules import IllegalChoice
from palais_sim.games.palais_royal.setup import SERVANTS_PER_COLOUR, new_game
from palais_sim.games.palais_royal.state import GameState, RuleOptions
from palais_sim.games.palais_royal.view import PlayerView
from strategies.common.random_play import RandomStrategy
from strategies.palais_royal.greedy import GreedyStrategy
from tests.sample_sizes import sample

STANDARD = standard_components()
FULL_DECK = Counter(STANDARD.deck())
ALL_NOBLES = list(range(len(STANDARD.nobles)))
STRATEGIES = {"random": RandomStrategy, "greedy": GreedyStrategy}

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.sampled_from([2, 3, 4])
gold_limits = st.sampled_from([None, None, 57, 12])  # 12 is tight: the bank runs dry often


def check_invariants(state: GameState) -> None:
    """Everything that must hold between any two decisions."""
    n = state.n
    for seat in range(n):
        servants = (
            state.supply[seat] + state.servants_in_rooms(seat) + state.servants_in_park(seat) + state.general[seat]
        )
        assert servants == SERVANTS_PER_COLOUR, f"seat {seat} has {servants} servants"
        assert state.supply[seat] >= 0 and state.general[seat] >= 0
        assert all(row[seat] >= 0 for row in state.rooms), f"seat {seat}: negative room count"
        assert state.gold[seat] >= 0, f"seat {seat} has {state.gold[seat]} gold"
    cards = Counter(state.deck) + Counter(state.discard) + Counter(state.drawn) + Counter(state.in_front)
    for seat in range(n):
        cards += Counter(state.hands[seat]) + Counter(state.played_points[seat])
    assert cards == FULL_DECK, f"cards: {sum(cards.values())} instead of 36"
    assert set(state.in_front) <= {"all_majorities"}, "only all_majorities stays in front of a player"
    assert not state.in_front or state.all_maj, "a card in front of the player outlived its turn"
    in_park = [code for code in state.park if code >= 0]
    taken = [i for seat_nobles in state.nobles for i in seat_nobles]
    assert sorted(in_park + taken + state.box) == ALL_NOBLES, "nobles lost or duplicated"
    assert state.nobles_left == len(in_park)
    assert all(code >= -1 - n for code in state.park), "a servant of a seat that does not play"
    if state.options.gold_limit is None:
        assert state.bank is None
    else:
        assert state.bank is not None and state.bank >= 0
        assert sum(state.gold) + state.bank == state.options.gold_limit, "gold not conserved"


def play_checked(seed: int, names: list[str], max_rounds: int = 100, gold_limit: int | None = None) -> GameState:
    """Play one game, checking the invariants after every decision; returns the final state."""
    options = RuleOptions(players=len(names), gold_limit=gold_limit, max_rounds=max_rounds)
    state = new_game(STANDARD, options, seed)
    players = [STRATEGIES[name]() for name in names]
    check_invariants(state)
    while not state.over:
        dec = rules.decision(state)
        choice = players[dec.seat].choose(PlayerView(state, dec.seat), dec)
        rules.apply(state, choice)
        check_invariants(state)
    assert state.round <= max_rounds
    return state


FAST = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@settings(FAST, max_examples=sample(450))
@given(seed=seeds, players=player_counts, max_rounds=st.integers(1, 100), gold_limit=gold_limits)
def test_invariants_hold_in_random_play(seed: int, players: int, max_rounds: int, gold_limit: int | None) -> None:
    # Random play almost never ends by the nobles: it runs to max_rounds, any max_rounds up to the default 100.
    play_checked(seed, ["random"] * players, max_rounds=max_rounds, gold_limit=gold_limit)


@settings(FAST, max_examples=sample(300))
@given(seed=seeds, players=player_counts, gold_limit=gold_limits)
def test_invariants_hold_in_greedy_play(seed: int, players: int, gold_limit: int | None) -> None:
    play_checked(seed, ["greedy"] * players, gold_limit=gold_limit)


@settings(FAST, max_examples=sample(250))
@given(
    seed=seeds,
    names=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=2, max_size=4),
    gold_limit=gold_limits,
)
def test_invariants_hold_in_mixed_play(seed: int, names: list[str], gold_limit: int | None) -> None:
    play_checked(seed, names, max_rounds=60, gold_limit=gold_limit)


GREEDY_FINISH_SEEDS = sample(100)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_games_all_finish(players: int) -> None:
    unfinished = [
        seed
        for seed in range(GREEDY_FINISH_SEEDS)
        if not play_game(STANDARD, RuleOptions(players=players), seed, [GreedyStrategy()] * players).finished
    ]
    assert unfinished == [], f"{len(unfinished)}/{GREEDY_FINISH_SEEDS} greedy games hit max_rounds: {unfinished[:10]}"


def check_options_accepted(state: GameState, dec: rules.Decision, view: PlayerView) -> int:
    """Apply every listed option (a few random walks for movement) to a copy; return how many were tried."""
    if dec.kind == "move":
        options: list = [random_moves(view, dec, view.rng) for _ in range(5)]
    else:
        options = legal_options(view, dec)
    assert options, f"no legal option at a {dec.kind} decision"
    for option in options:
        trial = state.copy()
        try:
            rules.apply(trial, option)
        except IllegalChoice as exc:  # pragma: no cover - the failure message is the point
            raise AssertionError(f"{dec.kind} option {option!r} listed but rejected: {exc}") from None
        check_invariants(trial)
    return len(options)


@settings(FAST, max_examples=sample(40))
@given(seed=seeds, players=player_counts, gold_limit=gold_limits, greedy_seat=st.integers(-1, 3))
def test_every_listed_option_is_accepted_by_the_engine(
    seed: int, players: int, gold_limit: int | None, greedy_seat: int
) -> None:
    """Walk a game (random seats, sometimes one greedy seat to reach richer states) and try every option
    ``legal_options`` lists at every decision after setup."""
    options = RuleOptions(players=players, gold_limit=gold_limit, max_rounds=12)
    state = new_game(STANDARD, options, seed)
    players_ = [GreedyStrategy() if seat == greedy_seat else RandomStrategy() for seat in range(players)]
    kinds: set[str] = set()
    while not state.over:
        dec = rules.decision(state)
        view = PlayerView(state, dec.seat)
        if dec.kind != "setup" or dec.seat == 0:  # setup lists 1,287 options: check one seat's
            check_options_accepted(state, dec, view)
        kinds.add(dec.kind)
        rules.apply(state, players_[dec.seat].choose(view, dec))
    assert {"setup", "move"} <= kinds
