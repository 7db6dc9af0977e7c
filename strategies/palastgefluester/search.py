"""``search`` for Palastgeflüster: determinized Monte Carlo search over the real decisions.

Every iteration deals the hidden information anew from the view (``view.sample_state``: the cards this seat does not
know, the king pile, fresh chance for what follows), applies one of the pending decision's legal choices with the
engine's own ``apply``, and plays the game out with the rollout strategy in every seat. The choices are picked by
UCB1 over all iterations (an information-set search of depth one: the root's choices are the same in every
determinization, since they are this seat's own), and the choice played is the most visited. The reward is the
seat's win share (1, 1/k for a shared win, 0) plus ``margin`` times its points' lead over the best other seat
divided by the points to win, so a search that cannot tell wins apart still prefers the stronger position.

Parameters: ``budget`` (iterations per decision; reproducible: the view's own random stream), ``rollout``
(``heuristic`` or ``random``), ``c`` (exploration), ``margin``. A decision with a single legal choice costs nothing.
"""

from __future__ import annotations

import math

from palais_sim.games.palastgefluester.rules import Decision, apply, decision
from palais_sim.games.palastgefluester.state import PgState
from palais_sim.games.palastgefluester.view import PlayerView
from strategies.common.random_play import RandomStrategy
from strategies.palastgefluester.heuristic import HeuristicStrategy

ROLLOUTS = {"heuristic": HeuristicStrategy, "random": RandomStrategy}


class SearchStrategy:
    """Determinized Monte Carlo search: UCB1 over the real choices, rollouts by the heuristic."""

    name = "search"

    def __init__(self, budget: int = 48, rollout: str = "heuristic", c: float = 0.7, margin: float = 0.1) -> None:
        self.budget = int(budget)
        if self.budget < 1:
            raise ValueError(f"budget must be at least 1, got {self.budget}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.rollout = ROLLOUTS[rollout]()
        self.c = float(c)
        self.margin = float(margin)

    def choose(self, view: PlayerView, decision_now: Decision) -> object:
        options = view.legal_options(decision_now)
        if len(options) == 1:
            return options[0]
        rng = view.rng
        visits = [0] * len(options)
        value = [0.0] * len(options)
        for it in range(self.budget):
            if it < len(options):
                pick = it
            else:
                log_n = math.log(it)
                pick = max(
                    range(len(options)),
                    key=lambda i: value[i] / visits[i] + self.c * math.sqrt(log_n / visits[i]),
                )
            state = view.sample_state(rng)
            apply(state, options[pick])
            visits[pick] += 1
            value[pick] += self._play_out(state, view.seat)
        best = max(range(len(options)), key=lambda i: (visits[i], value[i]))
        return options[best]

    def _play_out(self, state: PgState, seat: int) -> float:
        """Play the determinized game to its end with the rollout strategy; the seat's reward."""
        limit = state.options.max_rounds
        while not state.over and state.round <= limit:
            pending = decision(state)
            apply(state, self.rollout.choose(PlayerView(state, pending.seat), pending))
        points = state.points
        win = 1.0 / len(state.winners) if seat in state.winners else 0.0
        best_other = max(p for s, p in enumerate(points) if s != seat)
        goal = state.components.points_to_win(state.n)
        return win + self.margin * (points[seat] - best_other) / goal
