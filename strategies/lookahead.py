"""``lookahead``: Monte Carlo rollouts of the heuristic styles' plans over re-sampled hidden information.

At a decision where the heuristic styles disagree (which moves, which noble, which cards), each distinct
candidate is tried on the same re-sampled states (``PlayerView.sample_state``: deck order, other hands and unseen
nobles dealt at random, consistent with what the seat knows), and the rest of the game (or ``horizon`` rounds of it)
is played out by a fast rollout strategy for every seat. The candidate with the best mean reward is chosen
(``outcome_reward``: 0.7 for a win, 0.3 for a logistic of the score margin), the base style's own choice unless
another is better by more than ``TIE`` (a seat far ahead would otherwise prefer not to recruit, since a longer game
widens its margin, and never end a game against a player that does not end it either). The same samples for every
candidate (common random numbers) keep the comparison fair with few rollouts.

Cost: ``budget`` rollouts per contested decision, so the user controls the time per decision; decisions where
all styles agree cost nothing beyond asking them.
"""

from __future__ import annotations

import math
import random

from palais_sim.engine import rules
from palais_sim.engine.scoring import final_scores, winners
from palais_sim.engine.state import GameState
from palais_sim.engine.view import PlayerView
from palais_sim.registry import load_strategy

SEARCHED = frozenset(("move", "recruit", "cards"))
TIE = 0.01  # mean reward by which another candidate must beat the base style's own choice


class LookaheadStrategy:
    """Strongest: Monte Carlo rollouts of the styles' candidate plans over re-sampled hidden information."""

    name = "lookahead"

    def __init__(
        self,
        budget: int = 16,
        styles: str = "greedy/seals/cards/park/economy",
        rollout: str = "greedy",
        horizon: int = 0,
    ) -> None:
        if budget < 1:
            raise ValueError("budget must be at least 1 rollout per decision")
        self.budget = budget
        self.horizon = horizon
        # "/" separates the styles: "," already separates a spec's parameters.
        self.candidates_from = [load_strategy(s) for s in styles.split("/") if s]
        if not self.candidates_from:
            raise ValueError("styles must name at least one strategy, e.g. greedy/seals")
        self.base = self.candidates_from[0]
        self.rollout_spec = rollout
        self._rollout = load_strategy(rollout)

    def choose(self, view: PlayerView, decision: rules.Decision) -> object:
        first = self.base.choose(view, decision)
        if decision.kind not in SEARCHED:
            return first
        candidates = [first]
        keys = [_key(first)]
        for strategy in self.candidates_from[1:]:
            choice = strategy.choose(view, decision)
            k = _key(choice)
            if k not in keys:
                keys.append(k)
                candidates.append(choice)
        if decision.kind == "recruit" and None not in candidates and view.final_round is False:
            candidates.append(None)
        if len(candidates) == 1:
            return first
        return candidates[self.best(view, candidates)]

    def best(self, view: PlayerView, candidates: list[object]) -> int:
        rng = random.Random(view.rng.getrandbits(64))
        samples = max(1, self.budget // len(candidates))
        totals = [0.0] * len(candidates)
        seat = view.seat
        for _ in range(samples):
            sampled = view.sample_state(rng)
            for i, choice in enumerate(candidates):
                state = sampled.copy()
                try:
                    rules.apply(state, choice)
                except rules.IllegalChoice:
                    totals[i] = float("-inf")
                    continue
                self.play_out(state)
                totals[i] += outcome_reward(state, seat)
        best = max(range(len(candidates)), key=lambda i: totals[i])
        return 0 if totals[0] >= totals[best] - TIE * samples else best

    def play_out(self, state: GameState) -> None:
        limit = state.round + self.horizon if self.horizon > 0 else 1 << 30
        strategy = self._rollout
        while not state.over and state.round < limit:
            dec = rules.decision(state)
            rules.apply(state, strategy.choose(PlayerView(state, dec.seat), dec))


def _key(choice: object) -> object:
    if isinstance(choice, list | tuple):
        return tuple(_key(c) for c in choice)
    return choice


def outcome_reward(state: GameState, seat: int) -> float:
    """A played-out game's worth to ``seat``, in [0, 1]: 0.7 for a win (shared wins split) and 0.3 for a logistic of
    its score margin against the best other seat (so a close game still tells which play was better)."""
    scores = final_scores(state)
    best = winners(scores)
    win = 1.0 / len(best) if seat in best else 0.0
    margin = scores[seat].total - max(s.total for s in scores if s.seat != seat)
    return 0.7 * win + 0.3 / (1.0 + math.exp(-margin / 10.0))
