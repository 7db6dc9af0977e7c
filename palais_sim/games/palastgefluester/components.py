"""Palastgeflüster's components: persons, colours, brown cards, king cards and the win thresholds, from data.

The data file is ``data/standard.toml`` in this package; ``load_pg_components`` validates it and names the file
and the entry in every error. Cards are small ints: a coloured card is ``colour * 7 + person`` (0..34), a brown
card ``35 + k`` with person ``k % 7``; so the person of any card is ``card % 7`` and its colour ``card // 7`` (5 and
above: brown). A card id is one physical card: the two brown copies of a person are two ids.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

from mypy_extensions import mypyc_attr

from palais_sim.core.toml_guide import standard_set_text

PERSON_IDS: Final[tuple[str, ...]] = (
    "hofmarschall",
    "schatzmeister",
    "zauberer",
    "zofe",
    "mundschenk",
    "waechter",
    "hofnarr",
)
HOFMARSCHALL: Final = 0
SCHATZMEISTER: Final = 1
ZAUBERER: Final = 2
ZOFE: Final = 3
MUNDSCHENK: Final = 4
WAECHTER: Final = 5
HOFNARR: Final = 6
PERSONS: Final = len(PERSON_IDS)
BROWN: Final = -1  # the colour of a brown card (no seat owns it)


@mypyc_attr(native_class=False)  # an exception: a plain Python class, also when compiled
class PgComponentError(ValueError):
    """A component file that cannot be used; the message names the file, the entry and the problem."""


@dataclass(frozen=True, eq=False)
class PgComponents:
    name: str
    person_names: tuple[str, ...]  # display names, in PERSON_IDS order
    colours: tuple[str, ...]  # one per seat, seat order
    brown_copies: int
    kings: tuple[int, ...]  # the person each king card names
    hand_size: int
    different_to_end: int
    win_points: tuple[tuple[int, int], ...]  # (players, points to win)
    source: str = "palastgefluester"
    description: str = ""

    @property
    def hash(self) -> str:
        """A short content hash: the same data gives the same hash, whatever the file name or formatting."""
        return _content_hash(self)

    def __reduce__(self) -> tuple:
        """Pickled by its fields, to travel to the workers (a compiled frozen dataclass needs it)."""
        fields = (self.name, self.person_names, self.colours, self.brown_copies, self.kings, self.hand_size)
        return (PgComponents, (*fields, self.different_to_end, self.win_points, self.source, self.description))

    @property
    def card_count(self) -> int:
        return PERSONS * len(self.colours) + PERSONS * self.brown_copies

    def person(self, card: int) -> int:
        return card % PERSONS

    def colour(self, card: int) -> int:
        """The seat owning the card's colour, or BROWN."""
        c = card // PERSONS
        return c if c < len(self.colours) else BROWN

    def cards_in_game(self, players: int) -> list[int]:
        """The cards of a game with ``players`` seats, sorted: the seats' colours and every brown card."""
        coloured = list(range(PERSONS * players))
        start = PERSONS * len(self.colours)
        return coloured + list(range(start, start + PERSONS * self.brown_copies))

    def points_to_win(self, players: int) -> int:
        for count, points in self.win_points:
            if count == players:
                return points
        raise ValueError(f"no win threshold for {players} players in component set {self.name!r}")

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(count for count, _ in self.win_points)

    def card_name(self, card: int) -> str:
        colour = self.colour(card)
        return f"{'brown' if colour == BROWN else self.colours[colour]} {self.person_names[self.person(card)]}"


@lru_cache(maxsize=16)
def _content_hash(components: PgComponents) -> str:
    payload = {
        "persons": list(PERSON_IDS),
        "colours": list(components.colours),
        "brown": components.brown_copies,
        "kings": list(components.kings),
        "hand": components.hand_size,
        "different": components.different_to_end,
        "win": [list(p) for p in components.win_points],
    }
    return hashlib.sha256(json.dumps(payload, separators=(",", ":")).encode()).hexdigest()[:12]


def _table(data: dict, key: str, source: str) -> dict:
    value = data.get(key)
    if not isinstance(value, dict):
        raise PgComponentError(f"{source}: [{key}] is missing or not a table")
    return value


def _int(value: object, where: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise PgComponentError(f"{where}: must be a whole number of at least {minimum}, got {value!r}")
    return value


def parse_pg_components(data: dict, source: str) -> PgComponents:
    """Validate parsed TOML data; every error names ``source`` and the entry."""
    known = {"meta", "persons", "colours", "brown", "kings", "game"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise PgComponentError(f"{source}: unknown table(s) {unknown}; known: {', '.join(sorted(known))}")
    meta = data.get("meta", {})
    persons = _table(data, "persons", source)
    if list(persons.get("ids", [])) != list(PERSON_IDS):
        raise PgComponentError(f"{source}: persons.ids must be exactly {list(PERSON_IDS)} (the rules fix them)")
    names = persons.get("names", list(PERSON_IDS))
    if not isinstance(names, list) or len(names) != PERSONS or not all(isinstance(x, str) and x for x in names):
        raise PgComponentError(f"{source}: persons.names must be {PERSONS} non-empty strings")
    colours = _table(data, "colours", source).get("names")
    if not isinstance(colours, list) or not all(isinstance(x, str) and x for x in colours) or len(colours) < 3:
        raise PgComponentError(f"{source}: colours.names must be at least 3 non-empty strings")
    if len(set(colours)) != len(colours):
        raise PgComponentError(f"{source}: colours.names: a colour is listed twice")
    copies = _int(_table(data, "brown", source).get("copies"), f"{source}: brown.copies", 0)
    kings_raw = _table(data, "kings", source).get("persons")
    if not isinstance(kings_raw, list) or not kings_raw:
        raise PgComponentError(f"{source}: kings.persons must be a non-empty list of person ids")
    for k in kings_raw:
        if k not in PERSON_IDS:
            raise PgComponentError(f"{source}: kings.persons: unknown person {k!r}; known: {', '.join(PERSON_IDS)}")
    game = _table(data, "game", source)
    hand = _int(game.get("hand_size"), f"{source}: game.hand_size", 1)
    different = _int(game.get("different_to_end"), f"{source}: game.different_to_end", 2)
    if different > PERSONS:
        raise PgComponentError(f"{source}: game.different_to_end: at most {PERSONS}, got {different}")
    win_raw = game.get("win_points")
    if not isinstance(win_raw, dict) or not win_raw:
        raise PgComponentError(f"{source}: game.win_points must be a table of players = points")
    win: list[tuple[int, int]] = []
    for key, value in win_raw.items():
        if not str(key).isdigit() or not 2 <= int(key) <= len(colours):
            raise PgComponentError(f"{source}: game.win_points: player count {key!r} must be 2..{len(colours)}")
        win.append((int(key), _int(value, f"{source}: game.win_points.{key}", 1)))
    return PgComponents(
        name=str(meta.get("name", Path(source).stem)),
        person_names=tuple(names),
        colours=tuple(colours),
        brown_copies=copies,
        kings=tuple(PERSON_IDS.index(k) for k in kings_raw),
        hand_size=hand,
        different_to_end=different,
        win_points=tuple(sorted(win)),
        source=source,
        description=str(meta.get("description", "")),
    )


def load_pg_components(path: str | Path | None = None) -> PgComponents:
    """The standard set (``None``) or a TOML file of the same form."""
    if path is None:
        return standard_pg_components()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PgComponentError(f"{path}: no such component file") from None
    except OSError as exc:
        raise PgComponentError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise PgComponentError(f"{path}: not a UTF-8 TOML file (a component set is text)") from None
    try:
        return parse_pg_components(tomllib.loads(text), str(path))
    except tomllib.TOMLDecodeError as exc:
        raise PgComponentError(f"{path}: not valid TOML ({exc})") from None


@lru_cache(maxsize=1)
def standard_pg_components() -> PgComponents:
    text = standard_set_text("palais_sim.games.palastgefluester")
    return parse_pg_components(tomllib.loads(text), "palastgefluester")
