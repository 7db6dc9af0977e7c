"""``lookahead``: Monte Carlo rollouts of the heuristic styles' plans over re-sampled hidden information.

At a decision where the heuristic styles disagree (which moves, which noble, which cards), each distinct candidate
is tried on the same re-sampled states (``PlayerView.sample_state``: deck order, other hands and unseen nobles dealt
at random, consistent with what the seat knows), and the rest of the game (or ``horizon`` rounds of it, or with
``settle`` up to a round where the leaf value calls the game) is played out by rollout strategies, one dealt to
every seat per sample from ``rollout`` (a mixture of the heuristic styles: a single deterministic rollout player
gives one fixed continuation, and the search then picks whatever choice happens to suit it, such as never
recruiting). A played-out game is worth ``rollout_reward`` (0.7 for a win, 0.3 for a logistic of the score margin)
times ``discount`` per round it lasted (winning sooner is worth more: a seat ahead that prefers a longer game to
widen its margin never ends a game against a player that does not end it either). The base style's own choice is
played unless another is clearly better (``clearly_better``). The same samples for every candidate (common random
numbers) keep the comparison fair with few rollouts. From round ``base_after`` (40: twice a usual game's length) the
base style alone plays, which always brings the end: a safety net, since two searchers that each expect a longer
game to favour them could otherwise decline to recruit forever (1 of 60 games of ismcts:budget=300 against
lookahead:budget=600 reached the round limit before it).

Cost: ``budget`` rollouts per contested decision, so the user controls the time per decision; decisions where
all styles agree cost nothing beyond asking them.
"""

from __future__ import annotations

import random

from palais_sim.core import loop
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.play import PR_TURNS
from palais_sim.games.palais_royal.state import GameState
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import load_strategy
from strategies.common.search import choice_key, clearly_better

SEARCHED = frozenset(("move", "recruit", "cards"))


class LookaheadStrategy:
    """Monte Carlo rollouts of the styles' candidate plans over re-sampled hidden information (a cheap search)."""

    name = "lookahead"

    def __init__(
        self,
        budget: int = 16,
        styles: str = "greedy/seals/cards/park/economy",
        rollout: str = "greedy/seals/economy/park/cards",
        horizon: int = 0,
        discount: float = 0.99,
        base_after: int = 40,
        settle: float = 0.0,
    ) -> None:
        if budget < 1:
            raise ValueError("budget must be at least 1 rollout per decision")
        self.budget = budget
        self.horizon = horizon
        self.settle = check_settle(settle)
        self.discount = discount
        self.base_after = base_after  # from this round on the base style alone plays (see the module docstring)
        # "/" separates the styles: "," already separates a spec's parameters.
        self.candidates_from = [load_strategy(s) for s in styles.split("/") if s]
        if not self.candidates_from:
            raise ValueError("styles must name at least one strategy, e.g. greedy/seals")
        self.base = self.candidates_from[0]
        self.rollout_spec = rollout
        # "/" separates several rollout strategies: each rollout deals one to every seat (the first is the base).
        self._rollouts = [load_strategy(r) for r in rollout.split("/") if r]
        if not self._rollouts:
            raise ValueError("rollout must name at least one strategy, e.g. greedy")
        self._rollout = self._rollouts[0]

    def choose(self, view: PlayerView, decision: rules.Decision) -> object:
        first = self.base.choose(view, decision)
        if decision.kind not in SEARCHED or view.round >= self.base_after:
            return first
        candidates = [first]
        keys = [choice_key(first)]
        for strategy in self.candidates_from[1:]:
            choice = strategy.choose(view, decision)
            k = choice_key(choice)
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
        rewards: list[list[float]] = [[] for _ in candidates]
        seat = view.seat
        start = view.round
        for _ in range(samples):
            sampled = view.sample_state(rng)
            policies = deal_policies(self._rollouts, sampled.n, rng)  # the same for every candidate
            for i, choice in enumerate(candidates):
                state = sampled.copy()
                try:
                    rules.apply(state, choice)
                except rules.IllegalChoice:
                    rewards[i].append(-1.0)
                    continue
                rewards[i].append(
                    rollout_reward(state, policies, seat, start, self.horizon, self.discount, self.settle)
                )
        return clearly_better(rewards)


def rollout_reward(
    state: GameState, policies: list, seat: int, start: int, horizon: int, discount: float, settle: float = 0.0
) -> float:
    """Play ``state`` on with ``policies[seat]`` for every seat (the core's rollout loop) to the end, or ``horizon``
    rounds, or with ``settle`` above 0 a round where one seat's win is as good as known (its leaf-value chance above
    ``1 - settle``: the rest is not played); its worth to ``seat`` in [0, 1] (``PrTurns.reward``: 0.7 for a win, 0.3
    for a logistic of the score margin) times ``discount`` per round from round ``start`` to the game's end (for a
    settled game, its expected end)."""
    until = state.round + horizon if horizon > 0 else 1 << 30
    left = loop.play_out(state, policies, PR_TURNS, until, settle)
    if left >= 0.0:
        return PR_TURNS.settled_reward(state, seat) * discount ** (state.round - start + left)
    return PR_TURNS.reward(state, seat) * discount ** (state.round - start)


def check_settle(settle: float) -> float:
    """``settle``, the win chance short of certainty at which a rollout stops (0: never), checked."""
    if not 0.0 <= settle < 0.5:
        raise ValueError(f"settle must be from 0 (play every rollout out) to below 0.5, got {settle}")
    return float(settle)


def deal_policies(rollouts: list, n: int, rng: random.Random) -> list:
    """A rollout strategy for each seat, drawn from ``rollouts``: a mixture of players, so that the search does not
    exploit the quirks of one deterministic opponent model (a rollout by greedy alone plays one fixed continuation,
    and a search over it finds the choices that happen to suit that continuation)."""
    if len(rollouts) == 1:
        return [rollouts[0]] * n
    return [rng.choice(rollouts) for _ in range(n)]
