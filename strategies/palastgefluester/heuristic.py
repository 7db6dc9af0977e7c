"""``heuristic`` for Palastgeflüster: avoid repeats, race to six, spoil the leader, pass the turn where it hurts.

Every choice is scored from the view alone, with numeric weights in ``DEFAULTS``:

- play: the jester under the jester king gives every other player a point: ``repeat`` (negative; a repeat, which
  does the same, is offered only when every card of the hand repeats, so then every choice scores it alike);
  completing six different persons scores: ``six``; otherwise the display grows (``progress``), the hand should keep
  cards that are still safe to play (``safe``), and the card's colour decides who plays next: itself again
  (``again``, worth it only with safe cards left) or an opponent, who is worth sending the turn to when it is likely
  to be forced into a repeat (``pressure``, estimated from its display and the cards of its hand this seat knows)
  and not when it may complete six (``leader`` scales both by the opponent's points). Actions add small values:
  ``guard``, ``swap``, ``discard``, ``wizard`` when they can fix an unsafe hand, ``show`` (negative) for revealing
  the hand with the Schatzmeister.
- next (brown): the tied seat scored as above (itself included).
- swap: the Mundschenk swap that most raises this seat's safe cards (``save``) and most lowers the others' (known
  cards of their hands turned into repeats, ``spoil``, leader first).
- guard: take back the card that frees most cards of the hand; discard: the least safe card; wizard: the leader as
  partner, as many cards as are unsafe; give / partner_give: the unsafe cards first, then cards whose person is in
  the receiver's display (``poison``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from palais_sim.games.palastgefluester.components import (
    BROWN,
    HOFNARR,
    MUNDSCHENK,
    PERSONS,
    SCHATZMEISTER,
    WAECHTER,
    ZAUBERER,
    ZOFE,
)
from palais_sim.games.palastgefluester.rules import Decision
from palais_sim.games.palastgefluester.view import PlayerView


def safe_persons(hand, display_persons: set[int]) -> set[int]:
    """The persons of the hand that can be laid out without a repeat."""
    return {c % PERSONS for c in hand} - display_persons


@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicStrategy:
    """Scores every legal choice with a few weighted features of the view (see the module docstring)."""

    name = "heuristic"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "repeat": -10.0,
        "six": 12.0,
        "progress": 0.6,
        "safe": 0.8,
        "again": 1.0,
        "pressure": 4.0,
        "leader": 0.5,
        "guard": 1.0,
        "swap": 0.5,
        "discard": 0.7,
        "wizard": 0.6,
        "show": -0.4,
        "save": 1.0,
        "spoil": 1.2,
        "poison": 0.8,
    }

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """This strategy's parameters with their defaults."""
        return dict(cls.DEFAULTS)

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.DEFAULTS))
        if unknown:
            raise TypeError(f"unknown parameters {unknown}; parameters: {', '.join(self.DEFAULTS)}")
        self.w: dict[str, float] = {**self.DEFAULTS, **{k: float(v) for k, v in params.items()}}

    # ------------------------------------------------------------------ choosing
    def choose(self, view: PlayerView, decision: Decision) -> object:
        options = view.legal_options(decision)
        if len(options) == 1:
            return options[0]
        score = getattr(self, "_" + decision.kind)
        rng = view.rng
        best, best_key = options[0], None
        for option in options:
            key = (score(view, decision, option), rng.random())
            if best_key is None or key > best_key:
                best, best_key = option, key
        return best

    # ------------------------------------------------------------------ estimates
    def _turn_value(self, view: PlayerView, seat: int, my_safe: int) -> float:
        """What sending the turn to ``seat`` is worth to this seat."""
        w = self.w
        if seat == view.seat:
            return w["again"] * (1.0 if my_safe > 0 else -1.0)
        display = view.persons(seat)
        d = len(display)
        known = view.known_hands[seat]
        if any(c % PERSONS not in display for c in known):
            forced = 0.0
        else:
            forced = (d / PERSONS) ** (view.hand_sizes[seat] - len(known))
        lead = 1.0 + w["leader"] * (view.points[seat] - min(view.points))
        six_risk = (1.0 - forced) if d == view.components.different_to_end - 1 else 0.0
        return w["pressure"] * (forced - six_risk) * lead

    def _play(self, view: PlayerView, decision: Decision, card: int) -> float:
        w = self.w
        me = view.seat
        display = view.persons(me)
        person = card % PERSONS
        if person in display:
            return w["repeat"] * (1.0 + 0.2 * max(view.points))
        if len(display) + 1 >= view.components.different_to_end:  # six different before the jester (section 4)
            return w["six"]
        if person == HOFNARR and view.blocked == HOFNARR:
            return w["repeat"] * (1.0 + 0.2 * max(view.points))
        rest = list(view.hand)
        rest.remove(card)
        after = display | {person}
        safe = len(safe_persons(rest, after))
        value = w["progress"] * (len(display) + 1) + w["safe"] * safe
        colour = view.components.colour(card)
        if colour == BROWN:
            sizes = [len(d) for d in view.displays]
            sizes[me] += 1
            fewest = min(sizes)
            value += max(self._turn_value(view, s, safe) for s in range(view.n) if sizes[s] == fewest)
        else:
            value += self._turn_value(view, colour, safe)
        if person != view.blocked:
            unsafe = len(rest) - len([c for c in rest if c % PERSONS not in after])
            if person == WAECHTER and display:
                value += w["guard"]
            elif person == MUNDSCHENK and view.round_cards >= 2:
                value += w["swap"]
            elif person == ZOFE and unsafe:
                value += w["discard"]
            elif person == ZAUBERER and unsafe:
                value += w["wizard"]
            elif person == SCHATZMEISTER:
                value += w["show"]
        return value

    def _next(self, view: PlayerView, decision: Decision, seat: int) -> float:
        return self._turn_value(view, seat, len(safe_persons(view.hand, view.persons(view.seat))))

    def _swap(self, view: PlayerView, decision: Decision, option: tuple[int, int, int, int]) -> float:
        a, ca, b, cb = option
        displays = [set(view.persons(s)) for s in range(view.n)]
        before = self._swap_eval(view, displays)
        displays[a] = (displays[a] - {ca % PERSONS}) | {cb % PERSONS}
        displays[b] = (displays[b] - {cb % PERSONS}) | {ca % PERSONS}
        return self._swap_eval(view, displays) - before

    def _swap_eval(self, view: PlayerView, displays: list[set[int]]) -> float:
        w = self.w
        value = w["save"] * len(safe_persons(view.hand, displays[view.seat]))
        for s in range(view.n):
            if s != view.seat:
                blocked = sum(1 for c in view.known_hands[s] if c % PERSONS in displays[s])
                value += w["spoil"] * blocked * (1.0 + w["leader"] * view.points[s])
        return value

    def _guard(self, view: PlayerView, decision: Decision, card: int) -> float:
        display = view.persons(view.seat) - {card % PERSONS}
        return len(safe_persons((*view.hand, card), display)) + 0.01 * (card % PERSONS)

    def _discard(self, view: PlayerView, decision: Decision, card: int) -> float:
        display = view.persons(view.seat)
        person = card % PERSONS
        twins = sum(1 for c in view.hand if c % PERSONS == person)
        return (2.0 if person in display else 0.0) + (twins - 1)

    def _wizard(self, view: PlayerView, decision: Decision, option: tuple[int, int]) -> float:
        partner, count = option
        display = view.persons(view.seat)
        unsafe = sum(1 for c in view.hand if c % PERSONS in display)
        return view.points[partner] + 0.1 * len(view.displays[partner]) - abs(count - max(1, unsafe))

    def _give(self, view: PlayerView, decision: Decision, cards: tuple[int, ...]) -> float:
        mine = view.persons(view.seat)
        theirs = view.persons(decision.partner)
        kept = [c for c in view.hand if c not in cards]
        value = math.fsum(self.w["poison"] * (c % PERSONS in theirs) for c in cards)
        return value + self.w["save"] * len(safe_persons(kept, mine)) - 0.1 * sum(c % PERSONS in mine for c in kept)

    def _partner_give(self, view: PlayerView, decision: Decision, cards: tuple[int, ...]) -> float:
        """The same as ``_give``, from the partner's hand (a method, not an alias: the compiled class has none)."""
        return HeuristicStrategy._give(self, view, decision, cards)
