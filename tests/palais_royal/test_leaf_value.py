"""The leaf value a search with a horizon counts for an unfinished game (``leaf_value.py``, fitted by
``benchmarks/fit_leaf_value.py``): it must tell more about who wins than the score as if the game ended now."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.fit_leaf_value import collect, lead_logistic, log_loss, predict
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.leaf_value import FEATURES, HEADS, MODEL, LeafValue
from palais_sim.games.palais_royal.play import PR_TURNS, play_game
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import GameState, RuleOptions, replace_at
from palais_sim.registry import load_strategy
from strategies.palais_royal.lookahead import rollout_reward


def test_the_stored_model_is_fitted_on_todays_features_for_two_to_four_players() -> None:
    model = LeafValue.load(MODEL)
    assert sorted(model.heads) == [2, 3, 4]
    for win, worth in model.heads.values():
        assert len(win.weights) == len(worth.weights) == len(FEATURES)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("head", HEADS)
def test_on_fresh_self_play_it_predicts_the_result_better_than_the_score_now(players: int, head: str) -> None:
    """Positions of games the fit never saw (another seed): each head's log-loss is well below the lead's logistic
    (no better than a constant when fitted) and below a constant's."""
    x, labels, _ = collect(60, seed=987654, players=players)
    y = labels[head]
    model = LeafValue.load(MODEL).heads[players][HEADS.index(head)]
    p_model = predict(x, np.array([model.intercept, *model.weights]))
    p_constant = np.full(len(y), y.mean())
    assert log_loss(p_model, y) < log_loss(lead_logistic(x), y) - 0.1
    assert log_loss(p_model, y) < log_loss(p_constant, y) - 0.1


def test_an_unfinished_game_is_worth_the_models_estimate_and_a_lead_is_worth_more() -> None:
    """A rollout cut at its horizon counts the worth head; twenty more points played from cards raise a seat's
    estimate, and its opponent's falls."""
    state = new_game(standard_components(), RuleOptions(players=2), 5)
    greedy = load_strategy("greedy")
    while state.round < 6:
        decision = PR_TURNS.pending(state)
        assert decision is not None
        PR_TURNS.apply(state, greedy.choose(PR_TURNS.view(state, decision.seat), decision))
    reward = PR_TURNS.reward(state, 0)
    assert reward == LeafValue.load(MODEL).worth(state, 0)
    ahead = state.copy()
    ahead.played_points = replace_at(ahead.played_points, 0, (*ahead.played_points[0], *["points4"] * 5))
    assert LeafValue.load(MODEL).worth(ahead, 0) > reward
    assert LeafValue.load(MODEL).worth(ahead, 1) < PR_TURNS.reward(state, 1)


def test_a_finished_game_is_worth_its_result_not_the_model() -> None:
    result = play_game(standard_components(), RuleOptions(players=2), 5, [load_strategy("greedy")] * 2)
    state = result.final_state
    assert state is not None and state.over
    scores = final_scores(state)
    for seat in (0, 1):
        win = 1.0 / len(winners(scores)) if seat in winners(scores) else 0.0
        margin = scores[seat].total - scores[1 - seat].total
        assert PR_TURNS.reward(state, seat) == 0.7 * win + 0.3 / (1.0 + math.exp(-margin / 10.0))


# ---------------------------------------------------------------------------------------- settled rollouts


def _greedy_positions(players: int, games: int) -> list[tuple[GameState, int, list[int]]]:
    """Every round start of ``games`` greedy-family games where ``settled(edge=0.05)`` calls the game, with the
    rounds the game then really lasted; the games played to their end from there."""
    styles = [load_strategy(s) for s in ("greedy", "seals", "economy", "park", "cards")]
    found = []
    for seed in range(games):
        state = new_game(standard_components(), RuleOptions(players=players), seed)
        seats = [styles[(seed + seat) % len(styles)] for seat in range(players)]
        calls, checked = [], -1
        while not state.over:
            if state.round != checked:
                checked = state.round
                if PR_TURNS.settled(state, 0.05) >= 0.0:
                    calls.append(state.copy())
            decision = PR_TURNS.pending(state)
            if decision is not None:
                PR_TURNS.apply(state, seats[decision.seat].choose(PR_TURNS.view(state, decision.seat), decision))
        found += [(call, state.round - call.round, winners(final_scores(state))) for call in calls]
    return found


def test_a_settled_call_names_the_winner_and_about_when_the_game_ends() -> None:
    """Where the leaf value gives the seat ahead more than 95% (``settled``), that seat wins the played-out game
    (measured: every one of 205 calls in 150 two-player games), and the rounds-left estimate is right on average
    (measured: 0.00 rounds off, 0.48 in absolute value)."""
    calls = _greedy_positions(2, 60)
    assert len(calls) >= 30
    right = sum(max(final_scores(s), key=lambda x: x.total).seat in won for s, _, won in calls)
    assert right >= 0.95 * len(calls)
    errors = [PR_TURNS.settled(s, 0.05) - lasted for s, lasted, _ in calls]
    assert abs(sum(errors) / len(errors)) < 0.5
    assert sum(abs(e) for e in errors) / len(errors) < 1.0


def test_no_game_is_settled_before_anyone_recruits_nor_in_its_last_round() -> None:
    state = new_game(standard_components(), RuleOptions(players=2), 3)
    assert PR_TURNS.settled(state, 0.49) == -1.0
    state, _, _ = _greedy_positions(2, 20)[0]
    assert PR_TURNS.settled(state, 0.05) >= 0.0
    state.final_round = True
    assert PR_TURNS.settled(state, 0.05) == -1.0


def test_a_settled_rollout_stops_there_and_is_worth_a_win_to_the_seat_ahead() -> None:
    """``rollout_reward`` with ``settle`` stops at the first round start the value calls, plays nothing further,
    and gives the seat ahead the reward of a win (the margin as it stands) discounted to the expected end."""
    state, _, _ = _greedy_positions(2, 20)[0]
    scores = final_scores(state)
    leader = max(scores, key=lambda s: s.total).seat
    left = PR_TURNS.settled(state, 0.05)
    policies = [load_strategy("greedy")] * 2
    for seat in (0, 1):
        cut = state.copy()
        reward = rollout_reward(cut, policies, seat, state.round - 2, 0, 0.9, settle=0.05)
        assert cut.round == state.round and cut.phase == state.phase and cut.gold == state.gold  # nothing played
        margin = scores[seat].total - scores[1 - seat].total
        worth = 0.7 * (seat == leader) + 0.3 / (1.0 + math.exp(-margin / 10.0))
        assert reward == pytest.approx(worth * 0.9 ** (2 + left))
    played = state.copy()
    rollout_reward(played, policies, 0, state.round, 0, 0.99)  # settle 0: played to the end
    assert played.over


@pytest.mark.parametrize("spec", ["ismcts:settle=0.5", "lookahead:settle=-0.1"])
def test_settle_is_a_chance_below_one_half(spec: str) -> None:
    with pytest.raises(ValueError, match="settle"):
        load_strategy(spec)
