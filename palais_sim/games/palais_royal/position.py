"""Our FEN: position files (JSON, ``palais-position/1``), and the component-set reference every file of a game holds.

A position is taken at the start of a turn; importing it and playing on gives the same game as playing on from the
exported state. Seats are 1-based in the file.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from palais_sim import __version__
from palais_sim.core.json_files import read_json_file as read_json
from palais_sim.core.streams import shuffle
from palais_sim.games.palais_royal.board import PARK_SIZE, ROOM_KEYS, LayoutError, parse_layout
from palais_sim.games.palais_royal.components import (
    CARD_KEYS,
    DEFAULT_COMPONENTS,
    POINT_CARDS,
    PRIVILEGES,
    ComponentError,
    ComponentSet,
    load_components,
)
from palais_sim.games.palais_royal.setup import PLAYER_SERVANTS, SERVANTS_PER_COLOUR, new_game
from palais_sim.games.palais_royal.state import (
    EMPTY,
    FIELDS,
    FROZEN,
    LIST,
    PH_TURN_START,
    PRIV_INDEX,
    TABLE,
    W_START,
    GameState,
    RuleOptions,
    servant_code,
    sub_rng,
)

POSITION_FORMAT = "palais-position/1"


class NotationError(ValueError):
    """A position or replay file that cannot be used: the message names the file and the field."""


# ---------------------------------------------------------------------------------------------- components reference


def components_ref(components: ComponentSet) -> dict:
    source = components.source
    return {"name": components.name, "hash": components.hash, "file": None if source == "standard" else source}


def components_from_ref(ref: object, where: str) -> ComponentSet:
    """The component set a file names: ``"standard"``, a file path, or ``{"name", "hash", "file"}`` (``file`` null
    for the standard set). The hash is checked when given."""
    if isinstance(ref, str):
        ref = {"file": None if ref == DEFAULT_COMPONENTS else ref}
    if not isinstance(ref, dict):
        raise NotationError(f"{where}: components: must be \"standard\", a file path or an object with 'file'")
    try:
        components = load_components(ref.get("file"))
    except ComponentError as exc:
        raise NotationError(f"{where}: components: {exc}") from None
    if ref.get("hash") is not None and components.hash != ref["hash"]:
        raise NotationError(
            f"{where}: components: the file was made with component set hash {ref['hash']}, "
            f"but {components.source} has hash {components.hash}"
        )
    return components


# ---------------------------------------------------------------------------------------------- positions
# A position holds every state field that has a position key (``state.FIELDS``), encoded field by field: a field
# without a codec of its own is written as it is (numbers, per-seat lists). Everything else of the state is either
# derived from those (nobles left, privileges, the seats' stream keys) or belongs to the turn in progress, which a
# position (taken at the start of a turn) does not have.


def _park_entry(state: GameState, code: int) -> str | int | None:
    if code >= 0:
        return state.components.nobles[code].id
    return None if code == EMPTY else -2 - code + 1


_ENCODE = {
    "components": lambda st, v: components_ref(v),
    "options": lambda st, v: v.to_dict(),
    "layout": lambda st, v: v.code,
    "rooms": lambda st, v: {key: list(v[i]) for i, key in enumerate(ROOM_KEYS)},
    "park": lambda st, v: [_park_entry(st, code) for code in v],
    "nobles": lambda st, v: [[st.components.nobles[i].id for i in seat] for seat in v],
    "box": lambda st, v: [st.components.nobles[i].id for i in v],
    "current": lambda st, v: v + 1,
}


def _as_lists(value: object) -> object:
    """A field's lists or tuples (of lists or tuples) as lists, as a position file writes them."""
    return [_as_lists(item) for item in value] if isinstance(value, (list, tuple)) else value


def export_position(state: GameState) -> dict:
    """The position of a state paused before a turn (or before the first turn) as a JSON-ready dict."""
    if state.phase != PH_TURN_START:
        raise NotationError("a position can only be exported at the start of a turn")
    data: dict = {"format": POSITION_FORMAT, "engine_version": __version__, "start_seat": 1}
    for f in FIELDS:
        if f.position is None:
            continue
        value = getattr(state, f.name)
        if f.name in _ENCODE:
            data[f.position] = _ENCODE[f.name](state, value)
        elif f.shape in (LIST, TABLE, FROZEN):
            data[f.position] = _as_lists(value)
        else:
            data[f.position] = value
    return data


def _field(data: dict, key: str, where: str) -> object:
    if key not in data:
        raise NotationError(f"{where}: '{key}' is missing")
    return data[key]


def whole_number(value: object, where: str, lo: int = 0, hi: int | None = None) -> int:
    """``value`` if it is a whole number from ``lo`` to ``hi`` (no bool), else a NotationError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise NotationError(f"{where}: must be a whole number {bounds}, got {value!r}")
    return value


def _int_list(value: object, n: int, where: str) -> list[int]:
    if not isinstance(value, list) or len(value) != n:
        raise NotationError(f"{where}: must be a list of {n} whole numbers (one per seat)")
    return [whole_number(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _str_list(value: object, known: set[str], where: str) -> list[str]:
    if not isinstance(value, list):
        raise NotationError(f"{where}: must be a list")
    for item in value:
        if item not in known:
            raise NotationError(f"{where}: unknown entry {item!r}")
    return list(value)


def _str_lists(value: object, n: int, known: set[str], where: str) -> list[list[str]]:
    if not isinstance(value, list) or len(value) != n:
        raise NotationError(f"{where}: must be a list of {n} lists (one per seat)")
    return [_str_list(items, known, f"{where}[{s}]") for s, items in enumerate(value)]


def _options(data: dict, n: int, layout_code: str, where: str) -> RuleOptions:
    raw = data.get("options") or {}
    if not isinstance(raw, dict):
        raise NotationError(f"{where}: options: must be an object")
    gold_limit = raw.get("gold_limit")
    if gold_limit is not None:
        gold_limit = whole_number(gold_limit, f"{where}: options.gold_limit")
    return RuleOptions(
        players=n,
        layout=str(raw.get("layout", layout_code)),
        gold_limit=gold_limit,
        max_rounds=whole_number(raw.get("max_rounds", 100), f"{where}: options.max_rounds", 1),
    )


def _park(value: object, components: ComponentSet, n: int, where: str) -> list[int]:
    index = components.noble_index
    if not isinstance(value, list) or len(value) != PARK_SIZE:
        raise NotationError(f"{where}: park: must be a list of {PARK_SIZE} entries")
    codes: list[int] = []
    for f, entry in enumerate(value):
        if entry is None:
            codes.append(EMPTY)
        elif isinstance(entry, str) and entry in index:
            codes.append(index[entry])
        elif isinstance(entry, int) and not isinstance(entry, bool) and 1 <= entry <= n:
            codes.append(servant_code(entry - 1))
        else:
            raise NotationError(f"{where}: park[{f}]: expected a noble id, null or a seat 1..{n}, got {entry!r}")
    return codes


def import_position(data: object, where: str = "position", seed: int | None = None) -> GameState:
    """A state paused before the turn of ``current_seat``; ``where`` names the file in every error.

    Written by hand, a position may leave out what a person cannot know: ``seed`` (then ``seed`` here, else 0),
    ``deck`` (the cards nobody holds are shuffled into it from the seed), another seat's hand given as its size
    (a number: dealt from those cards too), ``box`` (the nobles neither in the park nor taken), ``turn``,
    ``shuffles``, ``final_round``, ``played_points``, ``options`` and ``general_supply`` (7 each).
    """
    if not isinstance(data, dict):
        raise NotationError(f"{where}: not a JSON object")
    if data.get("format") != POSITION_FORMAT:
        raise NotationError(f"{where}: format: expected {POSITION_FORMAT!r}, got {data.get('format')!r}")
    components = components_from_ref(data.get("components", DEFAULT_COMPONENTS), where)
    n = whole_number(_field(data, "players", where), f"{where}: players", 2, 4)
    try:
        layout = parse_layout(str(_field(data, "layout", where)))
    except LayoutError as exc:
        raise NotationError(f"{where}: layout: {exc}") from None
    options = _options(data, n, layout.code, where)
    whole_number(data.get("start_seat", 1), f"{where}: start_seat", 1, 1)  # seat 1 always starts (RULES.md section 3)
    game_seed = whole_number(data["seed"], f"{where}: seed") if data.get("seed") is not None else (seed or 0)
    try:
        state = new_game(components, options, game_seed)
    except ValueError as exc:
        raise NotationError(f"{where}: options: {exc}") from None
    state.layout = layout
    rooms = _field(data, "rooms", where)
    if not isinstance(rooms, dict) or set(rooms) != set(ROOM_KEYS):
        raise NotationError(f"{where}: rooms: must map each of {', '.join(ROOM_KEYS)} to counts per seat")
    state.rooms = tuple([tuple(_int_list(rooms[key], n, f"{where}: rooms.{key}")) for key in ROOM_KEYS])
    state.supply = tuple(_int_list(_field(data, "supply", where), n, f"{where}: supply"))
    general = data.get("general_supply", [SERVANTS_PER_COLOUR - PLAYER_SERVANTS] * n)
    state.general = tuple(_int_list(general, n, f"{where}: general_supply"))
    state.gold = tuple(_int_list(_field(data, "gold", where), n, f"{where}: gold"))
    bank = data.get("bank")
    state.bank = None if bank is None else whole_number(bank, f"{where}: bank")
    if (state.bank is None) != (options.gold_limit is None):
        raise NotationError(f"{where}: bank: must be given exactly when options.gold_limit is")
    _nobles_from(data, state, components, n, where)
    _cards_from(data, state, components, n, where)
    for s in range(n):
        total = (sum(row[s] for row in state.rooms) + state.supply[s] + state.general[s]
                 + sum(1 for c in state.park if c == servant_code(s)))  # fmt: skip
        if total != SERVANTS_PER_COLOUR:
            raise NotationError(f"{where}: servants: seat {s + 1} has {total} servants in rooms, supplies and "
                                f"park; a colour has {SERVANTS_PER_COLOUR}")  # fmt: skip
    state.current = whole_number(_field(data, "current_seat", where), f"{where}: current_seat", 1, n) - 1
    state.round = whole_number(_field(data, "round", where), f"{where}: round", 1)
    state.final_round = bool(data.get("final_round", False))
    state.turn_no = whole_number(data.get("turn", (state.round - 1) * n + state.current + 1), f"{where}: turn")
    state.shuffles = whole_number(data.get("shuffles", 0), f"{where}: shuffles")
    state.setup_seat = n
    state.recruit_log = []
    state.reset_turn()
    state.phase, state.window = PH_TURN_START, W_START
    return state


def _nobles_from(data: dict, state: GameState, components: ComponentSet, n: int, where: str) -> None:
    """Park, nobles taken (and the privileges they give), the unseen nobles."""
    index = components.noble_index
    codes = _park(_field(data, "park", where), components, n, where)
    state.park = tuple(codes)
    nobles = _str_lists(_field(data, "nobles", where), n, set(index), f"{where}: nobles")
    state.nobles = tuple([tuple([index[i] for i in seat_nobles]) for seat_nobles in nobles])
    taken_or_shown = [c for c in codes if c >= 0] + [i for s in state.nobles for i in s]
    box = data.get("box")
    if box is None:
        box_idx = [i for i in range(len(components.nobles)) if i not in set(taken_or_shown)]
    else:
        box_idx = [index[b] for b in _str_list(box, set(index), f"{where}: box")]
    all_nobles = Counter(taken_or_shown + box_idx)
    twice = sorted(components.nobles[i].id for i, c in all_nobles.items() if c > 1)
    if twice:
        raise NotationError(f"{where}: nobles: {', '.join(twice)} appear more than once (park, nobles, box)")
    if len(all_nobles) != len(components.nobles):
        raise NotationError(f"{where}: nobles: park, taken and box hold {len(all_nobles)} nobles, "
                            f"the component set has {len(components.nobles)}")  # fmt: skip
    state.box = box_idx
    state.nobles_left = sum(1 for c in codes if c >= 0)
    priv = [[0] * len(PRIVILEGES) for _ in range(n)]
    for seat in range(n):
        for i in state.nobles[seat]:
            privilege = components.nobles[i].privilege
            if privilege:
                priv[seat][PRIV_INDEX[privilege]] += 1
    state.priv = tuple([tuple(row) for row in priv])


def _cards_from(data: dict, state: GameState, components: ComponentSet, n: int, where: str) -> None:
    """Hands, played point cards, discard and deck; a hand given as a size and a missing deck are dealt from the
    cards nobody holds, shuffled with the game seed."""
    known = set(CARD_KEYS)
    raw_hands = _field(data, "hands", where)
    if not isinstance(raw_hands, list) or len(raw_hands) != n:
        raise NotationError(f"{where}: hands: must be a list of {n} entries (a list of cards, or a hand size)")
    hands: list[list[str] | int] = []
    for s, hand in enumerate(raw_hands):
        if isinstance(hand, int) and not isinstance(hand, bool):
            hands.append(whole_number(hand, f"{where}: hands[{s}]"))
        else:
            hands.append(_str_list(hand, known, f"{where}: hands[{s}]"))
    played = data.get("played_points", [[] for _ in range(n)])
    state.played_points = tuple(
        [tuple(row) for row in _str_lists(played, n, set(POINT_CARDS), f"{where}: played_points")]
    )
    state.discard = tuple(_str_list(_field(data, "discard", where), known, f"{where}: discard"))
    deck = data.get("deck")
    seen = [*state.discard] + [c for h in hands if isinstance(h, list) for c in h]
    seen += [c for p in state.played_points for c in p]
    if deck is not None:
        seen += _str_list(deck, known, f"{where}: deck")
    unseen = Counter(components.deck())
    unseen.subtract(seen)
    if any(count < 0 for count in unseen.values()):
        raise NotationError(
            f"{where}: cards: deck, discard, hands and played cards must hold the set's "
            f"{len(components.deck())} cards exactly, {components.card_copies} of each kind"
        )
    pool = list((+unseen).elements())
    shuffle(sub_rng(state.seed, "redeal"), pool)
    state.hands = []
    for s, hand in enumerate(hands):
        if isinstance(hand, int):
            if hand > len(pool):
                raise NotationError(f"{where}: hands[{s}]: {hand} cards, but only {len(pool)} are not placed")
            hand, pool = pool[:hand], pool[hand:]
        state.hands.append(hand)
    if deck is None:
        state.deck = pool
    else:
        state.deck = list(deck)
        if pool:
            raise NotationError(
                f"{where}: cards: deck, discard, hands and played cards must hold the set's "
                f"{len(components.deck())} cards exactly ({len(pool)} are missing)"
            )


def read_json_file(path: Path) -> object:
    """The JSON in a position file; a bad file is a one-line NotationError naming it."""
    return read_json(path, NotationError)


def load_position(path: Path, seed: int | None = None) -> GameState:
    """A position file (``seed``: for the hidden information the file leaves out, if it has no seed)."""
    if Path(path).is_dir():
        raise NotationError(f"{path}: is a directory, not a position file")
    return import_position(read_json_file(path), str(path), seed)


def save_position(state: GameState, path: Path) -> None:
    Path(path).write_text(json.dumps(export_position(state), indent=1) + "\n", encoding="utf-8")
