"""The toy race: 2 to 4 players race to 15 with hidden hands of three cards.

The deck holds 24 cards, the values 1 to 6 four times each (card ``c`` is worth ``c % 6 + 1``). Each seat is dealt
three cards face down. On its turn a seat plays a card face up and moves forward by its value; a 1 is a spy card,
and the seat then looks at another seat's hand (it knows those cards while they stay there). Then it draws the top
card of the deck, if any is left. A seat without cards passes. The game ends after the round in which a seat
reaches 15 or no seat has a card left (finished), or after ``max_rounds`` rounds (stopped, unfinished). The highest
position wins; a tie goes to the larger reserve (the values left in hand), and a tie of both is a shared win.

Decisions, seats 0-based: ``play`` (a card id from the hand) and ``peek`` (a seat among ``decision.seats``).
``apply`` checks a choice completely before it changes anything (an illegal one raises :class:`IllegalChoice`).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import NamedTuple

from palais_sim.core.errors import IllegalChoice
from palais_sim.core.streams import seat_stream_keys

VALUES = 6
COPIES = 4
HAND = 3
TARGET = 15
SPY = 1  # the value whose card lets its player look at another hand
CARDS = tuple(range(VALUES * COPIES))
PLAY, PEEK, OVER = "play", "peek", "over"


def value(card: int) -> int:
    return card % VALUES + 1


class Decision(NamedTuple):
    """A pending decision: the seat asked (0-based), its kind, and for ``peek`` the seats it may look at."""

    kind: str
    seat: int
    seats: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        return self.kind


def seat_keys(seed: int, players: int) -> tuple[int, ...]:
    """Each seat's key for its strategies' random streams: a one-way image of the seed, so a view holding its own
    key does not lead back to the seed (nor to the deck order)."""
    return tuple(seat_stream_keys(seed, players, "toy:"))


@dataclass
class ToyState:
    """A game in progress. ``known[c]`` is the bit set of the seats that know where card ``c`` is (in a hand)."""

    seed: int
    n: int
    max_rounds: int
    deck: list[int]  # face down; the top card is the last
    hands: list[list[int]]
    known: list[int]
    discards: list[int] = field(default_factory=list)  # played cards, face up, in order
    positions: list[int] = field(default_factory=list)
    plays: list[int] = field(default_factory=list)
    peeks: list[int] = field(default_factory=list)
    moves: list[tuple[int, int, int]] = field(default_factory=list)  # (round, seat, card) in order
    round: int = 1
    current: int = 0
    phase: str = PLAY
    decisions: int = 0
    finished: bool = False
    winners: list[int] = field(default_factory=list)
    keys: tuple[int, ...] = ()
    target: int = TARGET  # the rule option: the position that ends the race

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def copy(self) -> ToyState:
        return dataclasses.replace(
            self, deck=list(self.deck), hands=[list(h) for h in self.hands], known=list(self.known),
            discards=list(self.discards), positions=list(self.positions), plays=list(self.plays),
            peeks=list(self.peeks), moves=list(self.moves), winners=list(self.winners),
        )  # fmt: skip

    def reserve(self, seat: int) -> int:
        return sum(value(c) for c in self.hands[seat])


def new_game(players: int, max_rounds: int, seed: int, target: int = TARGET) -> ToyState:
    """Shuffle the deck with ``seed`` and deal every seat its hand (each seat knows its own cards)."""
    deck = list(CARDS)
    random.Random(seed).shuffle(deck)
    hands = [[deck.pop() for _ in range(HAND)] for _ in range(players)]
    known = [0] * len(CARDS)
    for seat, hand in enumerate(hands):
        for card in hand:
            known[card] = 1 << seat
    state = ToyState(
        seed=seed, n=players, max_rounds=max_rounds, deck=deck, hands=hands, known=known, target=target,
        positions=[0] * players, plays=[0] * players, peeks=[0] * players, keys=seat_keys(seed, players),
    )  # fmt: skip
    _to_next_decision(state)
    return state


def decision(state: ToyState) -> Decision:
    """The pending decision (the game must not be over)."""
    if state.phase == PEEK:
        return Decision(PEEK, state.current, tuple(s for s in range(state.n) if s != state.current))
    if state.phase == PLAY:
        return Decision(PLAY, state.current)
    raise ValueError("the game is over: no decision is pending")


def options_for(hand: tuple[int, ...] | list[int], decision: Decision) -> list[int]:
    """Every legal choice at ``decision`` given the deciding seat's hand (never empty while a decision is pending)."""
    return sorted(hand) if decision.kind == PLAY else list(decision.seats)


def apply(state: ToyState, choice: object) -> None:
    """Check ``choice`` against the pending decision, apply it, and play on to the next decision."""
    dec = decision(state)
    if type(choice) is not int or choice not in options_for(state.hands[dec.seat], dec):
        raise IllegalChoice(f"{dec.kind}: {choice!r} is not one of {options_for(state.hands[dec.seat], dec)}")
    seat = dec.seat
    state.decisions += 1
    if dec.kind == PEEK:
        for card in state.hands[choice]:
            state.known[card] |= 1 << seat
        state.peeks[seat] += 1
        _end_turn(state)
        return
    state.hands[seat].remove(choice)
    state.known[choice] = (1 << state.n) - 1  # face up: everybody knows
    state.discards.append(choice)
    state.positions[seat] += value(choice)
    state.plays[seat] += 1
    state.moves.append((state.round, seat, choice))
    if value(choice) == SPY and state.n > 1:
        state.phase = PEEK
        return
    _end_turn(state)


def _end_turn(state: ToyState) -> None:
    seat = state.current
    if state.deck:
        card = state.deck.pop()
        state.hands[seat].append(card)
        state.known[card] = 1 << seat
    state.phase = PLAY
    _advance(state)
    _to_next_decision(state)


def _advance(state: ToyState) -> None:
    """To the next seat; at the end of a round, end the game or start the next round."""
    state.current += 1
    if state.current < state.n:
        return
    state.current = 0
    if max(state.positions) >= state.target or not any(state.hands):
        _finish(state, finished=True)
    elif state.round >= state.max_rounds:
        _finish(state, finished=False)
    else:
        state.round += 1


def _to_next_decision(state: ToyState) -> None:
    """Seats without cards pass."""
    while state.phase == PLAY and not state.hands[state.current]:
        _advance(state)


def _finish(state: ToyState, finished: bool) -> None:
    state.phase = OVER
    state.finished = finished
    best = max(state.positions)
    top = [s for s in range(state.n) if state.positions[s] == best]
    most = max(state.reserve(s) for s in top)
    state.winners = [s for s in top if state.reserve(s) == most]
