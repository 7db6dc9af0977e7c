"""Write the code that follows from the state's field list (``state.FIELDS``): the state's annotations, slots and
``copy``, and the seat view's annotations, slots, constructor and the public part of ``sample_state``.

The field list is the one place a field is declared; this writes the straight-line code between the ``BEGIN
GENERATED`` / ``END GENERATED`` markers of ``state.py`` and ``view.py`` (straight-line, because a view
is built at every decision and a search copies states in its inner loop, and because the compiled build needs
plain typed attribute code). After adding or changing a field: ``make generate``; a test fails while the files
are out of date.
"""

from __future__ import annotations

import re
from pathlib import Path

from palais_sim.games.palais_royal.state import (
    DRAWER,
    FIELDS,
    FROZEN,
    LIST,
    OWN,
    POSITION_FIELDS,
    PUBLIC,
    SIZE,
    STATIC,
    TABLE,
    TRANSIENT,
    VALUE,
    Position,
    StateField,
)

ENGINE = Path(__file__).parent
BEGIN = "    # BEGIN GENERATED from state.FIELDS by `make generate` (codegen.py): do not edit by hand\n"
END = "    # END GENERATED\n"


def _element(type_: str, depth: int) -> str:
    """The element type inside ``depth`` levels of ``list[...]``."""
    for _ in range(depth):
        match = re.fullmatch(r"list\[(.*)\]", type_)
        assert match, f"{type_} is not a list type"
        type_ = match.group(1)
    return type_


def view_type(f: StateField) -> str:
    """A field's type in the view: lists become tuples (the view holds copies no one can change); frozen fields
    are tuples already, and shared."""
    if f.shape == LIST:
        return f"tuple[{_element(f.type, 1)}, ...]"
    if f.shape == TABLE:
        return f"tuple[tuple[{_element(f.type, 2)}, ...], ...]"
    return f.type


def _slots(names: list[str]) -> list[str]:
    """A ``__slots__`` tuple one name a line (as ``ruff format`` keeps it)."""
    return ["    __slots__ = (", *(f'        "{name}",' for name in names), "    )", ""]


def _position_fields() -> frozenset[str]:
    """The fields both classes inherit from ``Position`` (declared there), checked against the field list: public,
    and of the same type in the state and the view."""
    # The Python source's class holds its slots and annotations; a compiled class keeps neither.
    if getattr(Position, "__slots__", POSITION_FIELDS) != POSITION_FIELDS:
        raise SystemExit("Position.__slots__ must be POSITION_FIELDS")
    declared = getattr(Position, "__annotations__", {})
    for name in POSITION_FIELDS:
        f = next((f for f in FIELDS if f.name == name), None)
        if f is None or f.seen != PUBLIC or view_type(f) != f.type or declared.get(name, f.type) != f.type:
            raise SystemExit(f"Position.{name} must be a public field of one type in the state and the view")
    return frozenset(POSITION_FIELDS)


def state_block() -> str:
    inherited = _position_fields()
    own = [f for f in FIELDS if f.name not in inherited]
    lines = _slots([f.name for f in own])
    lines += [f"    {f.name}: {f.type}" + (f"  # {f.note}" if f.note else "") for f in own]
    lines += [
        "",
        "    def copy(self) -> GameState:",
        '        """A deep copy of the mutable parts; static parts (components, layout, options) are shared."""',
        "        new = GameState()",
    ]
    for f in FIELDS:
        if f.shape in (STATIC, VALUE, FROZEN):  # shared: never changed in place
            lines.append(f"        new.{f.name} = self.{f.name}")
        elif f.shape == LIST:
            lines.append(f"        new.{f.name} = self.{f.name}[:]")
        elif f.shape == TRANSIENT:
            lines.append(f"        new.{f.name} = None")
        else:
            lines.append(f"        new.{f.name} = [row[:] for row in self.{f.name}]")
    lines += ["        return new", ""]
    return "".join(line + "\n" for line in lines)


def _view_fields() -> list[tuple[str, str, str]]:
    """(view attribute, its type, how it is built from ``state`` and ``seat``) for every field a seat sees."""
    out: list[tuple[str, str, str]] = []
    for f in FIELDS:
        if f.seen == PUBLIC:
            if f.shape == LIST:
                out.append((f.name, view_type(f), f"tuple(state.{f.name})"))
            elif f.shape == TABLE:
                out.append((f.name, view_type(f), f"tuple([tuple(row) for row in state.{f.name}])"))
            else:
                out.append((f.name, f.type, f"state.{f.name}"))
        elif f.seen == OWN:
            own = f.view or f.name
            out.append((own, f"tuple[{_element(f.type, 2)}, ...]", f"tuple(state.{f.name}[seat])"))
            out.append((f"{own}_sizes", "tuple[int, ...]", f"tuple([len(row) for row in state.{f.name}])"))
        elif f.seen == SIZE:
            out.append((f.view or f"{f.name}_size", "int", f"len(state.{f.name})"))
        elif f.seen == DRAWER:
            out.append((f.name, view_type(f), f"tuple(state.{f.name}) if seat == state.current else ()"))
    return out


def view_block() -> str:
    fields = _view_fields()
    inherited = _position_fields()
    own = [(name, type_) for name, type_, _expr in fields if name not in inherited]
    lines = [*_slots(["seat", "_stream_key", "_rng", *(name for name, _t in own)]), "    seat: int"]
    lines += [f"    {name}: {type_}" for name, type_ in own]
    lines += [
        "    _stream_key: tuple[int, int, int]",
        "    _rng: random.Random | None",
        "",
        "    def __init__(self, state: GameState, seat: int) -> None:",
        "        self.seat = seat",
    ]
    lines += [f"        self.{name} = {expr}" for name, _type, expr in fields]
    lines += [
        "        # This decision's stream key: this seat's key (a one-way image of the seed), the turn and the step.",
        "        self._stream_key = (state.seat_keys[seat], state.turn_no, state.step)",
        "        self._rng = None",
        "",
        "    def _public_state(self) -> GameState:",
        '        """A state holding the public fields of this view (shared or as lists); the caller sets the rest."""',
        "        state = GameState()",
    ]
    lines += [f"        state.{f.name} = None" for f in FIELDS if f.shape == TRANSIENT]
    for f in FIELDS:
        if f.seen != PUBLIC:
            continue
        if f.shape == LIST:
            lines.append(f"        state.{f.name} = list(self.{f.name})")
        elif f.shape == TABLE:
            lines.append(f"        state.{f.name} = [list(row) for row in self.{f.name}]")
        else:
            lines.append(f"        state.{f.name} = self.{f.name}")
    lines += ["        return state", ""]
    return "".join(line + "\n" for line in lines)


TARGETS = {"state.py": state_block, "view.py": view_block}


def rewrite(text: str, block: str, name: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{name}: the BEGIN GENERATED / END GENERATED markers are missing")
    return text[: start + len(BEGIN)] + block + text[end:]


def stale() -> list[str]:
    """The engine files whose generated part is not what the field list gives."""
    out = []
    for name, block in TARGETS.items():
        text = (ENGINE / name).read_text(encoding="utf-8")
        if rewrite(text, block(), name) != text:
            out.append(name)
    return out


def main() -> None:
    for name, block in TARGETS.items():
        path = ENGINE / name
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, block(), name)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote the generated part of {path}")


if __name__ == "__main__":
    main()
