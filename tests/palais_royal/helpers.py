"""Build small, explicit game states for rule tests, and drive a turn decision by decision.

``blank_state`` gives a game at the start of seat 0's first turn with every room empty, every servant in its
owner's supply, no gold and no cards, so a test sets exactly the position the rulebook example shows:

    state = blank_state(4)
    put(state, seat=0, stairway=3, cardinal=2)
    start_turn(state, seat=0)
    assert rules.decision(state).points == 4
"""

from __future__ import annotations

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import ROOM_INDEX
from palais_sim.games.palais_royal.components import ComponentSet, standard_components
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.setup import PLAYER_SERVANTS, SERVANTS_PER_COLOUR, new_game
from palais_sim.games.palais_royal.state import EMPTY, FIELD_NAMES, GameState, RuleOptions, replace_at, servant_code

FIRST_GAME = "PMS/KGD/COB"
STANDARD: ComponentSet = standard_components()

# The "do nothing" answer to each kind of decision.
NOTHING: dict[str, object] = {
    "cards": (),
    "reinforce": (0, ()),
    "move": [],
    "seals": (0, 0, ()),
    "recruit": None,
    "draw": 0,
    "keep": (),
}


def noble(noble_id: str) -> int:
    """The index of a noble of the standard set, e.g. ``noble("N05")``."""
    return STANDARD.noble_index[noble_id]


def blank_state(
    players: int = 2,
    *,
    layout: str = FIRST_GAME,
    gold_limit: int | None = None,
    max_rounds: int = 100,
    seed: int = 1,
) -> GameState:
    """A game in round 1, seat 0 to play, every room empty, 18 servants in each supply, 7 in the general supply,
    no gold, empty hands. The park and deck are those of ``seed``. Call :func:`start_turn` once the position is set."""
    state = new_game(
        STANDARD, RuleOptions(players=players, layout=layout, gold_limit=gold_limit, max_rounds=max_rounds), seed
    )
    state.rooms = ((0,) * players,) * 9
    state.supply = (PLAYER_SERVANTS,) * players
    state.general = (SERVANTS_PER_COLOUR - PLAYER_SERVANTS,) * players
    state.gold = (0,) * players
    state.bank = gold_limit
    state.round = 1
    state.current = 0
    state.setup_seat = players
    state.turn_no = 0
    return state


def put(state: GameState, seat: int, **rooms: int) -> None:
    """Move servants of ``seat`` from its supply into rooms named by their keys (``stairway=3``)."""
    for key, count in rooms.items():
        room = ROOM_INDEX[key]
        state.add_servants(room, seat, count)
        state.add_supply(seat, -count)
        assert state.supply[seat] >= 0, "test position uses more servants than the supply holds"


def set_room(state: GameState, room: int, seat: int, count: int) -> None:
    """Set ``seat``'s servants in ``room`` to ``count`` outright (the supply is not touched)."""
    state.add_servants(room, seat, count - state.rooms[room][seat])


def set_priv(state: GameState, seat: int, privilege: int, count: int) -> None:
    """Set ``seat``'s counter of ``privilege`` (``rules.P_KING``, ...) as if from nobles it holds."""
    row = state.priv[seat]
    state.priv = replace_at(state.priv, seat, replace_at(row, privilege, count))


def set_gold(state: GameState, *gold: int) -> None:
    """Set each seat's gold (taking it from the bank if the game has a gold limit)."""
    for seat, amount in enumerate(gold):
        if state.bank is not None:
            state.bank -= amount - state.gold[seat]
            assert state.bank >= 0
        state.gold = replace_at(state.gold, seat, amount)


def set_park(state: GameState, fields: dict[int, int | str | None]) -> None:
    """Set park fields: a noble id (``"N05"``), ``None`` for an empty field, or an int seat for its servant."""
    park = list(state.park)  # the state's park is a tuple
    for field, what in fields.items():
        if what is None:
            code = EMPTY
        elif isinstance(what, str):
            code = noble(what)
            # Keep the noble unique: wherever else it lies, that field becomes empty.
            for f, c in enumerate(park):
                if c == code and f != field:
                    park[f] = EMPTY
        else:
            code = servant_code(what)
        park[field] = code
    state.park = tuple(park)
    state.nobles_left = sum(1 for c in state.park if c >= 0)


def fill_park(state: GameState) -> None:
    """Lay nobles N01..N36 on fields 0..35 in order (N37..N42 in the box), so every field's neighbours are known."""
    state.park = tuple(range(36))
    state.box = list(range(36, len(state.components.nobles)))
    state.nobles_left = 36


def give_cards(state: GameState, seat: int, *cards: str) -> None:
    """Move the named cards from the deck into a seat's hand (the deck keeps the rest, so 36 cards remain)."""
    for card in cards:
        state.deck.remove(card)
        state.hands[seat].append(card)


def stack_deck(state: GameState, *cards: str) -> None:
    """Put the named cards on top of the deck, in order (taken from further down)."""
    for card in reversed(cards):
        state.deck.remove(card)
        state.deck.insert(0, card)


def clear_park(state: GameState, keep: int = 0) -> None:
    """Empty every park field but the first ``keep`` nobles (row by row)."""
    kept = 0
    park = list(state.park)  # the state's park is a tuple
    for f, code in enumerate(park):
        if code >= 0:
            if kept < keep:
                kept += 1
            else:
                park[f] = EMPTY
    state.park = tuple(park)
    state.nobles_left = kept


def start_turn(state: GameState, seat: int = 0) -> None:
    """Begin ``seat``'s turn (card window before action 1) and run the automatic steps to the first decision."""
    state.current = seat
    rules._begin_turn(state)  # the engine's own turn start: resets the turn, checks the end trigger
    rules._advance(state)


def pending(state: GameState) -> Decision | None:
    return None if state.over else rules.decision(state)


def advance_to(state: GameState, kind: str, window: str | None = None, seat: int | None = None) -> Decision:
    """Answer "nothing" to every decision until one of ``kind`` (and ``window`` for cards) is pending."""
    for _ in range(200):
        dec = pending(state)
        assert dec is not None, f"the game ended before a {kind} decision"
        if dec.kind == kind and (window is None or dec.window == window) and (seat is None or dec.seat == seat):
            return dec
        rules.apply(state, NOTHING[dec.kind])
    raise AssertionError(f"no {kind} decision reached")


def finish_turn(state: GameState) -> None:
    """Answer "nothing" until the current seat's turn is over (or the game is)."""
    seat, turn = state.current, state.turn_no
    while not state.over and state.current == seat and state.turn_no == turn:
        rules.apply(state, NOTHING[rules.decision(state).kind])


def snapshot(state: GameState) -> dict[str, object]:
    """Every mutable field of the state, copied, for before/after comparisons."""
    copy = state.copy()
    return {name: getattr(copy, name) for name in FIELD_NAMES}


def servants_of(state: GameState, seat: int) -> int:
    """All servants of one colour: supply, rooms, park fields and the general supply (always 25)."""
    return state.supply[seat] + state.servants_in_rooms(seat) + state.servants_in_park(seat) + state.general[seat]
