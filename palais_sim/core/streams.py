"""The random streams a game gives its strategies: one key per seat, a one-way image of the game's seed, and from
it one stream per decision. A strategy holding its key can recover neither the seed nor any other stream (the
deck's, the other seats'), so nothing reachable from its view reveals hidden cards."""

from __future__ import annotations

import hashlib
import random
from typing import TypeVar

T = TypeVar("T")


def seat_stream_keys(seed: int, players: int, game_tag: str = "") -> list[int]:
    """One key per seat (sha256 of the seed, the game's tag and the seat). ``game_tag`` keeps two games' streams
    apart for one seed ("pg:" for Palastgeflüster; Palais Royal's is empty, as its earlier runs were played)."""
    text: object = seed  # formatted as an object: see decision_rng
    return [
        int.from_bytes(hashlib.sha256(f"{text}:{game_tag}seat-stream:{s}".encode()).digest()[:8])
        for s in range(players)
    ]


def shuffle(rng: random.Random, items: list[T]) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does (CPython's Fisher-Yates, each swap index drawn
    by rejection on ``getrandbits``), in code of our own: the compiled build runs it several times faster, and the
    games' setups no longer hang on the standard library's implementation of shuffle."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def decision_rng(key: int, at: int, step: int = -1) -> random.Random:
    """The stream of one decision: the seat's key and where the game stands (``at``, and ``step`` within it when the
    game counts both). String seeding uses sha512, so it is the same in every process and Python run.

    The key is formatted as an ``object``, never as the native ``int`` the compiled build has: mypyc's text of an
    int too large for its short form (2**62 and above: most keys and seeds) keeps a reference to the int, so every
    such int formatted stayed in memory for good (the pool workers' growth of about 14 bytes a game)."""
    text: object = key
    return random.Random(f"{text}:{at}:{step}" if step >= 0 else f"{text}:{at}")
