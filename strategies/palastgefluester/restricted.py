"""``restricted`` for Palastgeflüster: a base strategy that never plays the forbidden persons while it has another
card (restricted play: the value of each person is what a player loses without it).

``RestrictedStrategy(base="heuristic", forbid="Zofe/Hofnarr")``: the base strategy chooses as usual; a play
decision is answered from the hand without the forbidden persons (the base strategy sees a view whose hand holds
only the allowed cards, so it plans with them), and only a hand of forbidden cards alone plays one of them. The
other decisions are the base strategy's. Persons are named by their id or their name (``Wächter``, ``waechter``),
case-insensitive.
"""

from __future__ import annotations

from palais_sim.games.palastgefluester.components import PERSON_IDS
from palais_sim.games.palastgefluester.rules import Decision
from palais_sim.games.palastgefluester.view import PlayerView
from strategies.palastgefluester.heuristic import HeuristicStrategy
from strategies.palastgefluester.random_play import RandomStrategy

BASES = {"heuristic": HeuristicStrategy, "random": RandomStrategy}  # the registry is not game-aware yet
_ALIASES = {"wächter": "waechter"}


def person_indices(text: str) -> frozenset[int]:
    """The persons named in ``text`` (``/`` or ``,`` separated ids or names); an unknown name is an error."""
    out = set()
    for raw in text.replace(",", "/").split("/"):
        name = raw.strip().lower()
        if not name:
            continue
        name = _ALIASES.get(name, name)
        if name not in PERSON_IDS:
            raise ValueError(f"restricted: unknown person {raw.strip()!r}; persons: {', '.join(PERSON_IDS)}")
        out.add(PERSON_IDS.index(name))
    return frozenset(out)


class RestrictedStrategy:
    """A base strategy forbidden some persons while it has another card to play."""

    name = "restricted"

    def __init__(self, base: str = "heuristic", forbid: str = "") -> None:
        if base not in BASES:
            raise ValueError(f"restricted: unknown base {base!r}; bases: {', '.join(BASES)}")
        self.base = BASES[base]()
        self.forbid = person_indices(forbid)
        if not self.forbid:
            raise ValueError("restricted needs forbid=... (persons, for example forbid=Zofe/Hofnarr)")
        self.name = f"restricted:base={base},forbid={'/'.join(PERSON_IDS[p] for p in sorted(self.forbid))}"
        self.forced = 0  # plays of a forbidden person because the hand held nothing else

    def choose(self, view: PlayerView, decision: Decision) -> object:
        if decision.kind != "play":
            return self.base.choose(view, decision)
        allowed = tuple(c for c in view.hand if c % 7 not in self.forbid)
        if not allowed:
            self.forced += 1
            return self.base.choose(view, decision)
        real = view.hand
        view.hand = allowed  # the view is this decision's own copy
        try:
            choice = self.base.choose(view, decision)
        finally:
            view.hand = real
        return choice if choice in allowed else allowed[0]
