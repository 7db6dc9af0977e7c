"""``random`` for Palastgeflüster: a uniformly random legal choice at every decision (the baseline)."""

from __future__ import annotations

from palais_sim.games.palastgefluester.rules import Decision
from palais_sim.games.palastgefluester.view import PlayerView


class RandomStrategy:
    """Uniformly random legal choices, from the view's own random stream."""

    name = "random"

    def choose(self, view: PlayerView, decision: Decision) -> object:
        options = view.legal_options(decision)
        return options[view.rng.randrange(len(options))]
