"""``random`` for Palastgeflüster: a uniformly random legal choice at every decision (the baseline)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from palais_sim.games.palastgefluester.rules import Decision
from palais_sim.games.palastgefluester.view import PlayerView


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomStrategy:
    """Uniformly random legal choices, from the view's own random stream."""

    name = "random"

    def choose(self, view: PlayerView, decision: Decision) -> object:
        options = view.legal_options(decision)
        return options[view.rng.randrange(len(options))]
