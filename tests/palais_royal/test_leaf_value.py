"""The leaf value a search with a horizon counts for an unfinished game (``leaf_value.py``, fitted by
``benchmarks/fit_leaf_value.py``): it must tell more about who wins than the score as if the game ended now."""

from __future__ import annotations

import math

import numpy as np

from benchmarks.fit_leaf_value import collect, log_loss
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.leaf_value import FEATURES, MODEL, LeafValue
from palais_sim.games.palais_royal.play import PR_TURNS, play_game
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy


def test_the_stored_model_is_fitted_on_todays_features() -> None:
    model = LeafValue.load(MODEL)
    assert len(model.weights) == len(FEATURES)


def test_on_fresh_self_play_it_predicts_the_winner_better_than_the_score_now() -> None:
    """Positions of games the fit never saw (another seed): the model's log-loss is well below the lead's logistic
    (0.68 when fitted: no better than a coin) and below a coin's (log 2)."""
    x, y, _ = collect(120, seed=987654)
    model = LeafValue.load(MODEL)
    p_model = 1 / (1 + np.exp(-(model.intercept + x @ np.array(model.weights))))
    p_lead = 1 / (1 + np.exp(-x[:, 0] / 10))
    assert log_loss(p_model, y) < log_loss(p_lead, y) - 0.1
    assert log_loss(p_model, y) < math.log(2) - 0.1


def test_a_finished_game_is_worth_its_result_not_the_model() -> None:
    result = play_game(standard_components(), RuleOptions(players=2), 5, [load_strategy("greedy")] * 2)
    state = result.final_state
    assert state is not None and state.over
    scores = final_scores(state)
    for seat in (0, 1):
        win = 1.0 / len(winners(scores)) if seat in winners(scores) else 0.0
        margin = scores[seat].total - scores[1 - seat].total
        assert PR_TURNS.reward(state, seat) == 0.7 * win + 0.3 / (1.0 + math.exp(-margin / 10.0))
