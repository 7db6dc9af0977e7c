"""Palastgeflüster's position files (JSON, ``palastgefluester-position/2``): our FEN for this game, as
``palais_sim.games.palais_royal.position`` is Palais Royal's.

A position is taken at the start of a turn (a seat about to play a card); importing it and playing on gives the same
game as playing on from the exported state. Seats are 1-based in the file; a card is named by its colour and person
(``"red zofe"``), a brown card with its copy (``"brown zofe 2"``; written by hand, ``"brown zofe"`` takes the first
copy not named elsewhere); the king cards by their person.

Hidden information as Palais Royal's files handle it: an exported file holds everything (the seed, every hand, the
draw pile's and the king pile's order, the Zofe's face-down discards, who knows which card), so it plays on exactly.
Written by hand, a position may leave out what a player cannot know: another seat's hand given as its size, the
discards as their number, and ``draw`` and ``king_pile`` left out: those cards are dealt from the cards (and king
cards) nobody holds, shuffled with the seed (``seed`` itself may be left out: then the one the command is given, else
0). The rest may be left out where it has a plain default: ``known`` (each hand known to its owner only),
``last_card``, ``round_cards`` (the cards in the displays), ``noted``, ``round_ends``, the per-seat counts, the shuffle
counts, ``decisions`` (0) and ``options``.

The engine's own dump of a state (``notation.export_position``, format ``palastgefluester-position/1``, cards as
ints, any phase) is what a replay log starts from; :func:`load_position` reads it too.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from palais_sim import __version__
from palais_sim.core.json_files import read_json_file as read_json
from palais_sim.games.palastgefluester import notation
from palais_sim.games.palastgefluester.components import (
    BROWN,
    PERSON_IDS,
    PERSONS,
    PgComponentError,
    PgComponents,
    load_pg_components,
)
from palais_sim.games.palastgefluester.notation import NotationError
from palais_sim.games.palastgefluester.state import (
    JESTER,
    PLAY,
    REPEAT,
    SIX,
    PgOptions,
    PgState,
    RoundEnd,
    empty_state,
    round_end_record,
    shuffle_rng,
)

POSITION_FORMAT = "palastgefluester-position/2"
STATE_DUMP_FORMAT = notation.POSITION_FORMAT  # the engine's dump, as a replay log's start holds it
_COUNTS = ("plays", "own_replays", "brown_played")  # per seat, over the whole game


# ---------------------------------------------------------------------------------------------- card names


def card_name(components: PgComponents, card: int) -> str:
    """``"red zofe"``, or ``"brown zofe 2"`` for the second brown copy of the Zofe."""
    person = PERSON_IDS[card % PERSONS]
    colour = components.colour(card)
    if colour != BROWN:
        return f"{components.colours[colour]} {person}"
    return f"brown {person} {(card - PERSONS * len(components.colours)) // PERSONS + 1}"


def card_names(components: PgComponents, cards: list[int]) -> list[str]:
    return [card_name(components, c) for c in cards]


class _Cards:
    """Reads card names into card ids: each card once; an unnumbered brown card takes the first copy left."""

    def __init__(self, components: PgComponents, players: int, where: str) -> None:
        self.components, self.where = components, where
        self.in_game = set(components.cards_in_game(players))
        self.by_name = {card_name(components, c): c for c in sorted(self.in_game)}
        self.used: set[int] = set()
        self.unnumbered: list[tuple[str, int, list[int | None], int]] = []  # (field, person, row, index)

    def read(self, value: object, field: str) -> list[int | None]:
        """A list of card names as card ids (None for an unnumbered brown card, filled in by :meth:`finish`)."""
        if not isinstance(value, list):
            raise NotationError(f'{self.where}: {field}: must be a list of cards (such as "red zofe")')
        row: list[int | None] = []
        for i, name in enumerate(value):
            key = " ".join(str(name).lower().split()) if isinstance(name, str) else None
            if key in self.by_name:
                card = self.by_name[key]
                if card in self.used:
                    raise NotationError(f"{self.where}: {field}[{i}]: {key!r} is named twice in the position")
                self.used.add(card)
                row.append(card)
            elif (
                key is not None and key.startswith("brown ") and key[6:] in PERSON_IDS and self.components.brown_copies
            ):
                self.unnumbered.append((field, PERSON_IDS.index(key[6:]), row, len(row)))
                row.append(None)
            else:
                raise NotationError(f"{self.where}: {field}[{i}]: unknown card {name!r} in a {len(self.in_game)}-card "
                                    "game (a colour of a seat or brown, then a person, e.g. \"red zofe\")")  # fmt: skip
        return row

    def finish(self) -> None:
        """Give each unnumbered brown card the first copy of its person that no field names."""
        base = PERSONS * len(self.components.colours)
        for field, person, row, index in self.unnumbered:
            free = [base + k * PERSONS + person for k in range(self.components.brown_copies)]
            free = [c for c in free if c not in self.used]
            if not free:
                raise NotationError(f"{self.where}: {field}: more brown {PERSON_IDS[person]} cards than the game has")
            self.used.add(free[0])
            row[index] = free[0]


# ---------------------------------------------------------------------------------------------- export


def components_ref(components: PgComponents) -> dict:
    source = components.source
    return {"name": components.name, "hash": components.hash, "file": None if source == "palastgefluester" else source}


def export_position(state: PgState) -> dict:
    """The position of a state paused before a seat plays a card, as a JSON-ready dict."""
    if state.phase != PLAY:
        raise NotationError("a position can only be exported at the start of a turn (a card to play)")
    comps, n = state.components, state.n
    owners = {c: s for s, hand in enumerate(state.hands) for c in hand}
    known = {}
    for card in [*owners, *state.draw, *state.discards]:
        if state.known[card] != (1 << owners[card] if card in owners else 0):
            known[card_name(comps, card)] = [s + 1 for s in range(n) if state.known[card] >> s & 1]
    return {
        "format": POSITION_FORMAT,
        "engine_version": __version__,
        "components": components_ref(comps),
        "options": {"tiebreak": state.options.tiebreak, "max_rounds": state.options.max_rounds},
        "players": n,
        "seed": state.seed,
        "round": state.round,
        "current_seat": state.current + 1,
        "points": list(state.points),
        "noted": list(state.noted),
        "hands": [card_names(comps, h) for h in state.hands],
        "displays": [card_names(comps, d) for d in state.displays],
        "draw": card_names(comps, state.draw),
        "discards": card_names(comps, state.discards),
        "kings_revealed": [PERSON_IDS[p] for p in state.kings_revealed],
        "king_pile": [PERSON_IDS[p] for p in state.king_pile],
        "known": known,
        "last_card": None if state.last_card < 0 else card_name(comps, state.last_card),
        "round_cards": state.round_cards,
        "round_ends": [round_end_record(r) for r in state.round_ends],
        **{name: list(getattr(state, name)) for name in _COUNTS},
        "shuffles": state.shuffles,
        "king_shuffles": state.king_shuffles,
        "decisions": state.decisions,
    }


# ---------------------------------------------------------------------------------------------- import


def whole_number(value: object, where: str, lo: int = 0, hi: int | None = None) -> int:
    """``value`` if it is a whole number from ``lo`` to ``hi`` (no bool), else a NotationError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise NotationError(f"{where}: must be a whole number {bounds}, got {value!r}")
    return value


def _field(data: dict, key: str, where: str) -> Any:
    if key not in data:
        raise NotationError(f"{where}: '{key}' is missing")
    return data[key]


def _per_seat(data: dict, key: str, n: int, where: str, default: int | None = None) -> list[int]:
    """A whole number per seat; with a ``default``, the field may be left out."""
    value = data[key] if key in data or default is None else [default] * n
    if key not in data and default is None:
        raise NotationError(f"{where}: '{key}' is missing")
    if not isinstance(value, list) or len(value) != n:
        raise NotationError(f"{where}: {key}: must be a list of {n} whole numbers (one per seat)")
    return [whole_number(v, f"{where}: {key}[{i}]") for i, v in enumerate(value)]


def _seat(value: object, n: int, where: str) -> int:
    return whole_number(value, where, 1, n) - 1


def _persons(value: object, where: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(p, str) and p.lower() in PERSON_IDS for p in value):
        raise NotationError(f"{where}: must be a list of persons ({', '.join(PERSON_IDS)})")
    return [PERSON_IDS.index(p.lower()) for p in value]


def _components(data: dict, where: str) -> PgComponents:
    ref = data.get("components")
    if ref is not None and not isinstance(ref, dict):
        raise NotationError(f"{where}: components: must be an object with 'file' (null: the standard set)")
    ref = ref or {}
    try:
        comps = load_pg_components(ref.get("file"))
    except PgComponentError as exc:
        raise NotationError(f"{where}: components: {exc}") from None
    if ref.get("hash") is not None and ref["hash"] != comps.hash:
        raise NotationError(f"{where}: components: the file was made with component set hash {ref['hash']}, "
                            f"but {comps.source} has hash {comps.hash}")  # fmt: skip
    return comps


def _options(data: dict, n: int, where: str) -> PgOptions:
    raw = data.get("options") or {}
    if not isinstance(raw, dict):
        raise NotationError(f"{where}: options: must be an object")
    unknown = sorted(set(raw) - {"tiebreak", "max_rounds"})
    if unknown:
        raise NotationError(f"{where}: options: unknown {', '.join(unknown)} (tiebreak, max_rounds)")
    try:
        return PgOptions(players=n, tiebreak=raw.get("tiebreak", "display"), max_rounds=raw.get("max_rounds", 200))
    except ValueError as exc:
        raise NotationError(f"{where}: options: {exc}") from None


def import_position(data: object, where: str = "position", seed: int | None = None) -> PgState:
    """A state paused before ``current_seat`` plays a card; ``where`` names the file in every error. ``seed`` deals
    what a file without a seed leaves out."""
    if not isinstance(data, dict):
        raise NotationError(f"{where}: not a JSON object")
    if data.get("format") == STATE_DUMP_FORMAT:
        return notation.import_position(data, None, where)
    if data.get("format") != POSITION_FORMAT:
        raise NotationError(f"{where}: format: expected {POSITION_FORMAT!r}, got {data.get('format')!r}")
    comps = _components(data, where)
    n = whole_number(_field(data, "players", where), f"{where}: players", 3, len(comps.colours))
    if n not in comps.player_counts:
        raise NotationError(f"{where}: players: component set {comps.name!r} has no win threshold for {n} players")
    options = _options(data, n, where)
    game_seed = whole_number(data["seed"], f"{where}: seed") if data.get("seed") is not None else (seed or 0)
    state = empty_state(options, game_seed, comps)
    state.round = whole_number(_field(data, "round", where), f"{where}: round", 1, options.max_rounds)
    state.current = _seat(_field(data, "current_seat", where), n, f"{where}: current_seat")
    state.points = _per_seat(data, "points", n, where)
    target = comps.points_to_win(n)
    if max(state.points) >= target:
        raise NotationError(f"{where}: points: a seat has {max(state.points)}, the game ended at {target}")
    state.noted = _per_seat(data, "noted", n, where, 0)
    for name in _COUNTS:
        setattr(state, name, _per_seat(data, name, n, where, 0))
    _cards_from(data, state, comps, n, where)
    _kings_from(data, state, comps, where)
    state.round_cards = whole_number(
        data.get("round_cards", sum(len(d) for d in state.displays)), f"{where}: round_cards"
    )
    state.round_ends = _round_ends(data.get("round_ends", []), n, where)
    state.shuffles = whole_number(data.get("shuffles", state.round), f"{where}: shuffles")
    state.king_shuffles = whole_number(data.get("king_shuffles", 1), f"{where}: king_shuffles")
    state.decisions = whole_number(data.get("decisions", 0), f"{where}: decisions")
    state.phase = PLAY
    return state


def _cards_from(data: dict, state: PgState, comps: PgComponents, n: int, where: str) -> None:
    """Hands, displays, draw pile and discards; hands and discards given as a number, and a missing draw pile, are
    dealt from the cards nobody holds, shuffled with the seed. Then who knows which card, and the last card."""
    cards = _Cards(comps, n, where)
    raw_hands = _field(data, "hands", where)
    if not isinstance(raw_hands, list) or len(raw_hands) != n:
        raise NotationError(f"{where}: hands: must be a list of {n} entries (a list of cards, or a hand size)")
    hands: list[list[int | None] | int] = [
        whole_number(h, f"{where}: hands[{s}]") if isinstance(h, int) and not isinstance(h, bool)
        else cards.read(h, f"hands[{s}]")
        for s, h in enumerate(raw_hands)
    ]  # fmt: skip
    raw_displays = _field(data, "displays", where)
    if not isinstance(raw_displays, list) or len(raw_displays) != n:
        raise NotationError(f"{where}: displays: must be a list of {n} lists of cards (one per seat)")
    displays = [cards.read(d, f"displays[{s}]") for s, d in enumerate(raw_displays)]
    raw_discards = data.get("discards", [])
    discards: list[int | None] | int = (
        whole_number(raw_discards, f"{where}: discards") if isinstance(raw_discards, int) and not isinstance(
            raw_discards, bool) else cards.read(raw_discards, "discards")
    )  # fmt: skip
    draw = None if data.get("draw") is None else cards.read(data["draw"], "draw")
    cards.finish()
    pool = sorted(cards.in_game - cards.used)
    shuffle_rng(state.seed, "redeal", 0).shuffle(pool)

    def dealt(given: list[int | None] | int, field: str) -> list[int]:
        nonlocal pool
        if isinstance(given, list):
            return [c for c in given if c is not None]
        if given > len(pool):
            raise NotationError(f"{where}: {field}: {given} cards, but only {len(pool)} are not placed")
        out, pool = pool[len(pool) - given :], pool[: len(pool) - given]
        return out

    state.hands = [dealt(h, f"hands[{s}]") for s, h in enumerate(hands)]
    state.discards = dealt(discards, "discards")
    if draw is None:
        state.draw, pool = pool, []
    else:
        state.draw = [c for c in draw if c is not None]
    if pool:
        raise NotationError(f"{where}: cards: hands, displays, draw and discards must hold the game's "
                            f"{len(cards.in_game)} cards exactly ({len(pool)} are missing)")  # fmt: skip
    state.displays = [[c for c in d if c is not None] for d in displays]
    for s, display in enumerate(state.displays):
        persons = [c % PERSONS for c in display]
        if len(set(persons)) != len(persons):
            raise NotationError(f"{where}: displays[{s}]: a person twice (that round would have ended)")
        if len(display) >= comps.different_to_end:
            raise NotationError(f"{where}: displays[{s}]: {len(display)} different persons (that round would have "
                                "ended)")  # fmt: skip
    for s, hand in enumerate(state.hands):
        for c in hand:
            state.known[c] = 1 << s
    known = data.get("known", {})
    if not isinstance(known, dict):
        raise NotationError(f"{where}: known: must map cards to the seats that know where they are")
    hidden = set(c for h in state.hands for c in h) | set(state.draw) | set(state.discards)
    for name, seats in known.items():
        card = cards.by_name.get(" ".join(str(name).lower().split()))
        if card not in hidden:
            raise NotationError(f"{where}: known: {name!r} is no card of a hand, the draw pile or the discards")
        if not isinstance(seats, list):
            raise NotationError(f"{where}: known[{name!r}]: must be a list of seats")
        state.known[card] = sum(1 << _seat(s, n, f"{where}: known[{name!r}]") for s in set(seats))
    last = data.get("last_card")
    state.last_card = -1 if last is None else _named_card(cards, last, f"{where}: last_card")


def _named_card(cards: _Cards, name: object, where: str) -> int:
    card = cards.by_name.get(" ".join(str(name).lower().split())) if isinstance(name, str) else None
    if card is None:
        raise NotationError(f'{where}: unknown card {name!r} (with its copy if brown, e.g. "brown zofe 1")')
    return card


def _kings_from(data: dict, state: PgState, comps: PgComponents, where: str) -> None:
    revealed = _persons(data.get("kings_revealed", []), f"{where}: kings_revealed")
    rest = Counter(comps.kings)
    rest.subtract(revealed)
    if any(v < 0 for v in rest.values()):
        kings = ", ".join(PERSON_IDS[k] for k in comps.kings)
        raise NotationError(f"{where}: kings_revealed: more than the king cards hold ({kings})")
    if data.get("king_pile") is None:
        pile = sorted((+rest).elements())
        shuffle_rng(state.seed, "redeal-kings", 0).shuffle(pile)
    else:
        pile = _persons(data["king_pile"], f"{where}: king_pile")
        if Counter(pile) != +rest:
            raise NotationError(f"{where}: king_pile: with kings_revealed it must hold the king cards once each")
    state.kings_revealed, state.king_pile = revealed, pile


def _round_ends(value: object, n: int, where: str) -> list[RoundEnd]:
    if not isinstance(value, list):
        raise NotationError(f"{where}: round_ends: must be a list")
    out = []
    for i, r in enumerate(value):
        at = f"{where}: round_ends[{i}]"
        if not isinstance(r, dict) or r.get("kind") not in (REPEAT, SIX, JESTER):
            raise NotationError(f"{at}: must be an object with round, kind ({REPEAT}, {SIX}, {JESTER}), seat, "
                                "scorers and cards")  # fmt: skip
        scorers = r.get("scorers")
        if not isinstance(scorers, list):
            raise NotationError(f"{at}: scorers: must be a list of seats")
        out.append(RoundEnd(whole_number(r.get("round"), f"{at}: round", 1), r["kind"],
                            _seat(r.get("seat"), n, f"{at}: seat"),
                            tuple(_seat(s, n, f"{at}: scorers") for s in scorers),
                            whole_number(r.get("cards"), f"{at}: cards")))  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------------- files


def read_json_file(path: Path) -> object:
    """The JSON in a position file; a bad file is a one-line NotationError naming it."""
    return read_json(path, NotationError)


def load_position(path: Path, seed: int | None = None) -> PgState:
    """A position file (``seed``: for the hidden information the file leaves out, if it has no seed)."""
    return import_position(read_json_file(path), str(path), seed)


def save_position(state: PgState, path: Path) -> None:
    Path(path).write_text(json.dumps(export_position(state), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def turn_number(state: PgState) -> int:
    """The turn a position starts: the number of the card about to be played in the game (1 for the first)."""
    return sum(state.plays) + 1
