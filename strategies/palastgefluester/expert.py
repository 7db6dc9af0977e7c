"""``expert`` for Palastgeflüster: a policy distilled from ``search``, the prior of a small search.

At each decision with more than one and at most ``MAX_CANDIDATES`` legal choices, ``expert`` describes every legal
choice by the move and its after-state (``expert_features``) and scores it with a policy (a small network, or a
linear score) fitted on a search's analyses: the shipped model (``expert.json`` beside this module, with its commands,
data size, seeds and held-out figures) is iteration 1 of ``palais train``: the previous policy's own games labelled
by ``search:budget=48``. Other decisions (one choice, or a Zauberer gift among dozens) are ``heuristic``'s.

The ``top`` (2) candidates the policy scores best are then raced by the common search's sequential-halving root
(``SearchStrategy.race``) with ``budget`` (4) rollouts of ``horizon`` (1) rounds (0: to the end), the policy's own
choice played unless another is clearly better; ``budget=0`` plays the policy's choice alone. At these defaults it
scores 55.3% [50.9, 59.7] against ``search:budget=16`` at about 14 times its speed (5.5 games per CPU-second at 3
players): a study level (``docs/notes/2026-11-28-iteration-one.md``).

Fair play: everything is read from the seat's view; the other hands are a determinization's.
"""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path

from palais_sim.games.palastgefluester.rules import Decision
from palais_sim.games.palastgefluester.view import PlayerView
from strategies.common.distill import LinearPolicy, best_index, check_prior_search, load_model
from strategies.common.mlp import MlpPolicy
from strategies.common.search import SearchStrategy
from strategies.palastgefluester.expert_features import FEATURES, candidate_features
from strategies.palastgefluester.heuristic import HeuristicStrategy

MODEL = Path(str(resources.files("strategies.palastgefluester").joinpath("expert.json")))
MAX_CANDIDATES = 24  # more legal choices than this (a large Zauberer gift): heuristic's choice


def load_policy(path: str | Path = MODEL) -> LinearPolicy | MlpPolicy:
    """The fitted policy at ``path`` (linear or a small network), read once per process."""
    return load_model(path, FEATURES)


class ExpertStrategy:
    """A policy over every legal choice, fitted on the search's analyses (the prior of a small race)."""

    name = "expert"
    # an expert iteration's defaults (``palais train``): its teacher (three times the first one's budget), players
    iteration_teacher = "search:budget=48"
    iteration_players = 3
    data_features = FEATURES  # what ``featurize`` records: a model may be fitted on all of them
    screen_sets: tuple[tuple[tuple[str, ...], int], ...] = ()  # every candidate's features cost the same

    def __init__(self, budget: int = 4, top: int = 2, horizon: int = 1, model: str = "") -> None:
        check_prior_search(budget, top)
        if horizon < 0:
            raise ValueError(f"horizon must be 0 (play to the end) or a number of rounds, got {horizon}")
        self.budget = int(budget)
        self.top = int(top)
        self._base = HeuristicStrategy()
        self._search = SearchStrategy(budget=max(1, self.budget), horizon=horizon, game="palastgefluester")
        self.model = model or str(MODEL)
        # read at the first decision (data generation needs none); a model named is read now: one of other features
        # is refused where the strategy is made, in one line
        self._policy: LinearPolicy | MlpPolicy | None = load_policy(model) if model else None

    @property
    def policy(self) -> LinearPolicy | MlpPolicy:
        if self._policy is None:
            self._policy = load_policy(self.model)
        return self._policy

    def featurize(
        self, view: PlayerView, decision: Decision, rng: random.Random
    ) -> tuple[list[object], list[list[float]]] | None:
        """The legal choices and their features, or ``None`` where ``heuristic`` decides alone."""
        choices = view.legal_options(decision)
        if not 1 < len(choices) <= MAX_CANDIDATES:
            return None
        return choices, candidate_features(view, decision, choices, self._base, rng)

    def choose(self, view: PlayerView, decision: Decision) -> object:
        rng = random.Random(view.rng.getrandbits(64))
        described = self.featurize(view, decision, rng)
        if described is None:
            return self._base.choose(view, decision)
        choices, rows = described
        scores = self.policy.scores(decision.kind, rows)
        if self.budget == 0:
            return choices[best_index(scores)]
        order = sorted(range(len(choices)), key=lambda i: (-scores[i], i))[: self.top]
        ranked = [choices[i] for i in order]
        return ranked[self._search.race(view, decision, ranked)]
