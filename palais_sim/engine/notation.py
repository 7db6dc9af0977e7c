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
from palais_sim.board import PARK_SIZE, ROOM_INDEX, ROOM_KEYS, LayoutError, parse_layout
from palais_sim.components import CARD_KEYS, PRIVILEGES, ComponentError, ComponentSet, load_components
from palais_sim.engine import rules
from palais_sim.engine.rules import Decision, IllegalChoice
from palais_sim.engine.scoring import final_scores, winners
from palais_sim.engine.setup import SERVANTS_PER_COLOUR, new_game
from palais_sim.engine.state import EMPTY, PH_TURN_START, W_START, GameState, RuleOptions, servant_code

POSITION_FORMAT = "palais-position/1"
REPLAY_FORMAT = "palais-replay/1"


class NotationError(ValueError):
    """A position or replay file that cannot be used: the message names the file and the field."""


# ---------------------------------------------------------------------------------------------- components reference


def components_ref(components: ComponentSet) -> dict:
    source = components.source
    return {"name": components.name, "hash": components.hash, "file": None if source == "standard" else source}


def components_from_ref(ref: object, where: str) -> ComponentSet:
    if not isinstance(ref, dict) or "hash" not in ref:
        raise NotationError(f"{where}: components: must be an object with 'name', 'hash' and 'file'")
    try:
        components = load_components(ref.get("file"))
    except ComponentError as exc:
        raise NotationError(f"{where}: components: {exc}") from None
    if components.hash != ref["hash"]:
        raise NotationError(
            f"{where}: components: the file was made with component set hash {ref['hash']}, "
            f"but {components.source} has hash {components.hash}"
        )
    return components


# ---------------------------------------------------------------------------------------------- positions


def export_position(state: GameState) -> dict:
    """The position of a state paused before a turn (or before the first turn) as a JSON-ready dict."""
    if state.phase != PH_TURN_START:
        raise NotationError("a position can only be exported at the start of a turn")
    nobles = state.components.nobles
    n = state.n

    def park_entry(code: int) -> str | int | None:
        if code >= 0:
            return nobles[code].id
        if code == EMPTY:
            return None
        return -2 - code + 1

    return {
        "format": POSITION_FORMAT,
        "engine_version": __version__,
        "components": components_ref(state.components),
        "options": state.options.to_dict(),
        "seed": state.seed,
        "players": n,
        "layout": state.layout.code,
        "start_seat": 1,
        "current_seat": state.current + 1,
        "round": state.round,
        "final_round": state.final_round,
        "turn": state.turn_no,
        "rooms": {key: list(state.rooms[i]) for i, key in enumerate(ROOM_KEYS)},
        "supply": list(state.supply),
        "general_supply": list(state.general),
        "gold": list(state.gold),
        "bank": state.bank,
        "park": [park_entry(code) for code in state.park],
        "nobles": [[nobles[i].id for i in state.nobles[s]] for s in range(n)],
        "hands": [list(h) for h in state.hands],
        "played_points": [list(p) for p in state.played_points],
        "deck": list(state.deck),
        "discard": list(state.discard),
        "box": [nobles[i].id for i in state.box],
        "shuffles": state.shuffles,
    }


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


def _str_lists(value: object, n: int, known: set[str], where: str) -> list[list[str]]:
    if not isinstance(value, list) or len(value) != n:
        raise NotationError(f"{where}: must be a list of {n} lists (one per seat)")
    result = []
    for s, items in enumerate(value):
        if not isinstance(items, list):
            raise NotationError(f"{where}[{s}]: must be a list")
        for item in items:
            if item not in known:
                raise NotationError(f"{where}[{s}]: unknown entry {item!r}")
        result.append(list(items))
    return result


def import_position(data: object, where: str = "position") -> GameState:
    """A state paused before the turn of ``current_seat``; ``where`` names the file in every error."""
    if not isinstance(data, dict):
        raise NotationError(f"{where}: not a JSON object")
    if data.get("format") != POSITION_FORMAT:
        raise NotationError(f"{where}: format: expected {POSITION_FORMAT!r}, got {data.get('format')!r}")
    components = components_from_ref(_field(data, "components", where), where)
    n = _int(_field(data, "players", where), f"{where}: players", 2, 4)
    try:
        layout = parse_layout(str(_field(data, "layout", where)))
    except LayoutError as exc:
        raise NotationError(f"{where}: layout: {exc}") from None
    raw_options = data.get("options") or {}
    if not isinstance(raw_options, dict):
        raise NotationError(f"{where}: options: must be an object")
    gold_limit = raw_options.get("gold_limit")
    if gold_limit is not None:
        gold_limit = _int(gold_limit, f"{where}: options.gold_limit")
    options = RuleOptions(
        players=n,
        layout=str(raw_options.get("layout", layout.code)),
        gold_limit=gold_limit,
        max_rounds=_int(raw_options.get("max_rounds", 100), f"{where}: options.max_rounds", 1),
    )
    start_seat = _int(data.get("start_seat", 1), f"{where}: start_seat", 1, 1)
    del start_seat  # seat 1 always starts (RULES.md section 3)

    try:
        state = new_game(components, options, _int(data.get("seed", 0), f"{where}: seed"))
    except ValueError as exc:
        raise NotationError(f"{where}: options: {exc}") from None
    state.layout = layout
    rooms = _field(data, "rooms", where)
    if not isinstance(rooms, dict) or set(rooms) != set(ROOM_KEYS):
        raise NotationError(f"{where}: rooms: must map each of {', '.join(ROOM_KEYS)} to counts per seat")
    state.rooms = [_int_list(rooms[key], n, f"{where}: rooms.{key}") for key in ROOM_KEYS]
    state.supply = _int_list(_field(data, "supply", where), n, f"{where}: supply")
    state.general = _int_list(_field(data, "general_supply", where), n, f"{where}: general_supply")
    state.gold = _int_list(_field(data, "gold", where), n, f"{where}: gold")
    bank = data.get("bank")
    state.bank = None if bank is None else _int(bank, f"{where}: bank")
    if (state.bank is None) != (gold_limit is None):
        raise NotationError(f"{where}: bank: must be given exactly when options.gold_limit is")

    index = components.noble_index
    park = _field(data, "park", where)
    if not isinstance(park, list) or len(park) != PARK_SIZE:
        raise NotationError(f"{where}: park: must be a list of {PARK_SIZE} entries")
    codes: list[int] = []
    for f, entry in enumerate(park):
        if entry is None:
            codes.append(EMPTY)
        elif isinstance(entry, str) and entry in index:
            codes.append(index[entry])
        elif isinstance(entry, int) and not isinstance(entry, bool) and 1 <= entry <= n:
            codes.append(servant_code(entry - 1))
        else:
            raise NotationError(f"{where}: park[{f}]: expected a noble id, null or a seat 1..{n}, got {entry!r}")
    state.park = codes
    nobles = _str_lists(_field(data, "nobles", where), n, set(index), f"{where}: nobles")
    state.nobles = [[index[i] for i in seat_nobles] for seat_nobles in nobles]
    box = data.get("box")
    taken_or_shown = [c for c in codes if c >= 0] + [i for s in state.nobles for i in s]
    if box is None:
        box_idx = [i for i in range(len(components.nobles)) if i not in set(taken_or_shown)]
    else:
        if not isinstance(box, list) or any(b not in index for b in box):
            raise NotationError(f"{where}: box: must be a list of noble ids")
        box_idx = [index[b] for b in box]
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
                state.priv[seat][PRIVILEGES.index(privilege)] += 1

    cards = set(CARD_KEYS)
    state.hands = _str_lists(_field(data, "hands", where), n, cards, f"{where}: hands")
    state.played_points = _str_lists(data.get("played_points", [[] for _ in range(n)]), n,
                                     {"points2", "points4"}, f"{where}: played_points")  # fmt: skip
    state.deck = _str_lists([_field(data, "deck", where)], 1, cards, f"{where}: deck")[0]
    state.discard = _str_lists([_field(data, "discard", where)], 1, cards, f"{where}: discard")[0]
    card_count = Counter(state.deck + state.discard + [c for h in state.hands + state.played_points for c in h])
    if card_count != Counter(components.deck()):
        raise NotationError(
            f"{where}: cards: deck, discard, hands and played cards must hold the set's "
            f"{len(components.deck())} cards exactly, {components.card_copies} of each kind"
        )
    for seat in range(n):
        total = (sum(row[seat] for row in state.rooms) + state.supply[seat] + state.general[seat]
                 + sum(1 for c in codes if c == servant_code(seat)))  # fmt: skip
        if total != SERVANTS_PER_COLOUR:
            raise NotationError(f"{where}: servants: seat {seat + 1} has {total} servants in rooms, supplies and "
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


def read_json_file(path: Path) -> object:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotationError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise NotationError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def load_position(path: Path) -> GameState:
    return import_position(read_json_file(path), str(path))


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
        return choice if choice is None or isinstance(choice, int) else list(choice)  # type: ignore[arg-type]
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
            return data if data is None or isinstance(data, int) else tuple(data)  # type: ignore[arg-type]
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
                 strategies: list[str]) -> None:  # fmt: skip
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
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise NotationError(f"{path}: no such file") from None
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
