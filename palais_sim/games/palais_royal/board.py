"""Static geometry: the nine castle rooms on a 3 x 3 layout and the 6 x 6 park.

Everything here is precomputed once per layout (cached), so the rules engine only indexes lists.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from palais_sim.core.streams import shuffle

# Room indices, in the order of RULES.md section 2.
GATE: Final = 0
PARADE: Final = 1
STAIRWAY: Final = 2
MINT: Final = 3
KING: Final = 4
MADAME: Final = 5
OFFICE: Final = 6
BACK: Final = 7
CARDINAL: Final = 8
ROOM_KEYS: Final[tuple[str, ...]] = (
    "gate",
    "parade_ground",
    "stairway",
    "mint",
    "king",
    "madame",
    "office",
    "back_entrance",
    "cardinal",
)
ROOM_CODES: Final[tuple[str, ...]] = ("G", "P", "S", "M", "K", "D", "O", "B", "C")
ROOM_INDEX: Final[dict[str, int]] = {key: i for i, key in enumerate(ROOM_KEYS)}
CODE_INDEX: Final[dict[str, int]] = {code: i for i, code in enumerate(ROOM_CODES)}

# Park: 36 fields, row by row; the four scored edge rows.
PARK_SIZE: Final = 36
PARK_ROWS: Final[dict[str, tuple[int, ...]]] = {
    "top": (0, 1, 2, 3, 4, 5),
    "right": (5, 11, 17, 23, 29, 35),
    "vase": (30, 31, 32, 33, 34, 35),
    "lion": (0, 6, 12, 18, 24, 30),
}
EDGE_FIELDS: Final[frozenset[int]] = frozenset(f for row in PARK_ROWS.values() for f in row)


def _park_neighbours() -> tuple[tuple[int, ...], ...]:
    result = []
    for field in range(PARK_SIZE):
        r, c = divmod(field, 6)
        result.append(
            tuple(
                (r + dr) * 6 + (c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < 6 and 0 <= c + dc < 6
            )
        )
    return tuple(result)


PARK_NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = _park_neighbours()
IS_EDGE: Final[tuple[bool, ...]] = tuple(f in EDGE_FIELDS for f in range(PARK_SIZE))


class LayoutError(ValueError):
    """A layout code that does not describe the nine rooms on a 3 x 3 grid."""


@dataclass(frozen=True)
class Layout:
    """The nine rooms on the 3 x 3 grid, with adjacency and distances precomputed.

    ``room_at[cell]`` is the room index in a cell (cells row by row, 0..8), ``cell_of[room]`` the inverse.
    ``dist[room_a][room_b]`` is the number of movement points from one room to another, orthogonal moves only;
    ``dist_diag`` with diagonal moves allowed.
    """

    code: str
    room_at: tuple[int, ...]
    cell_of: tuple[int, ...]
    adjacent: tuple[tuple[int, ...], ...]
    adjacent_diag: tuple[tuple[int, ...], ...]
    dist: tuple[tuple[int, ...], ...]
    dist_diag: tuple[tuple[int, ...], ...]

    def distances(self, diagonal: bool) -> tuple[tuple[int, ...], ...]:
        return self.dist_diag if diagonal else self.dist

    def neighbours(self, diagonal: bool) -> tuple[tuple[int, ...], ...]:
        return self.adjacent_diag if diagonal else self.adjacent


def parse_layout(code: str) -> Layout:
    """Parse ``PMS/KGD/COB`` (rows top to bottom) into a :class:`Layout`; raise LayoutError if invalid."""
    return _parse_layout(code.strip().upper())


@lru_cache(maxsize=4096)
def _parse_layout(code: str) -> Layout:
    rows = code.split("/")
    if len(rows) != 3 or any(len(row) != 3 for row in rows):
        raise LayoutError(f"layout {code!r} must be three rows of three room codes, like PMS/KGD/COB")
    letters = "".join(rows)
    unknown = sorted(set(letters) - set(ROOM_CODES))
    if unknown:
        raise LayoutError(f"layout {code!r} has unknown room codes {unknown}; use {''.join(ROOM_CODES)}")
    if len(set(letters)) != 9:
        raise LayoutError(f"layout {code!r} must name each of the nine rooms {''.join(ROOM_CODES)} once")
    room_at = tuple(CODE_INDEX[ch] for ch in letters)
    cell_of = [0] * 9
    for cell, room in enumerate(room_at):
        cell_of[room] = cell
    adjacent, adjacent_diag, dist, dist_diag = [], [], [], []
    for room in range(9):
        r, c = divmod(cell_of[room], 3)
        orth, diag, d, dd = [], [], [], []
        for other in range(9):
            r2, c2 = divmod(cell_of[other], 3)
            manhattan = abs(r - r2) + abs(c - c2)
            chebyshev = max(abs(r - r2), abs(c - c2))
            d.append(manhattan)
            dd.append(chebyshev)
            if manhattan == 1:
                orth.append(other)
            if chebyshev == 1:
                diag.append(other)
        adjacent.append(tuple(orth))
        adjacent_diag.append(tuple(diag))
        dist.append(tuple(d))
        dist_diag.append(tuple(dd))
    return Layout(
        code=code,
        room_at=room_at,
        cell_of=tuple(cell_of),
        adjacent=tuple(adjacent),
        adjacent_diag=tuple(adjacent_diag),
        dist=tuple(dist),
        dist_diag=tuple(dist_diag),
    )


def random_layout_code(rng: random.Random) -> str:
    """A uniformly random arrangement of the nine rooms (the rulebook's rule)."""
    codes = list(ROOM_CODES)
    shuffle(rng, codes)
    letters = "".join(codes)
    return f"{letters[0:3]}/{letters[3:6]}/{letters[6:9]}"
