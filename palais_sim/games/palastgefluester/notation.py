"""Positions and replay logs of Palastgeflüster (JSON-friendly dicts; seats 0-based, cards as ints).

A position is the whole state (``export_position`` / ``import_position`` round-trip exactly, so a game continued
from an imported position plays as the original would). A replay log is the starting position plus every
decision's seat, kind and choice; ``replay`` plays it back, checking every step, and returns the final state.
"""

from __future__ import annotations

from palais_sim.games.palastgefluester.components import PgComponents, standard_pg_components
from palais_sim.games.palastgefluester.rules import Decision, IllegalChoice, apply, decision
from palais_sim.games.palastgefluester.state import PHASE_KINDS, PgOptions, PgState, RoundEnd, empty_state

POSITION_FORMAT = "palastgefluester-position/1"
REPLAY_FORMAT = "palastgefluester-replay/1"

_LISTS = ("seat_keys", "draw", "discards", "king_pile", "kings_revealed", "known", "points", "noted", "tie", "given",
          "winners", "plays", "own_replays", "brown_played")  # fmt: skip
_TABLES = ("hands", "displays")
_INTS = ("seed", "king_shuffles", "round", "round_cards", "current", "last_card", "partner", "count", "shuffles",
         "decisions")  # fmt: skip


class NotationError(ValueError):
    """A position or replay log that cannot be read or does not replay."""


def export_position(state: PgState) -> dict:
    data: dict = {
        "format": POSITION_FORMAT,
        "components_hash": state.components.hash,
        "options": state.options.to_dict(),
        "phase": PHASE_KINDS[state.phase],
        "finished": state.finished,
    }
    for name in _INTS:
        data[name] = getattr(state, name)
    for name in _LISTS:
        data[name] = list(getattr(state, name))
    for name in _TABLES:
        data[name] = [list(row) for row in getattr(state, name)]
    data["round_ends"] = [[r.round, r.kind, r.seat, list(r.scorers), r.cards] for r in state.round_ends]
    return data


def _ints(value: object, where: str) -> list[int]:
    if not isinstance(value, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in value):
        raise NotationError(f"{where}: expected a list of whole numbers")
    return list(value)


def import_position(data: object, components: PgComponents | None = None, where: str = "position") -> PgState:
    """A state from ``export_position``'s form; errors name the field. Checks that every card is in one place."""
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise NotationError(f"{where}: expected an object with format {POSITION_FORMAT!r}")
    comps = components or standard_pg_components()
    if data.get("components_hash") != comps.hash:
        raise NotationError(f"{where}: components_hash {data.get('components_hash')!r} is not {comps.hash!r}")
    try:
        options = PgOptions(**data["options"])
        state = empty_state(options, 0, comps)
        for name in _INTS:
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise NotationError(f"{where}: {name}: expected a whole number")
            setattr(state, name, value)
        for name in _LISTS:
            setattr(state, name, _ints(data[name], f"{where}: {name}"))
        for name in _TABLES:
            rows = data[name]
            if not isinstance(rows, list) or len(rows) != options.players:
                raise NotationError(f"{where}: {name}: expected {options.players} lists")
            setattr(state, name, [_ints(r, f"{where}: {name}") for r in rows])
        state.phase = PHASE_KINDS.index(data["phase"])
        state.finished = bool(data["finished"])
        state.round_ends = [RoundEnd(r[0], r[1], r[2], tuple(r[3]), r[4]) for r in data["round_ends"]]
    except KeyError as exc:
        raise NotationError(f"{where}: {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, NotationError):
            raise
        raise NotationError(f"{where}: {exc}") from None
    places = [c for h in state.hands for c in h] + [c for d in state.displays for c in d] + state.draw + state.discards
    if sorted(places) != comps.cards_in_game(options.players):
        raise NotationError(f"{where}: the cards in hands, displays and piles are not the game's cards, once each")
    if len(state.known) != comps.card_count:
        raise NotationError(f"{where}: known: expected {comps.card_count} entries")
    return state


def encode_choice(choice: object) -> object:
    """A choice as JSON (tuples become lists)."""
    return list(choice) if isinstance(choice, tuple | list) else choice


def decode_choice(kind: str, data: object) -> object:
    return tuple(data) if isinstance(data, list) else data


class ReplayRecorder:
    """Records a replay log while a game is played: pass ``record`` as the game's observer."""

    def __init__(self, start: PgState, strategies: list[str] | None = None) -> None:
        self.log: dict = {"format": REPLAY_FORMAT, "start": export_position(start), "strategies": strategies or [],
                          "decisions": []}  # fmt: skip

    def record(self, before: PgState, dec: Decision, choice: object) -> None:
        self.log["decisions"].append([dec.seat, dec.kind, encode_choice(choice)])

    def finish(self, final: PgState) -> dict:
        self.log["result"] = {"points": list(final.points), "winners": list(final.winners),
                              "finished": final.finished, "rounds": final.round}  # fmt: skip
        return self.log


def replay(log: object, components: PgComponents | None = None) -> PgState:
    """Play a replay log back from its start: every decision must be the pending one and legal, the result must
    match. Returns the final state; raises NotationError at the first difference."""
    if not isinstance(log, dict) or log.get("format") != REPLAY_FORMAT:
        raise NotationError(f"replay: expected an object with format {REPLAY_FORMAT!r}")
    state = import_position(log.get("start"), components, "replay: start")
    for number, entry in enumerate(log.get("decisions", [])):
        if state.over:
            raise NotationError(f"replay: decision {number}: the game is already over")
        pending = decision(state)
        seat, kind, choice = entry
        if (pending.seat, pending.kind) != (seat, kind):
            raise NotationError(f"replay: decision {number}: the game waits for seat {pending.seat}'s {pending.kind}"
                                f", the log has seat {seat}'s {kind}")  # fmt: skip
        try:
            apply(state, decode_choice(kind, choice))
        except IllegalChoice as exc:
            raise NotationError(f"replay: decision {number}: illegal {kind} choice: {exc}") from None
    expected = log.get("result")
    if expected is not None:
        got = {"points": list(state.points), "winners": list(state.winners), "finished": state.finished,
               "rounds": state.round}  # fmt: skip
        if got != expected:
            raise NotationError(f"replay: result: the log says {expected}, the replay gives {got}")
    return state
