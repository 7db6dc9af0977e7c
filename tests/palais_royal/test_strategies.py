"""Every built-in strategy plays legal, reproducible games; a strategy sees only its view; a failing strategy fails
its game cleanly."""

from __future__ import annotations

import gc

import pytest

from palais_sim.core.errors import StrategyError
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.game import STRATEGIES as BUILTINS
from palais_sim.games.palais_royal.play import play_game, run_to_end
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import FIELD_NAMES, GameState, RuleOptions
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed
from tests.sample_sizes import sample

COMPONENTS = standard_components()
FAST = {
    "lookahead": "lookahead:budget=2,horizon=1",  # keep the searches cheap in tests
    "ismcts": "ismcts:budget=3,horizon=1",
    "search": "search:budget=3,horizon=1",
    "restricted": "restricted:base=greedy,forbid=N17/king_plus1",  # a wrapper needs something to restrict
}


def spec(name: str) -> str:
    return FAST.get(name, name)


def servants_accounted(state: GameState) -> bool:
    return all(
        state.supply[s] + state.general[s] + state.servants_in_rooms(s) + state.servants_in_park(s) == 25
        for s in range(state.n)
    )


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_plays_a_legal_full_game(name: str, players: int) -> None:
    seats = [load_strategy(spec(name))] + [load_strategy("greedy") for _ in range(players - 1)]
    result = play_game(COMPONENTS, RuleOptions(players=players), 11 + players, seats)
    assert result.final_state is not None and result.final_state.over
    assert servants_accounted(result.final_state)
    if name != "random":
        assert result.finished


@pytest.mark.parametrize("name", ["greedy", "economy", "seals", "park", "cards"])
def test_heuristic_self_play_finishes_with_sensible_scores(name: str) -> None:
    for seed in range(3):
        result = play_game(COMPONENTS, RuleOptions(players=2), seed, [load_strategy(name), load_strategy(name)])
        assert result.finished
        assert max(s.total for s in result.scores) >= 50


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_same_seed_same_game(name: str) -> None:
    def game():
        r = play_game(COMPONENTS, RuleOptions(players=2), 5, [load_strategy(spec(name)), load_strategy("greedy")])
        return [s.total for s in r.scores], r.recruits, r.decisions

    assert game() == game()


HEURISTICS = ["greedy", "economy", "seals", "park", "cards"]
NO_STALL_GAMES = sample(1200)  # a few seconds compiled; a third of them on the Python source


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_heuristics_finish_every_game_against_random(players: int) -> None:
    """No stalls: every heuristic style, in every seat, finishes its games against random opponents before the
    engine's round limit (100; a game against random ends around round 22, rarely after 50)."""
    options = RuleOptions(players=players)
    stalled = []
    for game in range(NO_STALL_GAMES):
        style, seat = HEURISTICS[game % len(HEURISTICS)], game % players
        seats = [load_strategy("random") for _ in range(players)]
        seats[seat] = load_strategy(style)
        seed = group_seed(2026, game)
        if not play_game(COMPONENTS, options, seed, seats).finished:
            stalled.append((style, seat + 1, seed))
    assert not stalled, f"{len(stalled)} of {NO_STALL_GAMES} games stalled (style, seat, seed): {stalled[:5]}"


def test_greedy_beats_random() -> None:
    wins = 0
    for seed in range(4):
        for seats in (["greedy", "random"], ["random", "greedy"]):
            r = play_game(COMPONENTS, RuleOptions(players=2), seed, [load_strategy(s) for s in seats])
            wins += seats.index("greedy") in r.winners
    assert wins == 8


# ---------------------------------------------------------------------------------------------- what a view holds


def _reachable(obj: object, depth: int = 3) -> list[object]:
    """Objects reachable from ``obj`` through references, a few levels deep (components and layout excluded:
    they are static, shared and public)."""
    seen: dict[int, object] = {}
    frontier = [obj]
    for _ in range(depth):
        nxt = []
        for o in frontier:
            for r in gc.get_referents(o):
                if (
                    id(r) not in seen
                    and not isinstance(r, type)
                    and r.__class__.__module__ != "palais_sim.games.palais_royal.components"
                ):
                    seen[id(r)] = r
                    nxt.append(r)
        frontier = nxt
    return list(seen.values())


def test_a_view_cannot_reach_hidden_information() -> None:
    state = new_game(COMPONENTS, RuleOptions(players=3), 21)
    greedy = load_strategy("greedy")
    # Play into the game so hands, deck and discard all hold cards.
    while state.turn_no < 12 and not state.over:
        dec = rules.decision(state)
        rules.apply(state, greedy.choose(PlayerView(state, dec.seat), dec))
    state.hands[1] = ["points4", "move9"]
    view = PlayerView(state, 0)
    assert not hasattr(view, "__dict__")  # slots only: nothing can be hung on it
    for name in ("deck", "hands", "box", "state"):
        assert not hasattr(view, name)
    # The park and the frozen fields (rooms, supplies, gold, nobles, privileges, cards played and discarded) are
    # public and immutable tuples: the view shares them, as it may. Nothing the state can change in place is reachable.
    hidden = [state, state.deck, state.box, *state.hands, state.drawn, state.recruit_log]
    reachable = _reachable(view)
    assert not any(any(r is h for h in hidden) for r in reachable)
    assert view.rooms is state.rooms and view.nobles is state.nobles
    assert not any(isinstance(r, (list, dict, set)) for r in reachable if r is not view.components)
    # What it does show: its own hand, the other hands' sizes, the deck's size.
    assert view.hand == tuple(state.hands[0])
    assert view.hand_sizes[1] == 2 and view.deck_size == len(state.deck)
    # The unseen nobles are not among the known ones: sample_state re-deals them from what is not visible.
    sampled = view.sample_state(__import__("random").Random(1))
    assert sorted(sampled.box) == sorted(
        set(range(len(COMPONENTS.nobles))) - set(state.park) - {n for seat in state.nobles for n in seat}
    )
    assert sampled.hands[0] == state.hands[0] and len(sampled.hands[1]) == 2


def test_sample_state_sets_every_slot() -> None:
    state = new_game(COMPONENTS, RuleOptions(players=2), 3)
    sampled = PlayerView(state, 0).sample_state(__import__("random").Random(2))
    for name in FIELD_NAMES:
        getattr(sampled, name)  # raises AttributeError if the engine grew a field the view does not fill
    sampled.copy()


# ---------------------------------------------------------------------------------------------- failing strategies


class Raising:
    name = "raiser"

    def choose(self, view, decision):
        if decision.kind == "move":
            raise RuntimeError("boom")
        return load_strategy("greedy").choose(view, decision)


class Illegal:
    name = "cheat"

    def choose(self, view, decision):
        if decision.kind == "move":
            return [(0, 1, 99)]  # more servants than the seat has
        return load_strategy("greedy").choose(view, decision)


def _snapshot(state: GameState) -> tuple:
    return (
        [r[:] for r in state.rooms], state.supply[:], state.gold[:], state.park[:], state.phase, state.current,
        [h[:] for h in state.hands], state.deck[:],
    )  # fmt: skip


@pytest.mark.parametrize(("bad", "problem"), [(Raising(), "raised"), (Illegal(), "illegal choice")])
def test_a_failing_strategy_fails_its_game_cleanly(bad, problem: str) -> None:
    state = new_game(COMPONENTS, RuleOptions(players=2), 77)
    seats = [load_strategy("greedy"), bad]
    snapshots: list[tuple] = []

    class Watch:
        """Records the state before each of the bad seat's decisions."""

        name = bad.name

        def choose(self, view, decision):
            snapshots.append(_snapshot(state))
            return bad.choose(view, decision)

    with pytest.raises(StrategyError) as info:
        run_to_end(state, [seats[0], Watch()])
    message = str(info.value)
    assert bad.name in message and "move" in message and "77" in message and problem in message
    assert _snapshot(state) == snapshots[-1]  # the bad answer changed nothing
    assert servants_accounted(state)
    # The game can go on from there with a legal strategy.
    run_to_end(state, [load_strategy("greedy"), load_strategy("greedy")])
    assert state.over and servants_accounted(state)
