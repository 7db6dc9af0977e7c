"""``restricted`` for Palastgeflüster: any strategy forbidden some persons, or made to play them whenever it can
(restricted play: the value of a person is what a player loses without it, or gains by always playing it).

``restricted:base=heuristic,forbid=Zofe/Hofnarr``: the base strategy chooses as usual, but a play decision is
answered from the hand without the forbidden persons (the base strategy sees a view whose hand holds only the
allowed cards, so it plans with them). A forbidden card is played only when every allowed card would end the round
against its player (a repeat, the Hofnarr under the Hofnarr king) and the forbidden card would not, or when the rules
leave nothing else: any card is a way out of a repeat, so forbidding it outright would measure the worth of one more
safe card, the same for every person, rather than the worth of the person's action and timing. (A repeat is played
only when forced, so a forbidden card whose person is new is played whenever every allowed card repeats.)
``restricted:base=heuristic,eager=Zofe``: whenever the hand holds a Zofe that can be laid out without ending the
round against its player (not a person already in its display, not the Hofnarr under the Hofnarr king), one is played
(the base strategy chooses among those cards): "whenever it can" means whenever it is not suicide, as a noble is
taken whenever it can be paid for. The other decisions are the base strategy's. A base with parameters writes
them with ``;`` for ``,``: ``base=heuristic:repeat=-8;six=10``. Persons are named by their id or their name
(``Wächter``, ``waechter``), case-insensitive.
"""

from __future__ import annotations

from palais_sim.core.games import get_game
from palais_sim.games.palastgefluester.components import HOFNARR, PERSON_IDS, PERSONS
from palais_sim.games.palastgefluester.rules import Decision
from palais_sim.games.palastgefluester.view import PlayerView
from palais_sim.registry import StrategySpecError, load_strategy

GAME_NAME = "palastgefluester"
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
            raise StrategySpecError(f"restricted: unknown person {raw.strip()!r}; persons: {', '.join(PERSON_IDS)}")
        out.add(PERSON_IDS.index(name))
    return frozenset(out)


class RestrictedStrategy:
    """Any strategy forbidden some persons (forbid=) or made to play them whenever it can (eager=)."""

    name = "restricted"

    def __init__(self, base: str = "heuristic", forbid: str = "", eager: str = "") -> None:
        self.base = load_strategy(base.replace(";", ","), get_game(GAME_NAME))
        self.forbid = person_indices(forbid)
        self.eager = person_indices(eager)
        if not self.forbid and not self.eager:
            raise StrategySpecError("restricted needs forbid=... or eager=... (persons, e.g. forbid=Zofe/Hofnarr)")
        if self.forbid & self.eager:
            both = sorted(PERSON_IDS[p] for p in self.forbid & self.eager)
            raise StrategySpecError(f"persons both forbidden and eagerly played: {', '.join(both)}")
        self.forced = 0  # plays of a forbidden person: the hand held nothing else, or nothing else safe

    def choose(self, view: PlayerView, decision: Decision) -> object:
        if decision.kind != "play":
            return self.base.choose(view, decision)
        legal = tuple(view.legal_options(decision))  # no repeat while the hand holds a new person
        safe = self._safe(view)
        if self.eager:
            wanted = tuple(c for c in legal if c % PERSONS in self.eager and safe(c))
            if wanted:
                return self._choose_from(view, decision, wanted)
        if self.forbid:
            allowed = tuple(c for c in legal if c % PERSONS not in self.forbid)
            if allowed and (any(safe(c) for c in allowed) or not any(safe(c) for c in legal)):
                return self._choose_from(view, decision, allowed)
            self.forced += 1  # nothing else, or only a forbidden card keeps the round going
            return (
                self._choose_from(view, decision, tuple(c for c in legal if safe(c)))
                if allowed
                else (self.base.choose(view, decision))
            )
        return self.base.choose(view, decision)

    @staticmethod
    def _safe(view: PlayerView):
        """Whether laying out a card does not end the round against its player: not a person already in its display,
        not the Hofnarr under the Hofnarr king unless it is the sixth different person (which scores for its player:
        six different is checked before the jester)."""
        laid_out = {c % PERSONS for c in view.displays[view.seat]}
        jester_king = view.blocked == HOFNARR and len(laid_out) + 1 < view.components.different_to_end
        return lambda c: c % PERSONS not in laid_out and not (jester_king and c % PERSONS == HOFNARR)

    def _choose_from(self, view: PlayerView, decision: Decision, cards: tuple[int, ...]) -> object:
        """The base strategy's play from ``cards`` only (it sees a hand of those cards), legal choices all of them:
        either none repeats, or the whole hand does, so the base is offered all of ``cards``."""
        real = view.hand
        view.hand = cards  # the view is this decision's own copy
        try:
            choice = self.base.choose(view, decision)
        finally:
            view.hand = real
        return choice if choice in cards else cards[0]
