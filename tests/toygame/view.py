"""The toy race's seat contract: a strategy gets a :class:`PlayerView` and the pending ``Decision`` and returns a
choice. The view holds copies (tuples), never the state, and no hidden information: not the seed, not the deck
order, not another hand beyond the cards this seat saw there with a spy card (while they stay in that hand)."""

from __future__ import annotations

import random
from typing import Protocol

from palais_sim.core.streams import decision_rng
from tests.toygame.rules import CARDS, Decision, ToyState, options_for, seat_keys


class Strategy(Protocol):
    name: str

    def choose(self, view: PlayerView, decision: Decision) -> object: ...


class PlayerView:
    """What one seat may know at a decision (seats 0-based, cards are ints: ``rules.value`` gives a card's value)."""

    __slots__ = (
        "seat", "n", "target", "max_rounds", "hand", "hand_sizes", "known_hands", "deck_size", "discards",
        "positions", "round", "current", "phase", "decisions", "_stream_key", "_rng",
    )  # fmt: skip

    def __init__(self, state: ToyState, seat: int) -> None:
        self.seat = seat
        self.n = state.n
        self.target = state.target
        self.max_rounds = state.max_rounds
        self.hand = tuple(sorted(state.hands[seat]))
        self.hand_sizes = tuple(len(h) for h in state.hands)
        bit = 1 << seat
        self.known_hands = tuple(
            () if s == seat else tuple(sorted(c for c in state.hands[s] if state.known[c] & bit))
            for s in range(state.n)
        )  # fmt: skip
        self.deck_size = len(state.deck)
        self.discards = tuple(state.discards)
        self.positions = tuple(state.positions)
        self.round = state.round
        self.current = state.current
        self.phase = state.phase
        self.decisions = state.decisions
        self._stream_key = (state.keys[seat], state.decisions)
        self._rng: random.Random | None = None

    @property
    def rng(self) -> random.Random:
        """This decision's own random stream: reproducible, independent of the deck and of the other seats."""
        if self._rng is None:
            self._rng = decision_rng(*self._stream_key)
        return self._rng

    def legal_options(self, decision: Decision) -> list[int]:
        """Every legal choice at ``decision`` (which must be this seat's)."""
        if decision.seat != self.seat:
            raise ValueError(f"decision for seat {decision.seat}, view of seat {self.seat}")
        return options_for(self.hand, decision)

    @property
    def game(self) -> str:
        return "toy"

    def sample_state(self, rng: random.Random) -> ToyState:
        """A full state consistent with this view, for search: the cards this seat cannot place dealt at random to
        the deck and to the other hands' unknown places, and a new seed and stream keys from ``rng``."""
        hands = [list(self.hand) if s == self.seat else list(self.known_hands[s]) for s in range(self.n)]
        placed = {c for hand in hands for c in hand} | set(self.discards)
        unknown = [c for c in CARDS if c not in placed]
        rng.shuffle(unknown)
        for s in range(self.n):
            while len(hands[s]) < self.hand_sizes[s]:
                hands[s].append(unknown.pop())
        known = [0] * len(CARDS)
        for s, hand in enumerate(hands):
            for c in hand:
                known[c] = 1 << s
        seed = rng.getrandbits(63)
        return ToyState(
            seed=seed, n=self.n, max_rounds=self.max_rounds, deck=unknown, hands=hands, known=known,
            discards=list(self.discards), positions=list(self.positions), plays=[0] * self.n, peeks=[0] * self.n,
            round=self.round, current=self.current, phase=self.phase, decisions=self.decisions,
            keys=seat_keys(seed, self.n), target=self.target,
        )  # fmt: skip

    def sample_option(self, decision: Decision, rng: random.Random) -> int:
        """A uniformly random legal choice at ``decision``."""
        options = self.legal_options(decision)
        return options[rng.randrange(len(options))]
