"""Our PGN: replay logs (JSON lines, ``palais-replay/1``) and the JSON form of a decision's choice.

A replay log holds a header (seed, options, component set and its hash, strategies, engine version), one line per
decision, and the result; ``verify_replay`` plays it back and checks every decision and the scores. A game continued
from a position holds the position in its header. Seats are 1-based.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from palais_sim import __version__
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import ROOM_INDEX, ROOM_KEYS
from palais_sim.games.palais_royal.components import ComponentSet
from palais_sim.games.palais_royal.position import (
    NotationError,
    components_from_ref,
    components_ref,
    import_position,
    whole_number,
)
from palais_sim.games.palais_royal.rules import FROM_SUPPLY, Decision, IllegalChoice
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import GameState, RuleOptions

REPLAY_FORMAT = "palais-replay/1"


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
        state = new_game(components, options, whole_number(header.get("seed"), f"{where}: line 1: seed"))
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
