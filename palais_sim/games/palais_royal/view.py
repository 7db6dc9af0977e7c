"""The seat contract: the ``Strategy`` protocol and the ``PlayerView``, what one seat may know at a decision.

A strategy gets a :class:`PlayerView` and the pending :class:`~.rules.Decision` and returns a choice.
The view is built from the state's field list (``state.FIELDS``) by who may see each field: public fields as tuples,
the seat's own hand and the sizes of the others, the size of the deck, the drawn cards only for the seat that drew
them. It holds no reference to the state and nothing from which hidden information follows: not the game
seed, not the deck order, not the other hands, not the unseen nobles. Its random stream (``view.rng``) comes from a
key of this seat's own (a one-way image of the seed) and where the decision stands in the game, so a game replays
identically and a position exported at the start of a turn continues identically.
Seats are 0-based in this API.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol

from palais_sim.core.streams import decision_rng, seat_stream_keys, shuffle
from palais_sim.games.palais_royal import cards, options, rules, scoring
from palais_sim.games.palais_royal.board import Layout
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.state import (
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
    Position,
    RuleOptions,
)


class Strategy(Protocol):
    """What the engine needs of a strategy: a name and ``choose``."""

    name: str

    def choose(self, view: PlayerView, decision: Decision) -> object:
        """Return a legal choice for ``decision`` (see ``palais_sim.games.palais_royal.rules`` for the forms)."""
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


class PlayerView(Position):
    """What one seat may know at a decision: the public position, its own hand, and the cards it drew.

    Attribute names match the engine state's where they mean the same thing, so the rule queries
    (``majority``, ``recruit_cost``, ...) below run the engine's own code on the view.
    """

    # BEGIN GENERATED from state.FIELDS by `make generate` (codegen.py): do not edit by hand
    __slots__ = (
        "seat",
        "_stream_key",
        "_rng",
        "options",
        "layout",
        "supply",
        "general",
        "bank",
        "nobles_left",
        "nobles",
        "hand",
        "hand_sizes",
        "played_points",
        "deck_size",
        "discard",
        "in_front",
        "shuffles",
        "round",
        "final_round",
        "finished",
        "over",
        "turn_no",
        "step",
        "phase",
        "window",
        "setup_seat",
        "free_reinforce",
        "wild",
        "recruits_left",
        "draw_max",
        "drawn",
        "keep_max",
    )

    seat: int
    options: RuleOptions
    layout: Layout
    supply: tuple[int, ...]
    general: tuple[int, ...]
    bank: int | None
    nobles_left: int
    nobles: tuple[tuple[int, ...], ...]
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    played_points: tuple[tuple[str, ...], ...]
    deck_size: int
    discard: tuple[str, ...]
    in_front: tuple[str, ...]
    shuffles: int
    round: int
    final_round: bool
    finished: bool
    over: bool
    turn_no: int
    step: int
    phase: int
    window: int
    setup_seat: int
    free_reinforce: bool
    wild: int
    recruits_left: int
    draw_max: int
    drawn: tuple[str, ...]
    keep_max: int
    _stream_key: tuple[int, int, int]
    _rng: random.Random | None

    def __init__(self, state: GameState, seat: int) -> None:
        self.seat = seat
        self.components = state.components
        self.options = state.options
        self.layout = state.layout
        self.n = state.n
        self.rooms = state.rooms
        self.supply = state.supply
        self.general = state.general
        self.gold = state.gold
        self.bank = state.bank
        self.park = state.park
        self.nobles_left = state.nobles_left
        self.nobles = state.nobles
        self.priv = state.priv
        self.hand = tuple(state.hands[seat])
        self.hand_sizes = tuple([len(row) for row in state.hands])
        self.played_points = state.played_points
        self.deck_size = len(state.deck)
        self.discard = state.discard
        self.in_front = state.in_front
        self.shuffles = state.shuffles
        self.round = state.round
        self.current = state.current
        self.final_round = state.final_round
        self.finished = state.finished
        self.over = state.over
        self.turn_no = state.turn_no
        self.step = state.step
        self.phase = state.phase
        self.window = state.window
        self.setup_seat = state.setup_seat
        self.all_maj = state.all_maj
        self.free_reinforce = state.free_reinforce
        self.extra_reinforce = state.extra_reinforce
        self.extra_move = state.extra_move
        self.wild = state.wild
        self.recruits_left = state.recruits_left
        self.draw_max = state.draw_max
        self.drawn = tuple(state.drawn) if seat == state.current else ()
        self.keep_max = state.keep_max
        # This decision's stream key: this seat's key (a one-way image of the seed), the turn and the step.
        self._stream_key = (state.seat_keys[seat], state.turn_no, state.step)
        self._rng = None

    def _public_state(self) -> GameState:
        """A state holding the public fields of this view (shared or as lists); the caller sets the rest."""
        state = GameState()
        state.chance = None
        state.components = self.components
        state.options = self.options
        state.layout = self.layout
        state.n = self.n
        state.rooms = self.rooms
        state.supply = self.supply
        state.general = self.general
        state.gold = self.gold
        state.bank = self.bank
        state.park = self.park
        state.nobles_left = self.nobles_left
        state.nobles = self.nobles
        state.priv = self.priv
        state.played_points = self.played_points
        state.discard = self.discard
        state.in_front = self.in_front
        state.shuffles = self.shuffles
        state.round = self.round
        state.current = self.current
        state.final_round = self.final_round
        state.finished = self.finished
        state.over = self.over
        state.turn_no = self.turn_no
        state.step = self.step
        state.phase = self.phase
        state.window = self.window
        state.setup_seat = self.setup_seat
        state.all_maj = self.all_maj
        state.free_reinforce = self.free_reinforce
        state.extra_reinforce = self.extra_reinforce
        state.extra_move = self.extra_move
        state.wild = self.wild
        state.recruits_left = self.recruits_left
        state.draw_max = self.draw_max
        state.keep_max = self.keep_max
        return state

    # END GENERATED

    # ------------------------------------------------------------------ randomness for strategies
    @property
    def rng(self) -> random.Random:
        """This decision's own random stream (never use the global ``random``): reproducible, and independent of
        every chance element of the game and of the other seats' streams."""
        if self._rng is None:
            key, turn, step = self._stream_key
            self._rng = decision_rng(key, turn, step)
        return self._rng

    # ------------------------------------------------------------------ rule queries (engine code)
    def majority(self, room: int, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: this seat) has the majority in ``room`` now, Cardinal tie-break applied."""
        return rules.has_majority(self, self.seat if seat is None else seat, room)

    def recruit_cost(self, field: int) -> int:
        return rules.recruit_cost(self, field)

    def can_recruit(self, field: int, wild: int | None = None) -> bool:
        return rules.can_recruit(self, self.seat, field, self.wild if wild is None else wild)

    def movement_points(self) -> int:
        return rules.movement_points(self, self.seat)

    def reinforce_count(self) -> int:
        return rules.reinforce_count(self, self.seat)

    def mint_income(self) -> int:
        return rules.mint_income(self, self.seat)

    def draw_limit(self) -> int:
        return rules.draw_limit(self, self.seat)

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

    # ------------------------------------------------------------------ the choices (every game's views have these)
    @property
    def game(self) -> str:
        """The game's name (a strategy that plays any game finds the game's rules by it)."""
        return "palais-royal"

    def legal_options(self, decision: Decision) -> list:
        """Every legal choice at ``decision`` (movement is never listed: ``options`` says why)."""
        return options.legal_options(self, decision)

    def sample_option(self, decision: Decision, rng: random.Random) -> object:
        """A random legal choice at ``decision``: uniform where the choices are listed, a random walk for
        movement."""
        return options.sample_option(self, decision, rng)

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
        shuffle(rng, unknown)
        state = self._public_state()
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


def describe_decision(decision: Decision) -> str:
    return f"{decision.kind}" + (f"({decision.window})" if decision.kind == "cards" else "")
