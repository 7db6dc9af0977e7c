"""The dynamic game state: flat lists of integers, cheap to copy, no references to strategies."""

from __future__ import annotations

import hashlib
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


# Phases of the decision state machine. PH_ACTION3, PH_OFFICE and PH_END_TURN are automatic steps, never pending
# between decisions; PH_DRAW is the (optional) draw at the Back entrance.
PH_SETUP, PH_CARDS, PH_REINFORCE, PH_MOVE, PH_SEALS, PH_RECRUIT, PH_KEEP, PH_OVER = range(8)
PH_ACTION3, PH_OFFICE, PH_DRAW, PH_END_TURN = range(8, 12)
PH_TURN_START = 12  # paused before a turn (only with ``pause_at_turn``), where positions are exported
PHASE_NAMES = (
    "setup", "cards", "reinforce", "move", "seals", "recruit", "keep", "over",
    "action3", "office", "draw", "end_turn", "turn_start",
)  # fmt: skip

# Card windows: when privilege cards may be played, in turn order (which cards: ``engine.cards``).
W_START, W_MOVE, W_RECRUIT, W_END = range(4)
WINDOW_NAMES = ("start", "move", "recruit", "end")

# Indices into a seat's privilege counters (``state.priv[seat][P_MINT]`` is the seat's mint_plus2 nobles).
PRIV_INDEX = {key: i for i, key in enumerate(PRIVILEGES)}
P_REINFORCE, P_MOVE, P_DIAGONAL, P_MINT, P_KING, P_MADAME, P_CARDS, P_SERV1, P_SERV3 = range(9)


@dataclass(frozen=True)
class RuleOptions:
    """Rule options of RULES.md: ``layout`` is 'random', 'first-game' or a code like PMS/KGD/COB; ``start_gold``
    the gold of seat 1, 2, ... at the start (None: the rulebook's 0, 1, 2, 3)."""

    players: int = 2
    layout: str = "random"
    gold_limit: int | None = None
    max_rounds: int = 100
    start_gold: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.start_gold is not None:  # a list from JSON: kept as a tuple, so the options stay hashable
            object.__setattr__(self, "start_gold", tuple(self.start_gold))

    def to_dict(self) -> dict:
        data = {
            "players": self.players,
            "layout": self.layout,
            "gold_limit": self.gold_limit,
            "max_rounds": self.max_rounds,
        }
        if self.start_gold is not None:  # only when set: logs and positions of the rulebook's rules stay as they were
            data["start_gold"] = list(self.start_gold)
        return data


def sub_rng(seed: int, stream: str) -> random.Random:
    """An independent random stream of a game, derived from its seed and a name (string seeding uses sha512,
    so it is stable across processes and Python runs)."""
    return random.Random(f"{seed}:{stream}")


def seat_stream_keys(seed: int, players: int) -> list[int]:
    """One key per seat for the random streams its strategy gets: a one-way image of the game seed (sha256), so a
    strategy holding its key can neither recover the seed nor any other stream (deck, park, reshuffles, other
    seats)."""
    return [int.from_bytes(hashlib.sha256(f"{seed}:seat-stream:{s}".encode()).digest()[:8]) for s in range(players)]


# ---------------------------------------------------------------------------------------------- the state's fields
# Each field of the state is declared once, with its shape (how ``copy`` treats it), who may see it (how the seat
# view is built) and its key in a position file. A new field is one line here.

STATIC, VALUE, LIST, TABLE = "static", "value", "list", "table"  # shared / immutable / list / list of lists
PUBLIC = "public"  # every seat sees it
OWN = "own"  # per-seat rows: a seat sees its own row and the sizes of the others (hands)
SIZE = "size"  # nobody sees the content, everybody its size (the deck)
DRAWER = "drawer"  # only the seat to move sees it (the cards it has just drawn)
SECRET = "secret"  # nobody (the seed, the unseen nobles, the streams' keys, engine bookkeeping)
HISTORY = "history"  # public, but kept for the game's records only: a view does not carry it (it would grow every turn)


@dataclass(frozen=True)
class StateField:
    name: str
    shape: str
    seen: str
    position: str | None = None  # key in a position file (``None``: not part of a position)
    view: str = ""  # the seat view's attribute, if not ``name`` (OWN: the own row; sizes in ``<view>_sizes``)


FIELDS: tuple[StateField, ...] = (
    # static for the game
    StateField("components", STATIC, PUBLIC, "components"),
    StateField("options", STATIC, PUBLIC, "options"),
    StateField("layout", STATIC, PUBLIC, "layout"),
    StateField("n", VALUE, PUBLIC, "players"),
    StateField("seed", VALUE, SECRET, "seed"),
    StateField("seat_keys", LIST, SECRET),
    # the castle, the supplies, the gold
    StateField("rooms", TABLE, PUBLIC, "rooms"),
    StateField("supply", LIST, PUBLIC, "supply"),
    StateField("general", LIST, PUBLIC, "general_supply"),
    StateField("gold", LIST, PUBLIC, "gold"),
    StateField("bank", VALUE, PUBLIC, "bank"),
    # the park and the nobles
    StateField("park", LIST, PUBLIC, "park"),
    StateField("nobles_left", VALUE, PUBLIC),
    StateField("nobles", TABLE, PUBLIC, "nobles"),
    StateField("priv", TABLE, PUBLIC),
    StateField("box", LIST, SECRET, "box"),
    StateField("recruit_log", LIST, HISTORY),
    # the privilege cards
    StateField("hands", TABLE, OWN, "hands", view="hand"),
    StateField("played_points", TABLE, PUBLIC, "played_points"),
    StateField("deck", LIST, SIZE, "deck", view="deck_size"),
    StateField("discard", LIST, PUBLIC, "discard"),
    StateField("in_front", LIST, PUBLIC),
    StateField("shuffles", VALUE, PUBLIC, "shuffles"),
    # where the game stands
    StateField("round", VALUE, PUBLIC, "round"),
    StateField("current", VALUE, PUBLIC, "current_seat"),
    StateField("final_round", VALUE, PUBLIC, "final_round"),
    StateField("finished", VALUE, PUBLIC),
    StateField("over", VALUE, PUBLIC),
    StateField("turn_no", VALUE, PUBLIC, "turn"),
    StateField("step", VALUE, PUBLIC),
    StateField("phase", VALUE, PUBLIC),
    StateField("window", VALUE, PUBLIC),
    StateField("setup_seat", VALUE, PUBLIC),
    # this turn only (reset by ``reset_turn``)
    StateField("all_maj", VALUE, PUBLIC),
    StateField("free_reinforce", VALUE, PUBLIC),
    StateField("extra_reinforce", VALUE, PUBLIC),
    StateField("extra_move", VALUE, PUBLIC),
    StateField("wild", VALUE, PUBLIC),
    StateField("recruits_left", VALUE, PUBLIC),
    StateField("draw_max", VALUE, PUBLIC),
    StateField("drawn", LIST, DRAWER),
    StateField("keep_max", VALUE, PUBLIC),
    StateField("pause_at_turn", VALUE, SECRET),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
_SHARED = tuple(f.name for f in FIELDS if f.shape in (STATIC, VALUE))
_LISTS = tuple(f.name for f in FIELDS if f.shape == LIST)
_TABLES = tuple(f.name for f in FIELDS if f.shape == TABLE)


class GameState:
    """Everything that changes during a game (its fields: ``FIELDS``). Seats are 0-based here; 1-based in every
    file and report."""

    __slots__ = FIELD_NAMES

    components: ComponentSet
    options: RuleOptions
    layout: Layout
    n: int
    seed: int
    seat_keys: list[int]  # per seat: the key of its strategy's random streams (``seat_stream_keys``)
    rooms: list[list[int]]  # rooms[room][seat]
    supply: list[int]
    general: list[int]
    gold: list[int]
    bank: int | None  # gold left in the bank with a gold limit, else None
    park: list[int]  # noble index >= 0, EMPTY, or servant_code(seat)
    nobles_left: int
    nobles: list[list[int]]  # noble indices taken, per seat, in order
    priv: list[list[int]]  # privilege counters per seat (index with P_MINT, ...)
    box: list[int]  # the unseen nobles
    recruit_log: list[tuple[int, int, int, int, int, bool]]  # seat, noble, field, round, gold paid, edge
    hands: list[list[str]]
    played_points: list[list[str]]
    deck: list[str]  # top card first
    discard: list[str]  # oldest first
    in_front: list[str]  # cards played this turn that lie in front of the player until its end (all_majorities)
    shuffles: int
    round: int
    current: int
    final_round: bool
    finished: bool
    over: bool
    turn_no: int
    step: int  # decisions taken in this turn (setup: in this seat's placement); keys the strategies' streams
    phase: int
    window: int
    setup_seat: int
    all_maj: bool
    free_reinforce: bool
    extra_reinforce: int
    extra_move: int
    wild: int
    recruits_left: int
    draw_max: int  # cards the seat may draw at the Back entrance this turn
    drawn: list[str]
    keep_max: int
    pause_at_turn: bool  # stop in PH_TURN_START before each turn (position export); resume with rules.resume_turn

    def copy(self) -> GameState:
        """A deep copy of the mutable parts; static parts (components, layout, options) are shared."""
        return _copy_state(self, GameState.__new__(GameState))

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
        self.draw_max = 0
        self.drawn = []
        self.keep_max = 0
        self.step = 0


def _copy_source() -> str:
    """The source of the state copy, written out from ``FIELDS`` (one straight function: search copies states in
    its inner loop; ``dataclasses`` writes ``__init__`` the same way)."""
    lines = ["def _copy_state(old, new):"]
    lines += [f"    new.{name} = old.{name}" for name in _SHARED]
    lines += [f"    new.{name} = old.{name}[:]" for name in _LISTS]
    lines += [f"    new.{name} = [row[:] for row in old.{name}]" for name in _TABLES]
    return "\n".join(lines) + "\n    return new\n"


_namespace: dict = {}
exec(_copy_source(), _namespace)  # noqa: S102 - generated from FIELDS above, no outside input
_copy_state = _namespace["_copy_state"]
