"""The heuristic's parameters: their defaults, the ranges `palais tune` searches, and the class that reads them.

The base of :class:`~strategies.palais_royal.heuristic.HeuristicStrategy` (each job of the heuristic is one class in
a chain, as mypyc compiles single inheritance only: parameters, then valuation, planning, card play, decisions).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

# The heuristic's parameters and their defaults. A style changes some of them in its ``DEFAULTS``; ``parameters()``
# is what the registry reads (no signature inspection, which a compiled class does not support).
HEURISTIC_DEFAULTS: Final[dict[str, Any]] = {
    "parade": 3,
    "stairway": 5,
    "mint": 2,
    "stock": 3,
    "office": 1,
    "back": 0,
    "cardinal": 1,
    "gold_weight": 0.35,
    "seal_weight": 0.5,
    "edge_bonus": 1.0,
    "park_weight": 0.6,
    "privilege_weight": 1.0,
    "card_weight": 1.0,
    "majority_chase": True,
    # Play a movement card when at least this many servants would otherwise idle at the Gate (0: only when the card
    # makes a noble reachable this turn).
    "card_aggression": 0,
    "park_denial": 0.0,
    # Stairway servants kept near the end (the Parade ground one fewer) until the last round starts.
    "late_engine": 3,
}

# The ranges `palais tune` searches (whole numbers where the default is one); the switch majority_chase is not tuned.
TUNING_SPACE: Final[dict[str, tuple[float, float]]] = {
    "parade": (1, 5),
    "stairway": (2, 7),
    "mint": (0, 4),
    "stock": (1, 5),
    "office": (1, 2),
    "back": (0, 2),
    "cardinal": (0, 2),
    "gold_weight": (0.0, 1.0),
    "seal_weight": (0.0, 1.5),
    "edge_bonus": (0.0, 3.0),
    "park_weight": (0.0, 2.0),
    "privilege_weight": (0.0, 2.0),
    "card_weight": (0.5, 2.5),
    "card_aggression": (0, 4),
    "park_denial": (0.0, 2.0),
    "late_engine": (1, 5),
}


@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicParameters:
    """The heuristic's weights and levels as attributes, from its defaults, a style's ``DEFAULTS`` and a spec."""

    DEFAULTS: ClassVar[dict[str, Any]] = {}  # a style's own defaults, over HEURISTIC_DEFAULTS

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """This strategy's parameters with their defaults."""
        return {**HEURISTIC_DEFAULTS, **cls.DEFAULTS}

    @classmethod
    def tuning_space(cls) -> dict[str, tuple[float, float]]:
        """The numeric parameters `palais tune` searches, with their ranges."""
        return dict(TUNING_SPACE)

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(HEURISTIC_DEFAULTS))
        if unknown:
            raise TypeError(f"unknown parameters {unknown}; parameters: {', '.join(HEURISTIC_DEFAULTS)}")
        p = {**self.parameters(), **params}
        self.parade: int = int(p["parade"])
        self.stairway: int = int(p["stairway"])
        self.mint: int = int(p["mint"])
        self.stock: int = int(p["stock"])
        self.office: int = int(p["office"])
        self.back: int = int(p["back"])
        self.cardinal: int = int(p["cardinal"])
        self.gold_weight: float = float(p["gold_weight"])
        self.seal_weight: float = float(p["seal_weight"])
        self.edge_bonus: float = float(p["edge_bonus"])
        self.park_weight: float = float(p["park_weight"])
        self.privilege_weight: float = float(p["privilege_weight"])
        self.card_weight: float = float(p["card_weight"])
        self.majority_chase: bool = bool(p["majority_chase"])
        self.card_aggression: int = int(p["card_aggression"])
        self.park_denial: float = float(p["park_denial"])
        self.late_engine: int = int(p["late_engine"])
