"""The dynamic game state: lists and tuples of integers and card names, cheap to copy (the public fields are tuples
that copies and seat views share), no references to strategies."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from palais_sim.games.palais_royal.board import Layout
from palais_sim.games.palais_royal.components import PRIVILEGES, ComponentSet

EMPTY: Final = -1  # park field with neither noble nor servant


def servant_code(seat: int) -> int:
    """The park code of a servant of ``seat`` (seats are 0-based inside the engine)."""
    return -2 - seat


def seat_of_code(code: int) -> int:
    return -2 - code


T = TypeVar("T")


def replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``items`` with the one at ``index`` replaced: how a frozen field of the state changes (its old tuple may be
    shared by a copy or a seat view, so it is never changed in place)."""
    changed = list(items)
    changed[index] = value
    return tuple(changed)


# Phases of the decision state machine. PH_ACTION3, PH_OFFICE and PH_END_TURN are automatic steps, never pending
# between decisions; PH_DRAW is the (optional) draw at the Back entrance.
PH_SETUP: Final = 0
PH_CARDS: Final = 1
PH_REINFORCE: Final = 2
PH_MOVE: Final = 3
PH_SEALS: Final = 4
PH_RECRUIT: Final = 5
PH_KEEP: Final = 6
PH_OVER: Final = 7
PH_ACTION3: Final = 8
PH_OFFICE: Final = 9
PH_DRAW: Final = 10
PH_END_TURN: Final = 11
PH_TURN_START: Final = 12  # paused before a turn (only with ``pause_at_turn``), where positions are exported
PHASE_NAMES: Final = (
    "setup", "cards", "reinforce", "move", "seals", "recruit", "keep", "over",
    "action3", "office", "draw", "end_turn", "turn_start",
)  # fmt: skip

# Card windows: when privilege cards may be played, in turn order (which cards: ``engine.cards``).
W_START: Final = 0
W_MOVE: Final = 1
W_RECRUIT: Final = 2
W_END: Final = 3
WINDOW_NAMES: Final = ("start", "move", "recruit", "end")

# Indices into a seat's privilege counters (``state.priv[seat][P_MINT]`` is the seat's mint_plus2 nobles).
PRIV_INDEX: Final = {key: i for i, key in enumerate(PRIVILEGES)}
P_REINFORCE: Final = 0
P_MOVE: Final = 1
P_DIAGONAL: Final = 2
P_MINT: Final = 3
P_KING: Final = 4
P_MADAME: Final = 5
P_CARDS: Final = 6
P_SERV1: Final = 7
P_SERV3: Final = 8


POSITION_FIELDS: Final = (
    "components", "n", "current", "all_maj", "rooms", "park", "priv", "gold", "extra_reinforce", "extra_move",
)  # fmt: skip


class Position:
    """What the rule queries read (``rules.has_majority``, ``recruit_cost``, ...): the public fields a GameState and a
    seat's PlayerView both hold, with the same types, so the queries run the engine's own code on either. A base
    class of both rather than a protocol: the compiled build then reads these fields straight from the object
    instead of looking each up by name. Its slots are ``POSITION_FIELDS`` (``codegen`` checks them and their types
    against ``FIELDS``)."""

    __slots__ = (
        "components",
        "n",
        "current",
        "all_maj",
        "rooms",
        "park",
        "priv",
        "gold",
        "extra_reinforce",
        "extra_move",
    )

    components: ComponentSet
    n: int
    current: int
    all_maj: bool
    rooms: tuple[tuple[int, ...], ...]
    park: tuple[int, ...]
    priv: tuple[tuple[int, ...], ...]
    gold: tuple[int, ...]
    extra_reinforce: int
    extra_move: int


@dataclass(frozen=True)
class RuleOptions:
    """Rule options of RULES.md: ``layout`` is 'random', 'first-game' or a code like PMS/KGD/COB; ``start_gold``
    the gold of seat 1, 2, ... at the start (None: the rulebook's 0, 1, 2, 3)."""

    players: int = 2
    layout: str = "random"
    gold_limit: int | None = None
    max_rounds: int = 100
    # A list (from JSON) is accepted and kept as a tuple, so the options stay hashable; the annotation admits both
    # because the compiled build checks it before __post_init__ runs.
    start_gold: tuple[int, ...] | list[int] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.start_gold, list):
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
    so it is stable across processes and Python runs). The seed is formatted as an ``object``: see
    ``core.streams.decision_rng``."""
    text: object = seed
    return random.Random(f"{text}:{stream}")


# ---------------------------------------------------------------------------------------------- the state's fields
# Each field of the state is declared once, with its shape (how ``copy`` treats it), who may see it (how the seat
# view is built) and its key in a position file. A new field is one line here.

STATIC, VALUE, LIST, TABLE = "static", "value", "list", "table"  # shared / immutable / list / list of lists
# A tuple (or a tuple of tuples), replaced and never changed in place (``replace_at``): copies and seat views share
# it, so a view built at every decision copies none of it. For the public fields read at every decision.
FROZEN = "frozen"
PUBLIC = "public"  # every seat sees it
OWN = "own"  # per-seat rows: a seat sees its own row and the sizes of the others (hands)
SIZE = "size"  # nobody sees the content, everybody its size (the deck)
DRAWER = "drawer"  # only the seat to move sees it (the cards it has just drawn)
SECRET = "secret"  # nobody (the seed, the unseen nobles, the streams' keys, engine bookkeeping)
HISTORY = "history"  # public, but kept for the game's records only: a view does not carry it (it would grow every turn)
TRANSIENT = "transient"  # belongs to this object only: a copy (a search's, a view's state) starts with None


@dataclass(frozen=True)
class StateField:
    name: str
    type: str  # its annotation in the state (the view's is derived: lists become tuples)
    shape: str
    seen: str
    position: str | None = None  # key in a position file (``None``: not part of a position)
    view: str = ""  # the seat view's attribute, if not ``name`` (OWN: the own row; sizes in ``<view>_sizes``)
    note: str = ""  # a comment for the generated annotation


FIELDS: tuple[StateField, ...] = (
    # static for the game
    StateField("components", "ComponentSet", STATIC, PUBLIC, "components"),
    StateField("options", "RuleOptions", STATIC, PUBLIC, "options"),
    StateField("layout", "Layout", STATIC, PUBLIC, "layout"),
    StateField("n", "int", VALUE, PUBLIC, "players"),
    StateField("seed", "int", VALUE, SECRET, "seed"),
    StateField("seat_keys", "list[int]", LIST, SECRET, note="per seat: the key of its strategy's random streams"),
    # the castle, the supplies, the gold
    StateField("rooms", "tuple[tuple[int, ...], ...]", FROZEN, PUBLIC, "rooms", note="rooms[room][seat]"),
    StateField("supply", "tuple[int, ...]", FROZEN, PUBLIC, "supply"),
    StateField("general", "tuple[int, ...]", FROZEN, PUBLIC, "general_supply"),
    StateField("gold", "tuple[int, ...]", FROZEN, PUBLIC, "gold"),
    StateField("bank", "int | None", VALUE, PUBLIC, "bank", note="gold left in the bank with a gold limit, else None"),
    # the park and the nobles
    StateField("park", "tuple[int, ...]", VALUE, PUBLIC, "park", note="noble index >= 0, EMPTY, or servant_code(seat)"),
    StateField("nobles_left", "int", VALUE, PUBLIC),
    StateField(
        "nobles",
        "tuple[tuple[int, ...], ...]",
        FROZEN,
        PUBLIC,
        "nobles",
        note="noble indices taken, per seat, in order",
    ),
    StateField(
        "priv",
        "tuple[tuple[int, ...], ...]",
        FROZEN,
        PUBLIC,
        note="privilege counters per seat (index with P_MINT, ...)",
    ),
    StateField("box", "list[int]", LIST, SECRET, "box", note="the unseen nobles"),
    StateField(
        "recruit_log",
        "list[tuple[int, int, int, int, int, bool]]",
        LIST,
        HISTORY,
        note="seat, noble, field, round, gold paid, edge",
    ),
    # the privilege cards
    StateField("hands", "list[list[str]]", TABLE, OWN, "hands", view="hand"),
    StateField("played_points", "tuple[tuple[str, ...], ...]", FROZEN, PUBLIC, "played_points"),
    StateField("deck", "list[str]", LIST, SIZE, "deck", view="deck_size", note="top card first"),
    StateField("discard", "tuple[str, ...]", FROZEN, PUBLIC, "discard"),
    StateField(
        "in_front", "tuple[str, ...]", FROZEN, PUBLIC, note="played this turn, in front of the player until its end"
    ),
    StateField("shuffles", "int", VALUE, PUBLIC, "shuffles"),
    # where the game stands
    StateField("round", "int", VALUE, PUBLIC, "round"),
    StateField("current", "int", VALUE, PUBLIC, "current_seat"),
    StateField("final_round", "bool", VALUE, PUBLIC, "final_round"),
    StateField("finished", "bool", VALUE, PUBLIC),
    StateField("over", "bool", VALUE, PUBLIC),
    StateField("turn_no", "int", VALUE, PUBLIC, "turn"),
    StateField("step", "int", VALUE, PUBLIC, note="decisions taken in this turn: keys the strategies' streams"),
    StateField("phase", "int", VALUE, PUBLIC),
    StateField("window", "int", VALUE, PUBLIC),
    StateField("setup_seat", "int", VALUE, PUBLIC),
    # this turn only (reset by ``reset_turn``)
    StateField("all_maj", "bool", VALUE, PUBLIC),
    StateField("free_reinforce", "bool", VALUE, PUBLIC),
    StateField("extra_reinforce", "int", VALUE, PUBLIC),
    StateField("extra_move", "int", VALUE, PUBLIC),
    StateField("wild", "int", VALUE, PUBLIC),
    StateField("recruits_left", "int", VALUE, PUBLIC),
    StateField("draw_max", "int", VALUE, PUBLIC, note="cards the seat may draw at the Back entrance this turn"),
    StateField("drawn", "list[str]", LIST, DRAWER),
    StateField("keep_max", "int", VALUE, PUBLIC),
    StateField("pause_at_turn", "bool", VALUE, SECRET, note="stop in PH_TURN_START before each turn (position export)"),
    StateField("chance", "ChanceHook | None", TRANSIENT, SECRET, note="told of each chance event (chance.py)"),
)
# Called with the state just before a chance event and the event's kind (``chance.py`` names them). Off (None) in
# every game but one whose luck is measured; a copy never carries it, so a search's rollouts are not reported.
ChanceHook = Callable[["GameState", str], None]
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)


class GameState(Position):
    """Everything that changes during a game (its fields: ``FIELDS``). Seats are 0-based here; 1-based in every
    file and report."""

    # BEGIN GENERATED from state.FIELDS by `make generate` (codegen.py): do not edit by hand
    __slots__ = (
        "options",
        "layout",
        "seed",
        "seat_keys",
        "supply",
        "general",
        "bank",
        "nobles_left",
        "nobles",
        "box",
        "recruit_log",
        "hands",
        "played_points",
        "deck",
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
        "pause_at_turn",
        "chance",
    )

    options: RuleOptions
    layout: Layout
    seed: int
    seat_keys: list[int]  # per seat: the key of its strategy's random streams
    supply: tuple[int, ...]
    general: tuple[int, ...]
    bank: int | None  # gold left in the bank with a gold limit, else None
    nobles_left: int
    nobles: tuple[tuple[int, ...], ...]  # noble indices taken, per seat, in order
    box: list[int]  # the unseen nobles
    recruit_log: list[tuple[int, int, int, int, int, bool]]  # seat, noble, field, round, gold paid, edge
    hands: list[list[str]]
    played_points: tuple[tuple[str, ...], ...]
    deck: list[str]  # top card first
    discard: tuple[str, ...]
    in_front: tuple[str, ...]  # played this turn, in front of the player until its end
    shuffles: int
    round: int
    final_round: bool
    finished: bool
    over: bool
    turn_no: int
    step: int  # decisions taken in this turn: keys the strategies' streams
    phase: int
    window: int
    setup_seat: int
    free_reinforce: bool
    wild: int
    recruits_left: int
    draw_max: int  # cards the seat may draw at the Back entrance this turn
    drawn: list[str]
    keep_max: int
    pause_at_turn: bool  # stop in PH_TURN_START before each turn (position export)
    chance: ChanceHook | None  # told of each chance event (chance.py)

    def copy(self) -> GameState:
        """A deep copy of the mutable parts; static parts (components, layout, options) are shared."""
        new = GameState()
        new.components = self.components
        new.options = self.options
        new.layout = self.layout
        new.n = self.n
        new.seed = self.seed
        new.seat_keys = self.seat_keys[:]
        new.rooms = self.rooms
        new.supply = self.supply
        new.general = self.general
        new.gold = self.gold
        new.bank = self.bank
        new.park = self.park
        new.nobles_left = self.nobles_left
        new.nobles = self.nobles
        new.priv = self.priv
        new.box = self.box[:]
        new.recruit_log = self.recruit_log[:]
        new.hands = [row[:] for row in self.hands]
        new.played_points = self.played_points
        new.deck = self.deck[:]
        new.discard = self.discard
        new.in_front = self.in_front
        new.shuffles = self.shuffles
        new.round = self.round
        new.current = self.current
        new.final_round = self.final_round
        new.finished = self.finished
        new.over = self.over
        new.turn_no = self.turn_no
        new.step = self.step
        new.phase = self.phase
        new.window = self.window
        new.setup_seat = self.setup_seat
        new.all_maj = self.all_maj
        new.free_reinforce = self.free_reinforce
        new.extra_reinforce = self.extra_reinforce
        new.extra_move = self.extra_move
        new.wild = self.wild
        new.recruits_left = self.recruits_left
        new.draw_max = self.draw_max
        new.drawn = self.drawn[:]
        new.keep_max = self.keep_max
        new.pause_at_turn = self.pause_at_turn
        new.chance = None
        return new

    # END GENERATED

    def add_servants(self, room: int, seat: int, count: int) -> None:
        """``count`` more servants of ``seat`` in ``room`` (fewer if negative): a new row and a new table."""
        rooms = self.rooms
        row = rooms[room]
        self.rooms = replace_at(rooms, room, replace_at(row, seat, row[seat] + count))

    def add_supply(self, seat: int, count: int) -> None:
        """``count`` more servants in ``seat``'s supply (fewer if negative)."""
        self.supply = replace_at(self.supply, seat, self.supply[seat] + count)

    def add_gold(self, seat: int, amount: int) -> None:
        """``amount`` more gold for ``seat`` (less if negative)."""
        self.gold = replace_at(self.gold, seat, self.gold[seat] + amount)

    def set_servants(self, seat: int, counts: list[int]) -> None:
        """``seat``'s servants in every room at once (``counts[room]``); only the rows that change are new."""
        rows = list(self.rooms)
        for room in range(9):
            row = rows[room]
            if row[seat] != counts[room]:
                rows[room] = replace_at(row, seat, counts[room])
        self.rooms = tuple(rows)

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
