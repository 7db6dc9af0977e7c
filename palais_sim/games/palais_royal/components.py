"""Component sets: nobles, privilege-card prices, the park's x2 fields and the first-game layout.

A component set is data (TOML), never code. ``load_components`` validates a file and names the file, the entry and
the problem in every error, so a designer editing a variant gets a message they can act on.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final

from mypy_extensions import mypyc_attr

from palais_sim.core.toml_guide import standard_set_text
from palais_sim.games.palais_royal.board import EDGE_FIELDS, PARK_SIZE, LayoutError, parse_layout

CARD_KEYS: Final[tuple[str, ...]] = (
    "all_majorities",
    "free_reinforce",
    "reinforce2_move6",
    "move5",
    "move9",
    "two_seals",
    "gold4",
    "points2",
    "points4",
)
POINT_CARDS: Final[dict[str, int]] = {"points2": 2, "points4": 4}
PRIVILEGES: Final[tuple[str, ...]] = (
    "reinforce_plus2",
    "move_plus2",
    "diagonal_move",
    "mint_plus2",
    "king_plus1",
    "madame_plus1",
    "cards_plus3",
    "servants_plus1",
    "servants_plus3",
)
DEFAULT_COMPONENTS: Final = "standard"


def _read_only(self: object, *args: object, **kwargs: object) -> None:
    raise TypeError("component data is read-only")


@mypyc_attr(native_class=False)  # a dict subclass: a plain Python class, also in the compiled build
class ReadOnlyDict(dict):
    """A dict no one can change: a component set is shared by every seat of a game (strategies included), so its
    tables must not be writable through a strategy's view."""

    __setitem__ = _read_only  # type: ignore[assignment]
    __delitem__ = _read_only  # type: ignore[assignment]
    clear = _read_only  # type: ignore[assignment]
    pop = _read_only  # type: ignore[assignment]
    popitem = _read_only  # type: ignore[assignment]
    setdefault = _read_only  # type: ignore[assignment]
    update = _read_only  # type: ignore[assignment]
    __ior__ = _read_only  # type: ignore[assignment]

    def __reduce__(self):
        return (ReadOnlyDict, (dict(self),))


@mypyc_attr(native_class=False)
class ComponentError(ValueError):
    """A component file that cannot be used; the message names the file, the entry and the problem."""


@dataclass(frozen=True)
class Noble:
    id: str
    gold: int
    violet: int
    turquoise: int
    points: int
    privilege: str | None = None

    def __reduce__(self) -> tuple:
        """Pickled by its fields (a compiled frozen dataclass cannot be unpickled attribute by attribute)."""
        return (Noble, (self.id, self.gold, self.violet, self.turquoise, self.points, self.privilege))


@dataclass(frozen=True, eq=False)
class ComponentSet:
    name: str
    reconstructed: bool
    nobles: tuple[Noble, ...]
    card_prices: dict[str, int]
    card_copies: int
    x2_fields: frozenset[int]
    first_game_layout: str
    source: str = "standard"
    description: str = ""
    noble_index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def hash(self) -> str:
        """A short content hash: the same data gives the same hash, whatever the file name or formatting."""
        return _content_hash(self)

    def __reduce__(self) -> tuple:
        """Pickled by its fields, to travel to the workers (a compiled frozen dataclass needs it)."""
        fields = (self.name, self.reconstructed, self.nobles, self.card_prices, self.card_copies, self.x2_fields)
        return (ComponentSet, (*fields, self.first_game_layout, self.source, self.description, self.noble_index))

    def deck(self) -> list[str]:
        """The full, unshuffled deck of privilege cards."""
        return [key for key in CARD_KEYS for _ in range(self.card_copies)]


@lru_cache(maxsize=64)
def _content_hash(components: ComponentSet) -> str:
    payload = {
        "nobles": [[n.id, n.gold, n.violet, n.turquoise, n.points, n.privilege or ""] for n in components.nobles],
        "prices": [components.card_prices[k] for k in CARD_KEYS],
        "copies": components.card_copies,
        "x2": sorted(components.x2_fields),
        "first_game": components.first_game_layout,
    }
    digest = hashlib.sha256(json.dumps(payload, separators=(",", ":")).encode()).hexdigest()
    return digest[:12]


def _require_int(value: object, where: str, name: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ComponentError(f"{where}: '{name}' must be a whole number, got {value!r}")
    if value < minimum:
        raise ComponentError(f"{where}: '{name}' must be at least {minimum}, got {value}")
    return value


# The tables of a component file and the keys each may hold; anything else is a typo and an error.
# [park] is required (its x2_fields may be an empty list): a set without it would play silently with no x2 fields.
KNOWN_KEYS: dict[str, frozenset[str]] = {
    "meta": frozenset({"name", "reconstructed", "description"}),
    "park": frozenset({"x2_fields"}),
    "layouts": frozenset({"first_game"}),
    "cards": frozenset({"copies", "prices"}),
}
NOBLE_KEYS = frozenset({"id", "gold", "violet", "turquoise", "points", "privilege"})


def _check_keys(data: dict, source: str) -> None:
    """Unknown tables and keys are errors naming the file and the key (with the known ones)."""
    for key in data:
        if key not in KNOWN_KEYS and key != "nobles":
            known = ", ".join(f"[{k}]" for k in KNOWN_KEYS) + ", [[nobles]]"
            raise ComponentError(f"{source}: unknown table or key '{key}'; known: {known}")
    for table, keys in KNOWN_KEYS.items():
        value = data.get(table)
        if not isinstance(value, dict):
            continue
        for key in value:
            if key not in keys:
                raise ComponentError(f"{source}: [{table}]: unknown key '{key}'; known: {', '.join(sorted(keys))}")


def parse_components(data: dict, source: str) -> ComponentSet:
    """Validate parsed TOML data; every error names ``source`` and the entry."""
    if not isinstance(data, dict):
        raise ComponentError(f"{source}: not a table")
    _check_keys(data, source)
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise ComponentError(f"{source}: [meta] must be a table")
    name = str(meta.get("name", Path(source).stem))
    reconstructed = bool(meta.get("reconstructed", False))

    raw_nobles = data.get("nobles")
    if not isinstance(raw_nobles, list) or not raw_nobles:
        raise ComponentError(f"{source}: [[nobles]] is missing; a set needs at least {PARK_SIZE} nobles")
    nobles: list[Noble] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw_nobles, start=1):
        where = f"{source}: nobles entry {i}"
        if not isinstance(entry, dict):
            raise ComponentError(f"{where}: must be a table")
        noble_id = entry.get("id")
        if not isinstance(noble_id, str) or not noble_id:
            raise ComponentError(f"{where}: 'id' must be a non-empty string")
        where = f"{source}: noble {noble_id}"
        if noble_id in seen:
            raise ComponentError(f"{where}: duplicate id")
        seen.add(noble_id)
        unknown = set(entry) - NOBLE_KEYS
        if unknown:
            raise ComponentError(f"{where}: unknown field(s) {sorted(unknown)}")
        for key in ("gold", "violet", "turquoise", "points"):
            if key not in entry:
                raise ComponentError(f"{where}: '{key}' is missing")
        privilege = entry.get("privilege") or None
        if privilege is not None and privilege not in PRIVILEGES:
            raise ComponentError(f"{where}: unknown privilege {privilege!r}; known: {', '.join(PRIVILEGES)}")
        nobles.append(
            Noble(
                id=noble_id,
                gold=_require_int(entry["gold"], where, "gold"),
                violet=_require_int(entry["violet"], where, "violet"),
                turquoise=_require_int(entry["turquoise"], where, "turquoise"),
                points=_require_int(entry["points"], where, "points"),
                privilege=privilege,
            )
        )
    if len(nobles) < PARK_SIZE:
        raise ComponentError(f"{source}: nobles: {len(nobles)} given, the park needs at least {PARK_SIZE}")

    cards = data.get("cards", {})
    if not isinstance(cards, dict):
        raise ComponentError(f"{source}: [cards] must be a table")
    copies = _require_int(cards.get("copies", 4), f"{source}: cards", "copies", minimum=1)
    prices_raw = cards.get("prices")
    if not isinstance(prices_raw, dict):
        raise ComponentError(f"{source}: [cards.prices] is missing")
    unknown_cards = set(prices_raw) - set(CARD_KEYS)
    if unknown_cards:
        raise ComponentError(
            f"{source}: cards.prices: unknown card(s) {sorted(unknown_cards)}; known: {', '.join(CARD_KEYS)}"
        )
    prices: dict[str, int] = {}
    for key in CARD_KEYS:
        if key not in prices_raw:
            raise ComponentError(f"{source}: cards.prices: '{key}' is missing")
        prices[key] = _require_int(prices_raw[key], f"{source}: cards.prices", key)

    if "park" not in data:
        raise ComponentError(f"{source}: [park] is missing; give x2_fields = [...] (an empty list for none)")
    park = data["park"]
    if not isinstance(park, dict):
        raise ComponentError(f"{source}: [park] must be a table")
    if "x2_fields" not in park:
        raise ComponentError(f"{source}: [park]: 'x2_fields' is missing (an empty list for none)")
    x2_raw = park["x2_fields"]
    if not isinstance(x2_raw, list):
        raise ComponentError(f"{source}: park.x2_fields must be a list of field numbers")
    x2: set[int] = set()
    for value in x2_raw:
        f = _require_int(value, f"{source}: park.x2_fields", "field")
        if f >= PARK_SIZE:
            raise ComponentError(f"{source}: park.x2_fields: field {f} is outside the park (0-35)")
        if f not in EDGE_FIELDS:
            raise ComponentError(f"{source}: park.x2_fields: field {f} is not on an edge row")
        if f in x2:
            raise ComponentError(f"{source}: park.x2_fields: field {f} is listed twice")
        x2.add(f)

    layouts = data.get("layouts", {})
    if not isinstance(layouts, dict):
        raise ComponentError(f"{source}: [layouts] must be a table")
    first_game = layouts.get("first_game", "PMS/KGD/COB")
    if not isinstance(first_game, str):
        raise ComponentError(f"{source}: layouts.first_game must be a string like PMS/KGD/COB")
    try:
        first_game = parse_layout(first_game).code
    except LayoutError as exc:
        raise ComponentError(f"{source}: layouts.first_game: {exc}") from None

    return ComponentSet(
        name=name,
        reconstructed=reconstructed,
        nobles=tuple(nobles),
        card_prices=ReadOnlyDict(prices),
        card_copies=copies,
        x2_fields=frozenset(x2),
        first_game_layout=first_game,
        source=source,
        description=str(meta.get("description", "")),
        noble_index=ReadOnlyDict({n.id: i for i, n in enumerate(nobles)}),
    )


def load_components(path: str | Path | None = None) -> ComponentSet:
    """Load a component set: ``None`` or ``"standard"`` for the default, else a TOML file path (read every time: a
    file rewritten in place gives its new content, parsed once per content)."""
    if path is None or str(path) == DEFAULT_COMPONENTS:
        return standard_components()
    path = str(Path(path))
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ComponentError(f"{path}: no such component file") from None
    except OSError as exc:
        raise ComponentError(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ComponentError(f"{path}: not a UTF-8 TOML file (a component set is text)") from None
    return _parse_file(path, text)


@lru_cache(maxsize=32)
def _parse_file(path: str, text: str) -> ComponentSet:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ComponentError(f"{path}: not valid TOML ({exc})") from None
    return parse_components(data, path)


@lru_cache(maxsize=1)
def standard_components() -> ComponentSet:
    text = standard_set_text("palais_sim.games.palais_royal")
    return parse_components(tomllib.loads(text), DEFAULT_COMPONENTS)
