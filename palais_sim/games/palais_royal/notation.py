"""Our FEN and PGN: position files (JSON, ``palais-position/1``) and replay logs (JSON lines, ``palais-replay/1``).

A position is taken at the start of a turn; importing it and playing on gives the same game as playing on from the
exported state. A replay log holds a header (seed, options, component set and its hash, strategies, engine version),
one line per decision, and the result; ``verify_replay`` plays it back and checks every decision and the scores.
Seats are 1-based in both files.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import IO

from palais_sim import __version__
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import PARK_SIZE, ROOM_INDEX, ROOM_KEYS, LayoutError, parse_layout
from palais_sim.games.palais_royal.components import (
    CARD_KEYS,
    DEFAULT_COMPONENTS,
    POINT_CARDS,
    PRIVILEGES,
    ComponentError,
    ComponentSet,
    load_components,
)
from palais_sim.games.palais_royal.rules import FROM_SUPPLY, Decision, IllegalChoice
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.setup import PLAYER_SERVANTS, SERVANTS_PER_COLOUR, new_game
from palais_sim.games.palais_royal.state import (
    EMPTY,
    FIELDS,
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
REPLAY_FORMAT = "palais-replay/1"


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
        elif f.shape == TABLE:
            data[f.position] = [list(row) for row in value]
        elif f.shape == LIST:
            data[f.position] = list(value)
        else:
            data[f.position] = value
    return data


def _field(data: dict, key: str, where: str) -> object:
    if key not in data:
        raise NotationError(f"{where}: '{key}' is missing")
    return data[key]


def _int(value: object, where: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise NotationError(f"{where}: must be a whole number {bounds}, got {value!r}")
    return value


def _int_list(value: object, n: int, where: str) -> list[int]:
    if not isinstance(value, list) or len(value) != n:
        raise NotationError(f"{where}: must be a list of {n} whole numbers (one per seat)")
    return [_int(v, f"{where}[{i}]") for i, v in enumerate(value)]


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
        gold_limit = _int(gold_limit, f"{where}: options.gold_limit")
    return RuleOptions(
        players=n,
        layout=str(raw.get("layout", layout_code)),
        gold_limit=gold_limit,
        max_rounds=_int(raw.get("max_rounds", 100), f"{where}: options.max_rounds", 1),
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
    n = _int(_field(data, "players", where), f"{where}: players", 2, 4)
    try:
        layout = parse_layout(str(_field(data, "layout", where)))
    except LayoutError as exc:
        raise NotationError(f"{where}: layout: {exc}") from None
    options = _options(data, n, layout.code, where)
    _int(data.get("start_seat", 1), f"{where}: start_seat", 1, 1)  # seat 1 always starts (RULES.md section 3)
    game_seed = _int(data["seed"], f"{where}: seed") if data.get("seed") is not None else (seed or 0)
    try:
        state = new_game(components, options, game_seed)
    except ValueError as exc:
        raise NotationError(f"{where}: options: {exc}") from None
    state.layout = layout
    rooms = _field(data, "rooms", where)
    if not isinstance(rooms, dict) or set(rooms) != set(ROOM_KEYS):
        raise NotationError(f"{where}: rooms: must map each of {', '.join(ROOM_KEYS)} to counts per seat")
    state.rooms = [_int_list(rooms[key], n, f"{where}: rooms.{key}") for key in ROOM_KEYS]
    state.supply = _int_list(_field(data, "supply", where), n, f"{where}: supply")
    general = data.get("general_supply", [SERVANTS_PER_COLOUR - PLAYER_SERVANTS] * n)
    state.general = _int_list(general, n, f"{where}: general_supply")
    state.gold = _int_list(_field(data, "gold", where), n, f"{where}: gold")
    bank = data.get("bank")
    state.bank = None if bank is None else _int(bank, f"{where}: bank")
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
    state.current = _int(_field(data, "current_seat", where), f"{where}: current_seat", 1, n) - 1
    state.round = _int(_field(data, "round", where), f"{where}: round", 1)
    state.final_round = bool(data.get("final_round", False))
    state.turn_no = _int(data.get("turn", (state.round - 1) * n + state.current + 1), f"{where}: turn")
    state.shuffles = _int(data.get("shuffles", 0), f"{where}: shuffles")
    state.setup_seat = n
    state.recruit_log = []
    state.reset_turn()
    state.phase, state.window = PH_TURN_START, W_START
    return state


def _nobles_from(data: dict, state: GameState, components: ComponentSet, n: int, where: str) -> None:
    """Park, nobles taken (and the privileges they give), the unseen nobles."""
    index = components.noble_index
    state.park = codes = _park(_field(data, "park", where), components, n, where)
    nobles = _str_lists(_field(data, "nobles", where), n, set(index), f"{where}: nobles")
    state.nobles = [[index[i] for i in seat_nobles] for seat_nobles in nobles]
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
    state.priv = [[0] * len(PRIVILEGES) for _ in range(n)]
    for seat in range(n):
        for i in state.nobles[seat]:
            privilege = components.nobles[i].privilege
            if privilege:
                state.priv[seat][PRIV_INDEX[privilege]] += 1


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
            hands.append(_int(hand, f"{where}: hands[{s}]"))
        else:
            hands.append(_str_list(hand, known, f"{where}: hands[{s}]"))
    played = data.get("played_points", [[] for _ in range(n)])
    state.played_points = _str_lists(played, n, set(POINT_CARDS), f"{where}: played_points")
    state.discard = _str_list(_field(data, "discard", where), known, f"{where}: discard")
    deck = data.get("deck")
    seen = state.discard + [c for h in hands if isinstance(h, list) for c in h]
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
    sub_rng(state.seed, "redeal").shuffle(pool)
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
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotationError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise NotationError(f"{path}: not a text file (a position is JSON)") from None
    except OSError as exc:
        raise NotationError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise NotationError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def load_position(path: Path, seed: int | None = None) -> GameState:
    """A position file (``seed``: for the hidden information the file leaves out, if it has no seed)."""
    if Path(path).is_dir():
        raise NotationError(f"{path}: is a directory, not a position file")
    return import_position(read_json_file(path), str(path), seed)


def save_position(state: GameState, path: Path) -> None:
    Path(path).write_text(json.dumps(export_position(state), indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------- choices as JSON


def encode_choice(kind: str, choice: object) -> object:
    """A choice in JSON form: rooms by key in moves and sources, tuples as lists."""
    if kind == "move":
        return [[ROOM_KEYS[a], ROOM_KEYS[b], c] for a, b, c in choice]  # type: ignore[union-attr]
    if kind == "reinforce":
        if isinstance(choice, int):
            return [choice, []]
        count, sources = choice  # type: ignore[misc]
        return [count, [ROOM_KEYS[r] for r in sources]]
    if kind == "seals":
        king, madame, *rest = choice  # type: ignore[misc]
        return [king, madame, [ROOM_KEYS[r] for r in (rest[0] if rest else ())]]
    if kind == "recruit":
        if choice is None or isinstance(choice, int):
            return choice
        values = list(choice)  # type: ignore[call-overload]
        if len(values) == 4:
            values[3] = "supply" if values[3] == FROM_SUPPLY else ROOM_KEYS[values[3]]
        return values
    if kind == "draw":
        return choice
    return list(choice)  # type: ignore[call-overload]


def _room(key: object) -> int:
    if key not in ROOM_INDEX:
        raise IllegalChoice(f"unknown room {key!r}")
    return ROOM_INDEX[key]  # type: ignore[index]


def decode_choice(kind: str, data: object) -> object:
    try:
        if kind == "move":
            return [(_room(a), _room(b), c) for a, b, c in data]  # type: ignore[union-attr]
        if kind == "reinforce":
            count, sources = data  # type: ignore[misc]
            return (count, tuple(_room(r) for r in sources))
        if kind == "seals":
            king, madame, sources = data  # type: ignore[misc]
            return (king, madame, tuple(_room(r) for r in sources))
        if kind == "recruit":
            if data is None or isinstance(data, int):
                return data
            values = list(data)  # type: ignore[call-overload]
            if len(values) == 4:
                values[3] = FROM_SUPPLY if values[3] == "supply" else _room(values[3])
            return tuple(values)
        if kind == "draw":
            return data
        return tuple(data)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise IllegalChoice(f"malformed {kind} choice {data!r}: {exc}") from None


# ---------------------------------------------------------------------------------------------- replay logs


def result_summary(state: GameState) -> dict:
    scores = final_scores(state)
    return {
        "totals": [s.total for s in scores],
        "winners": [w + 1 for w in winners(scores)],
        "rounds": state.round,
        "finished": state.finished,
    }


class ReplayWriter:
    """Writes a replay log while a game is played (pass ``record`` as the game's observer)."""

    def __init__(self, path: Path | str | None, components: ComponentSet, options: RuleOptions, seed: int,
                 strategies: list[str], position: dict | None = None) -> None:  # fmt: skip
        self.path = Path(path) if path is not None else None
        self._lines: list[str] = []
        header = {
            "format": REPLAY_FORMAT,
            "engine_version": __version__,
            "seed": seed,
            "options": options.to_dict(),
            "components": components_ref(components),
            "strategies": strategies,
        }
        if position is not None:
            header["position"] = position  # the game was continued from this position, not set up from the seed
        self._lines.append(json.dumps(header))

    def record(self, decision: Decision, choice: object) -> None:
        line = {"seat": decision.seat + 1, "kind": decision.kind}
        if decision.kind == "cards":
            line["window"] = decision.window
        line["choice"] = encode_choice(decision.kind, choice)
        self._lines.append(json.dumps(line, separators=(", ", ": ")))

    def finish(self, result) -> None:
        state = result.final_state
        self._lines.append(json.dumps({"result": result_summary(state)}))
        if self.path is not None:
            self.write_to(self.path)

    def write_to(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("\n".join(self._lines) + "\n", encoding="utf-8")
        tmp.replace(path)

    def text(self) -> str:
        return "\n".join(self._lines) + "\n"


def read_replay(path: Path) -> tuple[dict, list[dict], dict | None]:
    """Header, decision lines and result of a replay log; errors name the file and the line."""
    if Path(path).is_dir():
        raise NotationError(f"{path}: is a directory, not a replay log")
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise NotationError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise NotationError(f"{path}: not a text file (a replay log is JSON lines)") from None
    except OSError as exc:
        raise NotationError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise NotationError(f"{path}: line {number}: not valid JSON ({exc.msg})") from None
    if not records or not isinstance(records[0][1], dict) or records[0][1].get("format") != REPLAY_FORMAT:
        raise NotationError(f"{path}: line 1: expected a header with format {REPLAY_FORMAT!r}")
    header = records[0][1]
    result = None
    decisions = []
    for number, rec in records[1:]:
        if not isinstance(rec, dict):
            raise NotationError(f"{path}: line {number}: expected a JSON object")
        if "result" in rec:
            result = rec["result"]
            continue
        for key in ("seat", "kind", "choice"):
            if key not in rec:
                raise NotationError(f"{path}: line {number}: '{key}' is missing")
        rec["_line"] = number
        decisions.append(rec)
    return header, decisions, result


def verify_replay(path: Path, out: IO[str] | None = None) -> dict:
    """Play a replay log back: every decision must be the pending one and legal, the result must match.

    Returns the replayed result summary; raises NotationError on any mismatch.
    """
    header, decisions, expected = read_replay(path)
    where = str(path)
    components = components_from_ref(header.get("components"), where)
    raw = header.get("options")
    if not isinstance(raw, dict):
        raise NotationError(f"{where}: line 1: options: must be an object")
    try:
        options = RuleOptions(**raw)
        state = new_game(components, options, _int(header.get("seed"), f"{where}: line 1: seed"))
    except (TypeError, ValueError) as exc:
        raise NotationError(f"{where}: line 1: options: {exc}") from None
    if header.get("position") is not None:
        state = import_position(header["position"], f"{where}: line 1: position")
        rules.resume_turn(state)
    for rec in decisions:
        number = rec["_line"]
        if state.over:
            raise NotationError(f"{where}: line {number}: the game is already over")
        pending = rules.decision(state)
        if pending.kind != rec["kind"] or pending.seat + 1 != rec["seat"]:
            raise NotationError(
                f"{where}: line {number}: the game waits for seat {pending.seat + 1}'s {pending.kind} decision, "
                f"the log has seat {rec['seat']}'s {rec['kind']}"
            )
        try:
            rules.apply(state, decode_choice(pending.kind, rec["choice"]))
        except IllegalChoice as exc:
            raise NotationError(f"{where}: line {number}: illegal {pending.kind} choice: {exc}") from None
    if not state.over:
        raise NotationError(f"{where}: the log ends before the game does")
    replayed = result_summary(state)
    if expected is not None and expected != replayed:
        raise NotationError(f"{where}: result: the log says {expected}, the replay gives {replayed}")
    return replayed
