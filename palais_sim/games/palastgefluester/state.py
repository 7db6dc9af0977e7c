"""Palastgeflüster's game state: rule options and a compact state of ints and lists (seats 0-based).

Card ids are ints (see ``components``). Piles are lists with their top at the end. ``known[card]`` is a bit mask of
the seats that know where that card is (a hand, the draw pile or the Zofe's discards): the owner of a hand knows it,
a Schatzmeister shows a whole hand to everyone, a card given in a Zauberer exchange is known to its giver, a Zofe's
discard and draw only to the Zofe's player. Cards in displays are public anyway. A card's mask is reset whenever it
moves in a way others cannot follow, so knowledge lasts exactly while the card stays where it was seen.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, NamedTuple

from palais_sim.core import streams
from palais_sim.games.palastgefluester.components import PgComponents, standard_pg_components

TIEBREAKS: Final = ("display", "noted")

# phases: what the pending decision is
PLAY: Final = 0
NEXT: Final = 1
SWAP: Final = 2
GUARD: Final = 3
DISCARD: Final = 4
WIZARD: Final = 5
GIVE: Final = 6
PARTNER: Final = 7
OVER: Final = 8
PHASE_KINDS: Final = ("play", "next", "swap", "guard", "discard", "wizard", "give", "partner_give", "over")

# round-end kinds
REPEAT: Final = "repeat"
SIX: Final = "six"
JESTER: Final = "jester"


@dataclass(frozen=True)
class PgOptions:
    """Rule options of a game."""

    players: int = 4
    tiebreak: str = "display"  # "display" (the rules) or "noted" (the variant)
    max_rounds: int = 200

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 3 <= self.players <= 5:
            raise ValueError(f"players must be 3, 4 or 5, got {self.players!r}")
        if self.tiebreak not in TIEBREAKS:
            raise ValueError(f"tiebreak must be 'display' or 'noted' (the variant), got {self.tiebreak!r}")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a whole number of at least 1, got {self.max_rounds!r}")

    def to_dict(self) -> dict:
        return {"players": self.players, "tiebreak": self.tiebreak, "max_rounds": self.max_rounds}

    def __reduce__(self) -> tuple:
        """Pickled by its fields, to travel to the workers (a compiled frozen dataclass needs it)."""
        return (PgOptions, (self.players, self.tiebreak, self.max_rounds))


class RoundEnd(NamedTuple):
    """One round end: the round (1-based), its kind (repeat, six, jester), the seat that ended it (0-based), the
    seats that scored a point, and the number of cards played in the round."""

    round: int
    kind: str
    seat: int
    scorers: tuple[int, ...]
    cards: int


def round_end_record(end: RoundEnd) -> dict[str, object]:
    """A round end as the game record and a position file write it (seats 1-based)."""
    return {
        "round": end.round,
        "kind": end.kind,
        "seat": end.seat + 1,
        "scorers": [s + 1 for s in end.scorers],
        "cards": end.cards,
    }


def shuffle_rng(seed: int, purpose: str, count: int) -> random.Random:
    """The random stream of one shuffle: keyed by sha256 of the seed, the purpose and the shuffle's number (the seed
    formatted as an ``object``: see ``core.streams.decision_rng``)."""
    text: object = seed
    return random.Random(hashlib.sha256(f"{text}:pg:{purpose}:{count}".encode()).digest())


def seat_stream_keys(seed: int, players: int) -> list[int]:
    """One key per seat for its strategy's random streams (the core's scheme, with this game's tag)."""
    return streams.seat_stream_keys(seed, players, "pg:")


# Called with the state just before a chance event and the event's kind (``chance.py`` names them); None in every
# game but one whose luck is measured.
ChanceHook = Callable[["PgState", str], None]


class PgState:
    """The whole position. Lists are copied by ``copy()``; tuples and the options/components are shared."""

    __slots__ = (
        "components",
        "options",
        "seed",
        "seat_keys",
        "n",
        "hands",
        "displays",
        "draw",
        "discards",
        "king_pile",
        "kings_revealed",
        "king_shuffles",
        "known",
        "points",
        "noted",
        "round",
        "round_cards",
        "current",
        "phase",
        "last_card",
        "tie",
        "partner",
        "count",
        "given",
        "shuffles",
        "decisions",
        "finished",
        "winners",
        "round_ends",
        "plays",
        "own_replays",
        "brown_played",
        "chance",
    )

    components: PgComponents
    options: PgOptions
    seed: int
    seat_keys: list[int]
    n: int
    hands: list[list[int]]  # per seat, in order received
    displays: list[list[int]]  # per seat, in order laid out
    draw: list[int]  # the draw pile, top at the end
    discards: list[int]  # the Zofe's face-down discards
    king_pile: list[int]  # persons on the face-down king cards, top at the end
    kings_revealed: list[int]  # persons on the revealed king cards, latest last (it blocks)
    king_shuffles: int  # reshuffles of the six king cards so far
    known: list[int]  # per card id: bit mask of seats knowing where it is (hand, draw pile, discards)
    points: list[int]
    noted: list[int]  # the variant's noted display counts, summed
    round: int  # 1-based
    round_cards: int  # cards played this round
    current: int  # the seat to play (or, in an action, the seat whose card it is)
    phase: int
    last_card: int  # the card just played (-1 before any)
    tie: list[int]  # NEXT: the seats tied for the fewest display cards
    partner: int  # GIVE / PARTNER: the Zauberer's partner
    count: int  # GIVE / PARTNER: the number of cards exchanged
    given: list[int]  # PARTNER: the cards the Zauberer's player gives (hidden from the partner)
    shuffles: int  # shuffles of person cards so far (deals and Zofe reshuffles)
    decisions: int  # decisions applied so far (the strategies' stream position)
    finished: bool
    winners: list[int]
    round_ends: list[RoundEnd]
    plays: list[int]  # per seat: cards played
    own_replays: list[int]  # per seat: own colour played and played again
    brown_played: list[int]
    chance: ChanceHook | None  # told of each chance event (chance.py); None: off, and a copy never carries it

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def blocked(self) -> int:
        """The person blocked by the revealed king card, or -1."""
        return self.kings_revealed[-1] if self.kings_revealed else -1

    def copy(self) -> PgState:
        s = PgState.__new__(PgState)
        s.components = self.components
        s.options = self.options
        s.seed = self.seed
        s.seat_keys = self.seat_keys[:]
        s.n = self.n
        s.hands = [h[:] for h in self.hands]
        s.displays = [d[:] for d in self.displays]
        s.draw = self.draw[:]
        s.discards = self.discards[:]
        s.king_pile = self.king_pile[:]
        s.kings_revealed = self.kings_revealed[:]
        s.king_shuffles = self.king_shuffles
        s.known = self.known[:]
        s.points = self.points[:]
        s.noted = self.noted[:]
        s.round = self.round
        s.round_cards = self.round_cards
        s.current = self.current
        s.phase = self.phase
        s.last_card = self.last_card
        s.tie = self.tie[:]
        s.partner = self.partner
        s.count = self.count
        s.given = self.given[:]
        s.shuffles = self.shuffles
        s.decisions = self.decisions
        s.finished = self.finished
        s.winners = self.winners[:]
        s.round_ends = self.round_ends[:]
        s.plays = self.plays[:]
        s.own_replays = self.own_replays[:]
        s.brown_played = self.brown_played[:]
        s.chance = None
        return s

    def location_counts(self) -> int:
        """How many card places the state holds (hands, displays, piles): the card count when consistent."""
        return (
            sum(len(h) for h in self.hands) + sum(len(d) for d in self.displays) + len(self.draw) + len(self.discards)
        )


def empty_state(options: PgOptions, seed: int, components: PgComponents | None = None) -> PgState:
    """A state with every field set and no cards dealt (``rules.new_game`` deals them)."""
    comps = components or standard_pg_components()
    n = options.players
    s = PgState.__new__(PgState)
    s.components = comps
    s.options = options
    s.seed = seed
    s.seat_keys = seat_stream_keys(seed, n)
    s.n = n
    s.hands = [[] for _ in range(n)]
    s.displays = [[] for _ in range(n)]
    s.draw = []
    s.discards = []
    s.king_pile = []
    s.kings_revealed = []
    s.king_shuffles = 0
    s.known = [0] * comps.card_count
    s.points = [0] * n
    s.noted = [0] * n
    s.round = 1
    s.round_cards = 0
    s.current = 0
    s.phase = PLAY
    s.last_card = -1
    s.tie = []
    s.partner = -1
    s.count = 0
    s.given = []
    s.shuffles = 0
    s.decisions = 0
    s.finished = False
    s.winners = []
    s.round_ends = []
    s.plays = [0] * n
    s.own_replays = [0] * n
    s.brown_played = [0] * n
    s.chance = None
    return s
