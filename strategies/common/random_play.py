"""``random`` for every game: a random legal choice at every decision, drawn by the game's own view (uniform over
the legal choices where the game lists them; Palais Royal's movement is a random walk), from the view's stream."""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomStrategy:
    """Random legal choices; the baseline every other strategy must beat."""

    name = "random"

    def choose(self, view: Any, decision: Any) -> object:
        return view.sample_option(decision, view.rng)
