"""The seat contract: the ``Strategy`` protocol and the ``PlayerView``, what one seat may know at a decision.

A strategy gets a :class:`PlayerView` and the pending :class:`~palais_sim.engine.rules.Decision` and returns a
choice. The view is built from the state's field list (``state.FIELDS``) by who may see each field: public fields
as tuples, the seat's own hand and the sizes of the others, the size of the deck, the drawn cards only for the seat
that drew them. It holds no reference to the state and nothing from which hidden information follows: not the game
seed, not the deck order, not the other hands, not the unseen nobles. Its random stream (``view.rng``) comes from a
key of this seat's own (a one-way image of the seed) and where the decision stands in the game, so a game replays
identically and a position exported at the start of a turn continues identically.
Seats are 0-based in this API.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol, runtime_checkable

from palais_sim.board import Layout
from palais_sim.components import ComponentSet
from palais_sim.engine import cards, rules, scoring
from palais_sim.engine.rules import Decision
from palais_sim.engine.state import (
    DRAWER,
    FIELDS,
    HISTORY,
    LIST,
    OWN,
    P_DIAGONAL,
    PH_OVER,
    PUBLIC,
    SIZE,
    TABLE,
    GameState,
    RuleOptions,
    seat_stream_keys,
)


@runtime_checkable
class Strategy(Protocol):
    """What the engine needs of a strategy: a name and ``choose``."""

    name: str

    def choose(self, view: PlayerView, decision: Decision) -> object:
        """Return a legal choice for ``decision`` (see ``palais_sim.engine.rules`` for the forms)."""
        ...


_PUBLIC_VALUES = tuple(f.name for f in FIELDS if f.seen == PUBLIC and f.shape not in (LIST, TABLE))
_PUBLIC_LISTS = tuple(f.name for f in FIELDS if f.seen == PUBLIC and f.shape == LIST)
_PUBLIC_TABLES = tuple(f.name for f in FIELDS if f.seen == PUBLIC and f.shape == TABLE)
_OWN = tuple((f.name, f.view or f.name) for f in FIELDS if f.seen == OWN)
_SIZES = tuple((f.name, f.view or f.name + "_size") for f in FIELDS if f.seen == SIZE)
_DRAWER = tuple(f.name for f in FIELDS if f.seen == DRAWER)
_HISTORY = tuple(f.name for f in FIELDS if f.seen == HISTORY)
VIEW_ATTRIBUTES: tuple[str, ...] = (
    *_PUBLIC_VALUES,
    *_PUBLIC_LISTS,
    *_PUBLIC_TABLES,
    *(own for _name, own in _OWN),
    *(own + "_sizes" for _name, own in _OWN),
    *(size for _name, size in _SIZES),
    *_DRAWER,
)


class PlayerView:
    """What one seat may know at a decision: the public position, its own hand, and the cards it drew.

    Attribute names match the engine state's where they mean the same thing, so the rule queries
    (``majority``, ``recruit_cost``, ...) below run the engine's own code on the view.
    """

    __slots__ = ("seat", "_stream_key", "_rng", *VIEW_ATTRIBUTES)

    components: ComponentSet
    options: RuleOptions
    layout: Layout
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    deck_size: int

    def __init__(self, state: GameState, seat: int) -> None:
        _init_view(self, state, seat)

    # ------------------------------------------------------------------ randomness for strategies
    @property
    def rng(self) -> random.Random:
        """This decision's own random stream (never use the global ``random``): reproducible, and independent of
        every chance element of the game and of the other seats' streams."""
        if self._rng is None:
            key, turn, step = self._stream_key
            self._rng = random.Random(f"{key}:{turn}:{step}")
        return self._rng

    # ------------------------------------------------------------------ rule queries (engine code)
    def majority(self, room: int, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: this seat) has the majority in ``room`` now, Cardinal tie-break applied."""
        return rules.has_majority(self, self.seat if seat is None else seat, room)  # type: ignore[arg-type]

    def recruit_cost(self, field: int) -> int:
        return rules.recruit_cost(self, field)  # type: ignore[arg-type]

    def can_recruit(self, field: int, wild: int | None = None) -> bool:
        return rules.can_recruit(self, self.seat, field, self.wild if wild is None else wild)  # type: ignore[arg-type]

    def movement_points(self) -> int:
        return rules.movement_points(self, self.seat)  # type: ignore[arg-type]

    def reinforce_count(self) -> int:
        return rules.reinforce_count(self, self.seat)  # type: ignore[arg-type]

    def mint_income(self) -> int:
        return rules.mint_income(self, self.seat)  # type: ignore[arg-type]

    def draw_limit(self) -> int:
        return rules.draw_limit(self, self.seat)  # type: ignore[arg-type]

    def money(self) -> int:
        """The most gold this seat can have now: its gold plus what its gold4 cards make (the bank permitting)."""
        return cards.money(self.hand, self.components.card_prices, self.gold[self.seat], self.bank)

    def row_strengths(self) -> list[list[int]]:
        """Each seat's strength in each of the four park rows (``board.PARK_ROWS`` order; x2 fields count 2)."""
        return scoring.row_strengths(self.park, self.components.x2_fields, self.n)

    def distances(self) -> tuple[tuple[int, ...], ...]:
        """Room-to-room movement costs for this seat (diagonal moves if it has the diagonal noble)."""
        return self.layout.distances(self.priv[self.seat][P_DIAGONAL] > 0)

    def my_rooms(self) -> list[int]:
        """This seat's servants per room."""
        return [row[self.seat] for row in self.rooms]

    def noble_fields(self) -> list[int]:
        return [f for f, code in enumerate(self.park) if code >= 0]

    # ------------------------------------------------------------------ search support
    def unknown_cards(self) -> Counter:
        """The cards this seat cannot see: the deck and the other hands, as a multiset."""
        pool = Counter(self.components.deck())
        pool.subtract(self.hand)
        pool.subtract(self.discard)
        pool.subtract(self.drawn)
        pool.subtract(self.in_front)
        for played in self.played_points:
            pool.subtract(played)
        return +pool

    def sample_state(self, rng: random.Random) -> GameState:
        """A full game state consistent with this view, for search: the unknown cards dealt at random to the deck
        and the other hands, the unseen nobles being those neither in the park nor taken, and fresh chance (a new
        seed and new stream keys from ``rng``) for everything still to come."""
        unknown = list(self.unknown_cards().elements())
        rng.shuffle(unknown)
        state = GameState.__new__(GameState)
        for name in _PUBLIC_VALUES:
            setattr(state, name, getattr(self, name))
        for name in _PUBLIC_LISTS:
            setattr(state, name, list(getattr(self, name)))
        for name in _PUBLIC_TABLES:
            setattr(state, name, [list(row) for row in getattr(self, name)])
        hands: list[list[str]] = []
        for seat in range(self.n):
            if seat == self.seat:
                hands.append(list(self.hand))
            else:
                size = self.hand_sizes[seat]
                hands.append(unknown[:size])
                unknown = unknown[size:]
        state.hands = hands
        state.deck = unknown
        state.drawn = list(self.drawn)
        state.seed = rng.getrandbits(63)
        state.seat_keys = seat_stream_keys(state.seed, self.n)
        taken = {i for seat_nobles in self.nobles for i in seat_nobles}
        in_park = {code for code in self.park if code >= 0}
        state.box = [i for i in range(len(self.components.nobles)) if i not in taken and i not in in_park]
        state.over = self.phase == PH_OVER
        state.pause_at_turn = False
        for name in _HISTORY:
            setattr(state, name, [])  # the sampled game's own history starts now
        return state


def _view_builder_source() -> str:
    """The source of the function that fills a view from a state, written out from the field list.

    A view is built at every decision, so it is one straight function rather than a loop over the fields
    (``dataclasses`` builds ``__init__`` the same way); what it copies is still decided by ``FIELDS`` alone.
    """
    lines = ["def _init_view(self, state, seat):", "    self.seat = seat"]
    lines += [f"    self.{name} = state.{name}" for name in _PUBLIC_VALUES]
    lines += [f"    self.{name} = tuple(state.{name})" for name in _PUBLIC_LISTS]
    lines += [f"    self.{name} = tuple(map(tuple, state.{name}))" for name in _PUBLIC_TABLES]
    for name, own in _OWN:
        lines.append(f"    self.{own} = tuple(state.{name}[seat])")
        lines.append(f"    self.{own}_sizes = tuple(map(len, state.{name}))")
    lines += [f"    self.{size} = len(state.{name})" for name, size in _SIZES]
    lines += [f"    self.{name} = tuple(state.{name}) if seat == state.current else ()" for name in _DRAWER]
    # The key of this decision's stream: this seat's key (a one-way image of the seed), the turn and the step.
    lines += ["    self._stream_key = (state.seat_keys[seat], state.turn_no, state.step)", "    self._rng = None"]
    return "\n".join(lines) + "\n"


_namespace: dict = {}
exec(_view_builder_source(), _namespace)  # noqa: S102 - generated from FIELDS above, no outside input
_init_view = _namespace["_init_view"]


def describe_decision(decision: Decision) -> str:
    return f"{decision.kind}" + (f"({decision.window})" if decision.kind == "cards" else "")
