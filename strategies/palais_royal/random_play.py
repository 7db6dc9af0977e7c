"""``random``: a uniformly random legal choice at every decision point (a random walk for movement)."""

from __future__ import annotations

from palais_sim.games.palais_royal.options import sample_option
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.view import PlayerView


class RandomStrategy:
    """Uniformly random legal choices; the baseline every other strategy must beat."""

    name = "random"

    def choose(self, view: PlayerView, decision: Decision) -> object:
        return sample_option(view, decision, view.rng)
