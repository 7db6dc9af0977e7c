"""The seat contract: what the engine of every game gives a strategy and asks of it, whatever the game.

At each decision the play loop hands the seat's strategy a view (what that seat may know, nothing more) and the
pending decision, and checks the answer. These protocols name what every game's view and decision offer: enough
for a strategy that plays any game (``strategies/common``: random play, the common search). A game's concrete
types (Palais Royal's ``PlayerView`` in ``palais_sim/games/palais_royal/view.py`` with its rule queries, its
``Decision`` with the card window and the movement points) keep these members and add their own.
"""

from __future__ import annotations

import random
from typing import Any, Protocol


class Decision(Protocol):
    """A pending decision: its kind (``"move"``, ``"play"``, ...: each game's rules list theirs) and the seat asked
    (0-based); a game's decision adds what bounds the choice."""

    kind: str
    seat: int

    @property
    def label(self) -> str:
        """The decision as errors and logs name it (Palais Royal's ``cards(move)``)."""
        ...


class PlayerView(Protocol):
    """What one seat may know at a decision, and the rule queries every game's view answers."""

    seat: int  # the seat asked, 0-based

    @property
    def game(self) -> str:
        """The game's name (``palais games``)."""
        ...

    @property
    def rng(self) -> random.Random:
        """This decision's own random stream: reproducible, independent of the game's chance and the other seats."""
        ...

    def legal_options(self, decision: Any) -> list:
        """Every legal choice at ``decision``; raises ``palais_sim.core.errors.NotListed`` where a game does not list
        them (Palais Royal's movement)."""
        ...

    def sample_option(self, decision: Any, rng: random.Random) -> object:
        """A random legal choice at ``decision`` from ``rng``."""
        ...

    def sample_state(self, rng: random.Random) -> Any:
        """A full game state consistent with this view (the hidden information dealt at random), for a search."""
        ...


class Strategy(Protocol):
    """What the engine needs of a strategy: a name and ``choose``."""

    name: str

    def choose(self, view: Any, decision: Any) -> object:
        """A legal choice for ``decision``, seen through ``view`` (the game's own view and decision types)."""
        ...


def describe_decision(decision: Decision) -> str:
    """A decision as errors and logs name it (its ``label``)."""
    return decision.label
