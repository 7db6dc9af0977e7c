"""The dynamic game state: flat lists of integers, cheap to copy, no references to strategies."""

from __future__ import annotations

import random
from dataclasses import dataclass

from palais_sim.board import Layout
from palais_sim.components import PRIVILEGES, ComponentSet

EMPTY = -1  # park field with neither noble nor servant


def servant_code(seat: int) -> int:
    """The park code of a servant of ``seat`` (seats are 0-based inside the engine)."""
    return -2 - seat


def seat_of_code(code: int) -> int:
    return -2 - code


# Phases of the decision state machine. The last four are automatic steps, never pending between decisions.
PH_SETUP, PH_CARDS, PH_REINFORCE, PH_MOVE, PH_SEALS, PH_RECRUIT, PH_KEEP, PH_OVER = range(8)
PH_ACTION3, PH_OFFICE, PH_DRAW, PH_END_TURN = range(8, 12)
PH_TURN_START = 12  # paused before a turn (only with ``pause_at_turn``), where positions are exported
PHASE_NAMES = (
    "setup", "cards", "reinforce", "move", "seals", "recruit", "keep", "over",
    "action3", "office", "draw", "end_turn", "turn_start",
)  # fmt: skip

# Card windows: when privilege cards may be played, in turn order.
W_START, W_MOVE, W_RECRUIT, W_END = range(4)
WINDOW_NAMES = ("start", "move", "recruit", "end")
ANY_TIME = ("gold4", "points2", "points4")
WINDOW_CARDS: tuple[frozenset[str], ...] = (
    frozenset(("all_majorities", "free_reinforce", "reinforce2_move6", *ANY_TIME)),
    frozenset(("move5", "move9", *ANY_TIME)),
    frozenset(("two_seals", *ANY_TIME)),
    frozenset(ANY_TIME),
)

# Indices into a seat's privilege counters.
PRIV_INDEX = {key: i for i, key in enumerate(PRIVILEGES)}
P_REINFORCE, P_MOVE, P_DIAGONAL, P_MINT, P_KING, P_MADAME, P_CARDS, P_SERV1, P_SERV3 = range(9)


@dataclass(frozen=True)
class RuleOptions:
    """Rule options of RULES.md: ``layout`` is 'random', 'first-game' or a code like PMS/KGD/COB."""

    players: int = 2
    layout: str = "random"
    gold_limit: int | None = None
    max_rounds: int = 100

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "layout": self.layout,
            "gold_limit": self.gold_limit,
            "max_rounds": self.max_rounds,
        }


def sub_rng(seed: int, stream: str) -> random.Random:
    """An independent random stream of a game, derived from its seed and a name (string seeding uses sha512,
    so it is stable across processes and Python runs)."""
    return random.Random(f"{seed}:{stream}")


class GameState:
    """Everything that changes during a game. Seats are 0-based here; 1-based in every file and report."""

    __slots__ = (
        "components", "options", "layout", "seed", "n",
        "rooms", "supply", "general", "gold", "bank",
        "park", "nobles_left", "nobles", "priv", "hands", "played_points",
        "deck", "discard", "box", "shuffles",
        "round", "current", "final_round", "finished", "over", "turn_no",
        "phase", "window", "setup_seat",
        "all_maj", "free_reinforce", "extra_reinforce", "extra_move", "wild",
        "recruits_left", "drawn", "keep_max", "recruit_log", "pause_at_turn",
    )  # fmt: skip

    components: ComponentSet
    options: RuleOptions
    layout: Layout
    seed: int
    n: int
    rooms: list[list[int]]  # rooms[room][seat]
    supply: list[int]
    general: list[int]
    gold: list[int]
    bank: int | None  # gold left in the bank with a gold limit, else None
    park: list[int]  # noble index >= 0, EMPTY, or servant_code(seat)
    nobles_left: int
    nobles: list[list[int]]  # noble indices taken, per seat, in order
    priv: list[list[int]]  # privilege counters per seat
    hands: list[list[str]]
    played_points: list[list[str]]
    deck: list[str]  # top card first
    discard: list[str]  # oldest first
    box: list[int]  # the unseen nobles
    shuffles: int
    round: int
    current: int
    final_round: bool
    finished: bool
    over: bool
    turn_no: int
    phase: int
    window: int
    setup_seat: int
    all_maj: bool
    free_reinforce: bool
    extra_reinforce: int
    extra_move: int
    wild: int
    recruits_left: int
    drawn: list[str]
    keep_max: int
    recruit_log: list[tuple[int, int, int, int, int, bool]]  # seat, noble, field, round, gold paid, edge
    pause_at_turn: bool  # stop in PH_TURN_START before each turn (position export); resume with rules.resume_turn

    def copy(self) -> GameState:
        """A deep copy of the mutable parts; static parts (components, layout, options) are shared."""
        new = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(new, name, getattr(self, name))
        new.rooms = [row[:] for row in self.rooms]
        new.supply = self.supply[:]
        new.general = self.general[:]
        new.gold = self.gold[:]
        new.park = self.park[:]
        new.nobles = [x[:] for x in self.nobles]
        new.priv = [x[:] for x in self.priv]
        new.hands = [x[:] for x in self.hands]
        new.played_points = [x[:] for x in self.played_points]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.box = self.box[:]
        new.drawn = self.drawn[:]
        new.recruit_log = self.recruit_log[:]
        return new

    def servants_in_rooms(self, seat: int) -> int:
        return sum(row[seat] for row in self.rooms)

    def servants_in_park(self, seat: int) -> int:
        code = servant_code(seat)
        return sum(1 for f in self.park if f == code)

    def reset_turn(self) -> None:
        self.all_maj = False
        self.free_reinforce = False
        self.extra_reinforce = 0
        self.extra_move = 0
        self.wild = 0
        self.recruits_left = 0
        self.drawn = []
        self.keep_max = 0
