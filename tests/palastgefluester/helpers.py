"""Hand-made Palastgeflüster positions for the rule tests."""

from __future__ import annotations

from palais_sim.games.palastgefluester.components import PERSONS
from palais_sim.games.palastgefluester.rules import new_game
from palais_sim.games.palastgefluester.state import PgOptions, PgState

HOF, SCHATZ, ZAUB, ZOFE, MUND, WAECH, NARR = range(7)


def card(colour: int, person: int) -> int:
    """A card of a seat's colour (colour = seat, 0-based)."""
    return colour * PERSONS + person


def brown(person: int, copy: int = 0) -> int:
    return 35 + copy * PERSONS + person


def position(
    players: int,
    hands: list[list[int]],
    displays: list[list[int]] | None = None,
    current: int = 0,
    revealed: tuple[int, ...] = (),
    pile: tuple[int, ...] | None = None,
    round_cards: int | None = None,
    points: list[int] | None = None,
    tiebreak: str = "display",
    max_rounds: int = 200,
    seed: int = 1,
) -> PgState:
    """A state with these hands and displays; every other card of the game in the draw pile."""
    state = new_game(PgOptions(players=players, tiebreak=tiebreak, max_rounds=max_rounds), seed)
    displays = displays or [[] for _ in range(players)]
    state.hands = [list(h) for h in hands]
    state.displays = [list(d) for d in displays]
    used = {c for h in hands for c in h} | {c for d in displays for c in d}
    state.draw = [c for c in state.components.cards_in_game(players) if c not in used]
    state.discards = []
    state.known = [0] * state.components.card_count
    for s, h in enumerate(hands):
        for c in h:
            state.known[c] = 1 << s
    state.current = current
    state.kings_revealed = list(revealed)
    state.king_pile = list(pile) if pile is not None else [k for k in state.components.kings if k not in revealed]
    state.round_cards = sum(len(d) for d in displays) if round_cards is None else round_cards
    if points is not None:
        state.points = list(points)
    return state
