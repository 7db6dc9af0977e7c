"""The seam between the engine and the strategies: the Strategy protocol and the PlayerView.

A strategy gets a :class:`PlayerView` (only what its seat may know) and the pending
:class:`~palais_sim.engine.rules.Decision`, and returns a choice. The view holds copies (tuples), never a reference
to the engine's state: the deck order, the other hands and the unseen nobles are not reachable from it.
Seats are 0-based in this API.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol, runtime_checkable

from palais_sim.board import Layout
from palais_sim.components import ComponentSet
from palais_sim.engine import rules
from palais_sim.engine.rules import Decision
from palais_sim.engine.state import P_DIAGONAL, PH_OVER, GameState, RuleOptions


@runtime_checkable
class Strategy(Protocol):
    """What the engine needs of a strategy: a name and ``choose``."""

    name: str

    def choose(self, view: PlayerView, decision: Decision) -> object:
        """Return a legal choice for ``decision`` (see ``palais_sim.engine.rules`` for the forms)."""
        ...


class PlayerView:
    """What one seat may know at a decision: the public position, its own hand, and the drawn cards.

    Attribute names match the engine state's where they mean the same thing, so the rule queries
    (``majority``, ``recruit_cost``, ...) below run the engine's own code on the view.
    """

    __slots__ = (
        "seat", "current", "n", "round", "final_round", "turn_no", "seed_key",
        "components", "options", "layout",
        "rooms", "supply", "general", "gold", "bank", "park", "nobles_left", "nobles", "priv",
        "hand", "hand_sizes", "played_points", "discard", "deck_size",
        "all_maj", "free_reinforce", "extra_reinforce", "extra_move", "wild", "recruits_left",
        "drawn", "keep_max", "phase", "window", "setup_seat", "_rng",
    )  # fmt: skip

    def __init__(self, state: GameState, seat: int) -> None:
        self.seat = seat
        self.current = state.current
        self.n = state.n
        self.round = state.round
        self.final_round = state.final_round
        self.turn_no = state.turn_no
        self.seed_key = state.seed
        self.components: ComponentSet = state.components
        self.options: RuleOptions = state.options
        self.layout: Layout = state.layout
        self.rooms = tuple(map(tuple, state.rooms))  # map/tuple: PlayerView is built at every decision
        self.supply = tuple(state.supply)
        self.general = tuple(state.general)
        self.gold = tuple(state.gold)
        self.bank = state.bank
        self.park = tuple(state.park)
        self.nobles_left = state.nobles_left
        self.nobles = tuple(map(tuple, state.nobles))
        self.priv = tuple(map(tuple, state.priv))
        self.hand = tuple(state.hands[seat])
        self.hand_sizes = tuple(map(len, state.hands))
        self.played_points = tuple(map(tuple, state.played_points))
        self.discard = tuple(state.discard)
        self.deck_size = len(state.deck)
        self.all_maj = state.all_maj
        self.free_reinforce = state.free_reinforce
        self.extra_reinforce = state.extra_reinforce
        self.extra_move = state.extra_move
        self.wild = state.wild
        self.recruits_left = state.recruits_left
        self.drawn = tuple(state.drawn) if seat == state.current else ()
        self.keep_max = state.keep_max
        self.phase = state.phase
        self.window = state.window
        self.setup_seat = state.setup_seat
        self._rng: random.Random | None = None

    # ------------------------------------------------------------------ randomness for strategies
    @property
    def rng(self) -> random.Random:
        """A random stream for this decision, derived from the game seed and where the decision stands in the
        game (turn, phase, window, recruitments left), so a position exported at the start of a turn and
        imported again continues identically."""
        if self._rng is None:
            key = (
                f"{self.seed_key}:strategy:{self.turn_no}:{self.phase}:{self.window}:"
                f"{self.recruits_left}:{self.setup_seat}"
            )
            self._rng = random.Random(key)
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
        for played in self.played_points:
            pool.subtract(played)
        return +pool

    def sample_state(self, rng: random.Random) -> GameState:
        """A full game state consistent with this view: the unknown cards dealt at random to the deck and the
        other hands, the unseen nobles being those neither in the park nor taken. For search strategies."""
        unknown = list(self.unknown_cards().elements())
        rng.shuffle(unknown)
        state = GameState.__new__(GameState)
        state.components = self.components
        state.options = self.options
        state.layout = self.layout
        state.seed = rng.getrandbits(63)
        state.n = self.n
        state.rooms = [list(row) for row in self.rooms]
        state.supply = list(self.supply)
        state.general = list(self.general)
        state.gold = list(self.gold)
        state.bank = self.bank
        state.park = list(self.park)
        state.nobles_left = self.nobles_left
        state.nobles = [list(x) for x in self.nobles]
        state.priv = [list(x) for x in self.priv]
        hands: list[list[str]] = []
        for seat in range(self.n):
            if seat == self.seat:
                hands.append(list(self.hand))
            else:
                size = self.hand_sizes[seat]
                hands.append(unknown[:size])
                unknown = unknown[size:]
        state.hands = hands
        state.played_points = [list(x) for x in self.played_points]
        state.deck = unknown
        state.discard = list(self.discard)
        taken = {i for seat_nobles in self.nobles for i in seat_nobles}
        in_park = {code for code in self.park if code >= 0}
        state.box = [i for i in range(len(self.components.nobles)) if i not in taken and i not in in_park]
        state.shuffles = 0
        state.round = self.round
        state.current = self.current
        state.final_round = self.final_round
        state.finished = False
        state.over = self.phase == PH_OVER
        state.turn_no = self.turn_no
        state.phase = self.phase
        state.window = self.window
        state.setup_seat = self.setup_seat
        state.all_maj = self.all_maj
        state.free_reinforce = self.free_reinforce
        state.extra_reinforce = self.extra_reinforce
        state.extra_move = self.extra_move
        state.wild = self.wild
        state.recruits_left = self.recruits_left
        state.drawn = list(self.drawn)
        state.keep_max = self.keep_max
        state.recruit_log = []
        state.pause_at_turn = False
        return state


def describe_decision(decision: Decision) -> str:
    return f"{decision.kind}" + (f"({decision.window})" if decision.kind == "cards" else "")
