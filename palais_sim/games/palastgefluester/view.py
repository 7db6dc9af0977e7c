"""The seat contract of Palastgeflüster: the ``Strategy`` protocol and the ``PlayerView`` of one seat.

A strategy gets a :class:`PlayerView` and the pending :class:`~palais_sim.games.palastgefluester.rules.Decision`
and returns a choice (the forms are in ``rules``). The view holds copies (tuples), never the state, and nothing
from which hidden information follows: not the seed, not the draw pile's or the king pile's order, not the other
hands beyond the cards this seat knows to be there (shown by a Schatzmeister, taken back by a Wächter, or given by
this seat in a Zauberer exchange, each only while the card stays in that hand), not the cards a Zauberer's player
is giving while this seat is the partner choosing its own. Its random stream ``view.rng`` comes from a key of this
seat's own (a one-way image of the seed) and the number of decisions made so far.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import ClassVar, Protocol

from palais_sim.core.streams import decision_rng
from palais_sim.games.palastgefluester.components import PERSONS, PgComponents
from palais_sim.games.palastgefluester.rules import Decision, options_for, points_to_win
from palais_sim.games.palastgefluester.state import (
    PARTNER,
    PHASE_KINDS,
    PgOptions,
    PgState,
    RoundEnd,
    empty_state,
    seat_stream_keys,
)


class Strategy(Protocol):
    """What the engine needs of a strategy: a name and ``choose``."""

    name: str

    def choose(self, view: PlayerView, decision: Decision) -> object:
        """Return a legal choice for ``decision`` (see ``palais_sim.games.palastgefluester.rules``)."""
        ...


class PlayerView:
    """What one seat may know at a decision. Seats are 0-based; cards are ints (``components``)."""

    # A ClassVar, so the compiled class (which has no slots of its own) still lists its attributes here.
    __slots__: ClassVar[tuple[str, ...]] = (
        "seat",
        "components",
        "options",
        "n",
        "hand",
        "hand_sizes",
        "displays",
        "kings_revealed",
        "blocked",
        "king_pile_size",
        "draw_size",
        "discards_size",
        "points",
        "noted",
        "target",
        "round",
        "round_cards",
        "current",
        "phase",
        "last_card",
        "tie",
        "partner",
        "count",
        "giving",
        "known_hands",
        "known_draw",
        "known_discards",
        "round_ends",
        "plays",
        "own_replays",
        "brown_played",
        "decisions",
        "finished",
        "winners",
        "_stream_key",
        "_rng",
    )

    seat: int
    components: PgComponents
    options: PgOptions
    n: int
    hand: tuple[int, ...]  # this seat's hand, sorted
    hand_sizes: tuple[int, ...]
    displays: tuple[tuple[int, ...], ...]  # every display, in order laid out
    kings_revealed: tuple[int, ...]  # persons on the revealed king cards, the latest (blocking) last
    blocked: int  # the blocked person, or -1
    king_pile_size: int
    draw_size: int
    discards_size: int
    points: tuple[int, ...]
    noted: tuple[int, ...]
    target: int  # points to win
    round: int
    round_cards: int
    current: int  # the seat whose turn (or whose card's action) it is
    phase: str  # the pending decision's kind
    last_card: int
    tie: tuple[int, ...]
    partner: int  # the Zauberer's partner while an exchange is pending, else -1
    count: int
    giving: tuple[int, ...]  # the cards this seat gives in a pending exchange (only its own)
    known_hands: tuple[tuple[int, ...], ...]  # per seat: the cards of its hand this seat knows (own: ())
    known_draw: tuple[int, ...]  # cards this seat knows to be in the draw pile (its own Zofe discards, reshuffled)
    known_discards: tuple[int, ...]  # cards this seat knows to be in the discards (its own)
    round_ends: tuple[RoundEnd, ...]
    plays: tuple[int, ...]
    own_replays: tuple[int, ...]
    brown_played: tuple[int, ...]
    decisions: int
    finished: bool
    winners: tuple[int, ...]
    _stream_key: tuple[int, int]
    _rng: random.Random | None

    def __init__(self, state: PgState, seat: int) -> None:
        self.seat = seat
        self.components = state.components
        self.options = state.options
        n = self.n = state.n
        self.hand = tuple(sorted(state.hands[seat]))
        self.hand_sizes = tuple([len(h) for h in state.hands])
        self.displays = tuple([tuple(d) for d in state.displays])
        self.kings_revealed = tuple(state.kings_revealed)
        self.blocked = state.blocked
        self.king_pile_size = len(state.king_pile)
        self.draw_size = len(state.draw)
        self.discards_size = len(state.discards)
        self.points = tuple(state.points)
        self.noted = tuple(state.noted)
        self.target = points_to_win(state)
        self.round = state.round
        self.round_cards = state.round_cards
        self.current = state.current
        self.phase = PHASE_KINDS[state.phase]
        self.last_card = state.last_card
        self.tie = tuple(state.tie)
        self.partner = state.partner
        self.count = state.count
        self.giving = tuple(state.given) if state.phase == PARTNER and seat == state.current else ()
        bit = 1 << seat
        known = state.known
        self.known_hands = tuple(
            [() if s == seat else tuple(sorted(c for c in state.hands[s] if known[c] & bit)) for s in range(n)]
        )
        self.known_draw = tuple(sorted(c for c in state.draw if known[c] & bit))
        self.known_discards = tuple(sorted(c for c in state.discards if known[c] & bit))
        self.round_ends = tuple(state.round_ends)
        self.plays = tuple(state.plays)
        self.own_replays = tuple(state.own_replays)
        self.brown_played = tuple(state.brown_played)
        self.decisions = state.decisions
        self.finished = state.finished
        self.winners = tuple(state.winners)
        self._stream_key = (state.seat_keys[seat], state.decisions)
        self._rng = None

    # ------------------------------------------------------------------ randomness for strategies
    @property
    def rng(self) -> random.Random:
        """This decision's own random stream: reproducible, independent of the game's chance and other seats."""
        if self._rng is None:
            key, position = self._stream_key
            self._rng = decision_rng(key, position)
        return self._rng

    # ------------------------------------------------------------------ rule queries (engine code)
    def legal_options(self, decision: Decision) -> list:
        """Every legal choice at ``decision`` (which must be this seat's)."""
        if decision.seat != self.seat:
            raise ValueError(f"decision for seat {decision.seat}, view of seat {self.seat}")
        return options_for(self.hand, self.displays, self.hand_sizes, self.last_card, decision)

    @property
    def game(self) -> str:
        """The game's name (a strategy that plays any game finds the game's rules by it)."""
        return "palastgefluester"

    def sample_option(self, decision: Decision, rng: random.Random) -> object:
        """A uniformly random legal choice at ``decision``."""
        options = self.legal_options(decision)
        return options[rng.randrange(len(options))]

    def persons(self, seat: int) -> set[int]:
        """The persons in ``seat``'s display."""
        return {c % PERSONS for c in self.displays[seat]}

    # ------------------------------------------------------------------ search support
    def unknown_cards(self) -> list[int]:
        """The cards of the game whose place this seat does not know (sorted)."""
        seen = Counter(self.hand)
        for d in self.displays:
            seen.update(d)
        for h in self.known_hands:
            seen.update(h)
        seen.update(self.known_draw)
        seen.update(self.known_discards)
        return [c for c in self.components.cards_in_game(self.n) if not seen[c]]

    def sample_state(self, rng: random.Random) -> PgState:
        """A full state consistent with this view, for search: the unknown cards dealt at random to the other
        hands, the draw pile and the discards (the known ones pinned where they are), the king pile reshuffled,
        a pending Zauberer gift drawn from the giver's hand, and fresh chance (a new seed) for what follows."""
        unknown = self.unknown_cards()
        rng.shuffle(unknown)
        s = empty_state(self.options, rng.getrandbits(63), self.components)
        n = self.n
        known = s.known
        for seat in range(n):
            # A seat's hand as this view shows it, topped up to its size with unknown cards: its own hand is whole
            # unless a wrapper shows its strategy only part of it (restricted play), which the search then samples.
            hand = list(self.hand) if seat == self.seat else list(self.known_hands[seat])
            extra = self.hand_sizes[seat] - len(hand)
            hand += unknown[:extra]
            del unknown[:extra]
            if seat != self.seat:
                for c in self.known_hands[seat]:
                    known[c] |= 1 << self.seat
            for c in hand:
                known[c] |= 1 << seat
            s.hands[seat] = hand
        extra = self.discards_size - len(self.known_discards)
        s.discards = list(self.known_discards) + unknown[:extra]
        del unknown[:extra]
        draw = list(self.known_draw) + unknown
        rng.shuffle(draw)
        s.draw = draw
        for c in self.known_draw + self.known_discards:
            known[c] |= 1 << self.seat
        s.displays = [list(d) for d in self.displays]
        pile = list((Counter(self.components.kings) - Counter(self.kings_revealed)).elements())
        rng.shuffle(pile)
        s.king_pile = pile
        s.kings_revealed = list(self.kings_revealed)
        s.points = list(self.points)
        s.noted = list(self.noted)
        s.round = self.round
        s.round_cards = self.round_cards
        s.current = self.current
        s.phase = PHASE_KINDS.index(self.phase)
        s.last_card = self.last_card
        s.tie = list(self.tie)
        s.partner = self.partner
        s.count = self.count
        if s.phase == PARTNER:
            s.given = list(self.giving) if self.giving else sorted(rng.sample(s.hands[self.current], self.count))
        s.decisions = self.decisions
        s.finished = self.finished
        s.winners = list(self.winners)
        s.round_ends = list(self.round_ends)
        s.plays = list(self.plays)
        s.own_replays = list(self.own_replays)
        s.brown_played = list(self.brown_played)
        s.seat_keys = seat_stream_keys(s.seed, n)
        return s
