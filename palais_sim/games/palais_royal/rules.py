"""The rules of Palais Royal as a state machine of decision points (RULES.md sections 2 to 7).

``decision(state)`` describes the pending decision, ``apply(state, choice)`` checks a choice completely before it
changes anything (an illegal choice raises :class:`IllegalChoice` and leaves the state untouched), applies it and
runs every automatic step up to the next decision. A turn offers, in order:

    cards(start) -> reinforce -> cards(move) -> move -> [mint, automatic] -> seals -> [office, automatic]
    -> cards(recruit) -> recruit -> cards(recruit) -> recruit ... (one noble per decision, until the player stops)
    -> draw -> keep -> cards(end)

A decision with nothing to decide (no playable card, zero reinforcement, no movement points, ...) is skipped.

Choices:
- setup: 9 counts (room order of ``board.ROOM_KEYS``) summing to 5;
- cards: a sequence of card keys from the hand, played in that order (gold4 pays for later cards);
- reinforce: ``(count, sources)``: servants to the Gate; ``sources`` names a room per servant beyond the supply;
- move: a sequence of ``(from_room, to_room, count)`` transfers, each costing ``count * distance``;
- seals: ``(king, madame, sources)``: new servants into the King's cabinet and Madame's room;
- recruit: ``None`` to stop, a field, or ``(field, wild_violet, wild_turquoise[, source])``: the wild seals from
  two_seals cards, and where the edge servant comes from (``FROM_SUPPLY``, the default, or a room);
- draw: how many cards to draw at the Back entrance (0 up to ``decision.max_count``);
- keep: indices into the drawn cards to keep.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from palais_sim.core.errors import IllegalChoice
from palais_sim.core.streams import shuffle
from palais_sim.games.palais_royal import cards
from palais_sim.games.palais_royal.board import (
    BACK,
    CARDINAL,
    GATE,
    IS_EDGE,
    KING,
    MADAME,
    MINT,
    OFFICE,
    PARADE,
    PARK_NEIGHBOURS,
    STAIRWAY,
)
from palais_sim.games.palais_royal.setup import SETUP_PLACEMENT
from palais_sim.games.palais_royal.state import (
    EMPTY,
    P_CARDS,
    P_DIAGONAL,
    P_KING,
    P_MADAME,
    P_MINT,
    P_MOVE,
    P_REINFORCE,
    P_SERV1,
    P_SERV3,
    PH_ACTION3,
    PH_CARDS,
    PH_DRAW,
    PH_END_TURN,
    PH_KEEP,
    PH_MOVE,
    PH_OFFICE,
    PH_OVER,
    PH_RECRUIT,
    PH_REINFORCE,
    PH_SEALS,
    PH_SETUP,
    PH_TURN_START,
    PHASE_NAMES,
    PRIV_INDEX,
    W_END,
    W_MOVE,
    W_RECRUIT,
    W_START,
    WINDOW_NAMES,
    GameState,
    Position,
    replace_at,
    servant_code,
    sub_rng,
)

END_TRIGGER_NOBLES: Final = 12  # the last round starts when seat 1 is to begin a turn with this many nobles or fewer
FROM_SUPPLY: Final = -1  # recruit: the edge servant comes from the supply (else: a room index)
EXTRA_CARDS_PER_NOBLE: Final = 3  # cards_plus3
DECISION_KINDS: Final = ("setup", "cards", "reinforce", "move", "seals", "recruit", "draw", "keep")


@dataclass(init=False)
class Decision:
    """A pending decision: its kind, the seat (0-based) and what bounds the choice.

    The initialiser is written out (``init=False``): the one ``dataclass`` generates is Python code even in the
    compiled build, and a decision is made at every step of every game (3% of a compiled game's time)."""

    kind: str
    seat: int
    window: str  # cards: start, move, recruit or end
    playable: tuple[str, ...]  # cards: the hand's cards allowed in this window
    max_count: int  # setup: servants to place; reinforce: most to the Gate; draw: most cards; keep: most kept
    points: int  # move: movement points
    diagonal: bool  # move: diagonal moves allowed
    king_max: int  # seals: most new servants for the King's cabinet
    madame_max: int  # seals: most new servants for Madame
    recruits_left: int  # recruit: recruitments still allowed this turn
    wild_seals: int  # recruit: seals of either colour from two_seals cards, left this turn
    drawn: tuple[str, ...]  # keep: the cards drawn

    def __init__(
        self, kind: str, seat: int, window: str = "", playable: tuple[str, ...] = (), max_count: int = 0,
        points: int = 0, diagonal: bool = False, king_max: int = 0, madame_max: int = 0, recruits_left: int = 0,
        wild_seals: int = 0, drawn: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        self.kind, self.seat, self.window, self.playable = kind, seat, window, playable
        self.max_count, self.points, self.diagonal = max_count, points, diagonal
        self.king_max, self.madame_max, self.recruits_left = king_max, madame_max, recruits_left
        self.wild_seals, self.drawn = wild_seals, drawn

    @property
    def label(self) -> str:
        """The decision as errors and logs name it: its kind, and a card window's name (``cards(move)``)."""
        return self.kind + (f"({self.window})" if self.kind == "cards" else "")


# ---------------------------------------------------------------------------------------------- queries


def has_majority(state: Position, seat: int, room: int) -> bool:
    """Majority with the Cardinal tie-break; the all_majorities card gives it wherever the seat has a servant."""
    counts = state.rooms[room]
    mine = counts[seat]
    if mine == 0:
        return False
    if state.all_maj and seat == state.current:
        return True
    best_other = 0
    for other, c in enumerate(counts):
        if c > best_other and other != seat:
            best_other = c
    if mine != best_other:
        return mine > best_other
    # Tied for the most: the Cardinal decides, against every other seat on that count.
    cardinal = state.rooms[CARDINAL]
    my_cardinal = cardinal[seat]
    return all(cardinal[other] < my_cardinal for other, c in enumerate(counts) if c == mine and other != seat)


def noble_cost(park: tuple[int, ...], field: int, printed: int) -> int:
    """Gold to recruit a noble of printed cost ``printed`` on ``field``: less 1 per empty neighbour field (a field
    holding a servant counts as empty), never below 0."""
    if printed <= 0:
        return 0
    for f in PARK_NEIGHBOURS[field]:
        if park[f] < 0:
            printed -= 1
            if printed == 0:
                return 0
    return printed


def recruit_cost(state: Position, field: int) -> int:
    """Gold to recruit the noble on ``field`` now."""
    noble = state.park[field]
    if noble < 0:
        raise IllegalChoice(f"field {field} holds no noble")
    return noble_cost(state.park, field, state.components.nobles[noble].gold)


def final_round_due(state: GameState) -> bool:
    """Whether the turn about to begin starts the last round (seat 1 to move, 12 or fewer nobles in the park)."""
    return state.current == 0 and state.nobles_left <= END_TRIGGER_NOBLES


def draw_limit(state: Position, seat: int) -> int:
    """Cards the seat may draw at the Back entrance: 1 per own servant there, + 3 per cards_plus3 noble if it has
    at least one servant there."""
    back = state.rooms[BACK][seat]
    return back + EXTRA_CARDS_PER_NOBLE * state.priv[seat][P_CARDS] if back else 0


def reinforce_count(state: Position, seat: int) -> int:
    """Servants the seat may place on the Gate in action 1 (without the free_reinforce card)."""
    n = state.rooms[PARADE][seat] + 2 * state.priv[seat][P_REINFORCE] + state.extra_reinforce
    if has_majority(state, seat, PARADE):
        n += 1
    return n


def movement_points(state: Position, seat: int) -> int:
    n = state.rooms[STAIRWAY][seat] + 2 * state.priv[seat][P_MOVE] + state.extra_move
    if has_majority(state, seat, STAIRWAY):
        n += 1
    return n


def mint_income(state: Position, seat: int) -> int:
    n = state.rooms[MINT][seat] + 2 * state.priv[seat][P_MINT]
    if has_majority(state, seat, MINT):
        n += 1
    return n


def can_recruit(state: Position, seat: int, field: int, wild: int) -> bool:
    """Whether the noble on ``field`` is affordable now (gold, seals with ``wild`` extra seals, an Office servant)."""
    noble_idx = state.park[field]
    if noble_idx < 0 or state.rooms[OFFICE][seat] == 0:
        return False
    noble = state.components.nobles[noble_idx]
    short_violet = noble.violet - state.rooms[MADAME][seat]
    short_turquoise = noble.turquoise - state.rooms[KING][seat]
    short = (short_violet if short_violet > 0 else 0) + (short_turquoise if short_turquoise > 0 else 0)
    return short <= wild and noble_cost(state.park, field, noble.gold) <= state.gold[seat]


def any_recruit(state: GameState, seat: int) -> bool:
    return any(can_recruit(state, seat, f, state.wild) for f in range(36) if state.park[f] >= 0)


def playable_cards(state: GameState, seat: int, window: int) -> tuple[str, ...]:
    """Cards of the hand allowed in ``window`` that the seat can pay for now (gold4 counted as money)."""
    return cards.playable(state.hands[seat], window, state.components.card_prices, state.gold[seat], state.bank)


# ---------------------------------------------------------------------------------------------- the pending decision


def decision(state: GameState) -> Decision:
    """The decision the game waits for. Raises if the game is over."""
    phase = state.phase
    seat = state.current
    if phase == PH_CARDS:
        return Decision(
            "cards",
            seat,
            window=WINDOW_NAMES[state.window],
            playable=playable_cards(state, seat, state.window),
        )
    if phase == PH_REINFORCE:
        return Decision("reinforce", seat, max_count=_reinforce_max(state, seat))
    if phase == PH_MOVE:
        return Decision("move", seat, points=movement_points(state, seat), diagonal=state.priv[seat][P_DIAGONAL] > 0)
    if phase == PH_SEALS:
        king, madame = _seal_bonus(state, seat)
        return Decision("seals", seat, king_max=king, madame_max=madame)
    if phase == PH_RECRUIT:
        return Decision("recruit", seat, recruits_left=state.recruits_left, wild_seals=state.wild)
    if phase == PH_DRAW:
        return Decision("draw", seat, max_count=state.draw_max)
    if phase == PH_KEEP:
        return Decision("keep", seat, max_count=state.keep_max, drawn=tuple(state.drawn))
    if phase == PH_SETUP:
        return Decision("setup", state.setup_seat, max_count=SETUP_PLACEMENT)
    if phase == PH_TURN_START:
        raise IllegalChoice("the game is paused before a turn: call resume_turn")
    raise IllegalChoice("the game is over")


def _reinforce_max(state: GameState, seat: int) -> int:
    if state.free_reinforce:
        # Any number: everything in the supply, then every servant in a room other than the Gate.
        return state.supply[seat] + sum(state.rooms[r][seat] for r in range(1, 9))
    return reinforce_count(state, seat)


def _seal_bonus(state: GameState, seat: int) -> tuple[int, int]:
    priv = state.priv[seat]
    king = priv[P_KING] + (1 if has_majority(state, seat, KING) else 0)
    madame = priv[P_MADAME] + (1 if has_majority(state, seat, MADAME) else 0)
    return king, madame


# ---------------------------------------------------------------------------------------------- apply


def apply(state: GameState, choice: object) -> None:
    """Check ``choice`` against the pending decision, apply it and advance to the next decision."""
    state.step += 1  # counted before the turn may end, so the first decision of every turn has step 0
    phase = state.phase
    try:
        if phase == PH_CARDS:
            _apply_cards(state, choice)
        elif phase == PH_REINFORCE:
            _apply_reinforce(state, choice)
        elif phase == PH_MOVE:
            _apply_move(state, choice)
        elif phase == PH_SEALS:
            _apply_seals(state, choice)
        elif phase == PH_RECRUIT:
            _apply_recruit(state, choice)
        elif phase == PH_DRAW:
            _apply_draw(state, choice)
        elif phase == PH_KEEP:
            _apply_keep(state, choice)
        elif phase == PH_SETUP:
            _apply_setup(state, choice)
        elif phase == PH_TURN_START:
            raise IllegalChoice("the game is paused before a turn: call resume_turn")
        else:
            raise IllegalChoice("the game is over")
    except IllegalChoice:
        state.step -= 1  # nothing else was changed: apply checks a choice completely before changing anything
        raise


def _ints(value: object, what: str) -> list[int]:
    # isinstance with a tuple of types: compiled, `list | tuple` built a union type at every call
    if not isinstance(value, (list, tuple)):
        raise IllegalChoice(f"{what} must be a list, got {value!r}")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int):
            raise IllegalChoice(f"{what} must hold whole numbers, got {v!r}")
    return list(value)


def _take_new_servants(state: GameState, seat: int, count: int, sources: object, target: int) -> list[int]:
    """Check where ``count`` new servants come from: the supply first, then one listed room per servant.

    Returns the list of source rooms to take from (checked against the seat's servants); changes nothing.
    """
    sources_list = _ints(sources, "sources")
    beyond = count - state.supply[seat]
    need = beyond if beyond > 0 else 0
    if len(sources_list) != need:
        raise IllegalChoice(
            f"{count} new servants with {state.supply[seat]} in supply need {need} source room(s), "
            f"got {len(sources_list)}"
        )
    taken = [0] * 9
    for room in sources_list:
        if not 0 <= room < 9 or room == target:
            raise IllegalChoice(f"source room {room} is not a room servants can come from here")
        taken[room] += 1
        if taken[room] > state.rooms[room][seat]:
            raise IllegalChoice(f"not enough own servants in room {room} to take from")
    return sources_list


def _place_new_servants(state: GameState, seat: int, count: int, sources: list[int], target: int) -> None:
    from_supply = count - len(sources)
    state.add_supply(seat, -from_supply)
    for room in sources:
        state.add_servants(room, seat, -1)
    state.add_servants(target, seat, count)


def _apply_setup(state: GameState, choice: object) -> None:
    counts = _ints(choice, "setup placement")
    seat = state.setup_seat
    if len(counts) != 9 or any(c < 0 for c in counts) or sum(counts) != SETUP_PLACEMENT:
        raise IllegalChoice(f"setup placement must be 9 non-negative counts summing to {SETUP_PLACEMENT}")
    state.set_servants(seat, [row[seat] + c for row, c in zip(state.rooms, counts, strict=True)])
    state.add_supply(seat, -SETUP_PLACEMENT)
    state.setup_seat += 1
    if state.setup_seat == state.n:
        state.round = 1
        state.current = 0
        _begin_turn(state)
        _advance(state)


def _apply_cards(state: GameState, choice: object) -> None:
    if not isinstance(choice, (list, tuple)):
        raise IllegalChoice(f"cards to play must be a list of card keys, got {choice!r}")
    seat = state.current
    allowed = cards.WINDOW_CARDS[state.window]
    hand = state.hands[seat][:]
    for card in choice:
        if not isinstance(card, str):
            raise IllegalChoice(f"a card to play must be a card key, got {card!r}")
        if card not in allowed:
            raise IllegalChoice(f"card {card!r} cannot be played in the {WINDOW_NAMES[state.window]} window")
        if card not in hand:
            raise IllegalChoice(f"card {card!r} is not in the hand")
        hand.remove(card)
    prices = state.components.card_prices
    short = cards.unaffordable(choice, prices, state.gold[seat], state.bank)
    if short is not None:
        raise IllegalChoice(f"card {short!r} costs {prices[short]} gold, more than the seat has when it comes")
    # Checked: now apply.
    gold, bank = state.gold[seat], state.bank
    for card in choice:
        gold, bank = cards.pay(card, prices[card], gold, bank)
        cards.play(state, seat, card)
    state.gold = replace_at(state.gold, seat, gold)
    state.bank = bank
    _close_window(state)
    _advance(state)


def _apply_reinforce(state: GameState, choice: object) -> None:
    count: object
    sources: object
    if isinstance(choice, int) and not isinstance(choice, bool):
        count, sources = choice, ()
    elif isinstance(choice, (list, tuple)) and len(choice) == 2:
        count, sources = choice[0], choice[1]
    else:
        raise IllegalChoice(f"reinforce takes (count, sources), got {choice!r}")
    if isinstance(count, bool) or not isinstance(count, int):
        raise IllegalChoice(f"reinforce count must be a whole number, got {count!r}")
    seat = state.current
    most = _reinforce_max(state, seat)
    if not 0 <= count <= most:
        raise IllegalChoice(f"reinforce count {count} is outside 0..{most}")
    source_rooms = _take_new_servants(state, seat, count, sources, GATE)
    _place_new_servants(state, seat, count, source_rooms, GATE)
    state.phase = PH_CARDS
    state.window = W_MOVE
    _advance(state)


def _apply_move(state: GameState, choice: object) -> None:
    if not isinstance(choice, (list, tuple)):
        raise IllegalChoice(f"moves must be a list of (from, to, count), got {choice!r}")
    seat = state.current
    points = movement_points(state, seat)
    dist = state.layout.distances(state.priv[seat][P_DIAGONAL] > 0)
    mine = [state.rooms[r][seat] for r in range(9)]
    cost = 0
    for move in choice:
        if not isinstance(move, (list, tuple)) or len(move) != 3:
            raise IllegalChoice(f"a move must be (from, to, count), got {move!r}")
        src, dst, count = _ints(move, "move")
        if not (0 <= src < 9 and 0 <= dst < 9) or src == dst or count < 1:
            raise IllegalChoice(f"move {move!r} is not a move between two rooms")
        if mine[src] < count:
            raise IllegalChoice(f"move {move!r}: only {mine[src]} own servants in room {src}")
        mine[src] -= count
        mine[dst] += count
        cost += count * dist[src][dst]
    if cost > points:
        raise IllegalChoice(f"moves cost {cost} movement points, the seat has {points}")
    state.set_servants(seat, mine)
    state.phase = PH_ACTION3
    _advance(state)


def _apply_seals(state: GameState, choice: object) -> None:
    if not isinstance(choice, (list, tuple)) or len(choice) not in (2, 3):
        raise IllegalChoice(f"seals takes (king, madame, sources), got {choice!r}")
    king, madame = _ints(choice[:2], "seal servants")
    sources = _ints(choice[2] if len(choice) == 3 else (), "sources")
    seat = state.current
    king_max, madame_max = _seal_bonus(state, seat)
    if not (0 <= king <= king_max and 0 <= madame <= madame_max):
        raise IllegalChoice(f"seals ({king}, {madame}) exceed the allowed ({king_max}, {madame_max})")
    # The King's new servants come first (RULES.md Decision on the order of action 3).
    supply = state.supply[seat]
    king_sources = sources[: max(0, king - supply)]
    madame_sources = sources[len(king_sources) :]
    _take_new_servants(state, seat, king, king_sources, KING)
    _place_new_servants(state, seat, king, king_sources, KING)
    try:
        _take_new_servants(state, seat, madame, madame_sources, MADAME)
    except IllegalChoice:
        # Undo the King's part so the state is untouched.
        state.add_servants(KING, seat, -king)
        state.add_supply(seat, king - len(king_sources))
        for room in king_sources:
            state.add_servants(room, seat, 1)
        raise
    _place_new_servants(state, seat, madame, madame_sources, MADAME)
    state.phase = PH_OFFICE
    _advance(state)


def _parse_recruit(choice: object) -> tuple[int, int, int, int] | None:
    if choice is None:
        return None
    if isinstance(choice, int) and not isinstance(choice, bool):
        return choice, -1, -1, FROM_SUPPLY
    values = _ints(choice, "recruit")
    if len(values) == 3:
        return values[0], values[1], values[2], FROM_SUPPLY
    if len(values) == 4:
        return values[0], values[1], values[2], values[3]
    raise IllegalChoice(f"recruit takes (field, wild_violet, wild_turquoise[, source]) or None, got {choice!r}")


def default_wild_split(violet_short: int, turquoise_short: int, violet: int, turquoise: int, wild: int):
    """Use wild seals for what the seat lacks first, then as many more as the noble asks (they lapse anyway)."""
    wv, wt = violet_short, turquoise_short
    spare = wild - wv - wt
    extra_t = min(spare, turquoise - wt)
    wt += extra_t
    spare -= extra_t
    wv += min(spare, violet - wv)
    return wv, wt


def _apply_recruit(state: GameState, choice: object) -> None:
    parsed = _parse_recruit(choice)
    if parsed is None:
        state.phase = PH_DRAW
        _advance(state)
        return
    field, wv, wt, source = parsed
    seat = state.current
    if not 0 <= field < 36 or state.park[field] < 0:
        raise IllegalChoice(f"field {field} holds no noble")
    noble_idx = state.park[field]
    noble = state.components.nobles[noble_idx]
    king_have, madame_have = state.rooms[KING][seat], state.rooms[MADAME][seat]
    if wv == -1:
        wv, wt = default_wild_split(
            max(0, noble.violet - madame_have),
            max(0, noble.turquoise - king_have),
            noble.violet,
            noble.turquoise,
            state.wild,
        )
    if wv < 0 or wt < 0 or wv > noble.violet or wt > noble.turquoise or wv + wt > state.wild:
        raise IllegalChoice(f"wild seals ({wv}, {wt}) do not fit noble {noble.id} with {state.wild} wild seals")
    if noble.violet - wv > madame_have or noble.turquoise - wt > king_have:
        raise IllegalChoice(f"not enough seals for noble {noble.id}")
    if state.recruits_left < 1 or state.rooms[OFFICE][seat] < 1:
        raise IllegalChoice("no Office servant left to recruit with")
    cost = recruit_cost(state, field)
    if cost > state.gold[seat]:
        raise IllegalChoice(f"noble {noble.id} costs {cost} gold, the seat has {state.gold[seat]}")
    edge = IS_EDGE[field]
    if source != FROM_SUPPLY:
        if not edge:
            raise IllegalChoice(f"field {field} is not an edge field: no servant is placed, so no source is chosen")
        if not 0 <= source < 9:
            raise IllegalChoice(f"edge servant source {source} is neither the supply ({FROM_SUPPLY}) nor a room")
        left = state.rooms[source][seat] - (source == OFFICE) - (noble.violet - wv) * (source == MADAME)
        left -= (noble.turquoise - wt) * (source == KING)
        if left < 1:
            raise IllegalChoice(f"no own servant left in room {source} for the edge field")
    # Pay: the Office servant and the seal servants return to the supply (so the supply always holds one), then the
    # edge servant comes from the supply or the room the player chose.
    mine = [row[seat] for row in state.rooms]
    mine[OFFICE] -= 1
    mine[MADAME] -= noble.violet - wv
    mine[KING] -= noble.turquoise - wt
    supply_gain = 1 + (noble.violet - wv) + (noble.turquoise - wt)
    state.wild -= wv + wt
    state.add_gold(seat, -cost)
    if state.bank is not None:
        state.bank += cost
    # The park is a tuple (the views share it): a recruitment writes a new one.
    state.park = replace_at(state.park, field, servant_code(seat) if edge else EMPTY)
    if edge:
        if source == FROM_SUPPLY:
            supply_gain -= 1
        else:
            mine[source] -= 1
    state.set_servants(seat, mine)
    state.nobles_left -= 1
    state.nobles = replace_at(state.nobles, seat, (*state.nobles[seat], noble_idx))
    state.recruit_log.append((seat, noble_idx, field, state.round, cost, edge))
    state.recruits_left -= 1
    if noble.privilege is not None:
        p = PRIV_INDEX[noble.privilege]
        privileges = state.priv[seat]
        state.priv = replace_at(state.priv, seat, replace_at(privileges, p, privileges[p] + 1))
        if p in (P_SERV1, P_SERV3):
            gain = min(1 if p == P_SERV1 else 3, state.general[seat])
            state.general = replace_at(state.general, seat, state.general[seat] - gain)
            supply_gain += gain
    state.add_supply(seat, supply_gain)
    # Any-time cards may be played between two recruitments: the recruit window opens again.
    state.phase, state.window = PH_CARDS, W_RECRUIT
    _advance(state)


def _apply_draw(state: GameState, choice: object) -> None:
    if isinstance(choice, bool) or not isinstance(choice, int):
        raise IllegalChoice(f"draw takes a number of cards, got {choice!r}")
    if not 0 <= choice <= state.draw_max:
        raise IllegalChoice(f"draw {choice} cards is outside 0..{state.draw_max}")
    seat = state.current
    drawn: list[str] = []
    state.drawn = drawn  # filled card by card: a chance observer sees the cards drawn before each draw
    for _ in range(choice):
        card = _draw_card(state)
        if card is None:
            break
        drawn.append(card)
    state.draw_max = 0
    if drawn:
        state.keep_max = state.rooms[BACK][seat]
        state.phase = PH_KEEP
        return
    state.phase, state.window = PH_CARDS, W_END
    _advance(state)


def _apply_keep(state: GameState, choice: object) -> None:
    picks = _ints(choice, "cards to keep")
    drawn = state.drawn
    if len(set(picks)) != len(picks) or any(not 0 <= i < len(drawn) for i in picks):
        raise IllegalChoice(f"keep indices {picks} do not name distinct drawn cards (0..{len(drawn) - 1})")
    if len(picks) > state.keep_max:
        raise IllegalChoice(f"keeping {len(picks)} cards needs as many Back entrance servants ({state.keep_max})")
    seat = state.current
    chosen = set(picks)
    state.hands[seat].extend(card for i, card in enumerate(drawn) if i in chosen)
    state.discard = state.discard + tuple(card for i, card in enumerate(drawn) if i not in chosen)
    state.add_servants(BACK, seat, -len(picks))
    state.add_supply(seat, len(picks))
    state.drawn = []
    state.phase, state.window = PH_CARDS, W_END
    _advance(state)


# ---------------------------------------------------------------------------------------------- automatic steps


def _advance(state: GameState) -> None:
    """Run automatic steps until a decision with a real choice is pending or the game is over.

    A decision with nothing to decide is skipped. This is a loop, not recursion: whole turns may pass without a
    single decision (no cards, no servants in the Parade ground or the Stairway, nothing to recruit).
    """
    while True:
        phase = state.phase
        seat = state.current
        if phase == PH_CARDS:
            # The recruit window reopens between recruitments only while the Office allows another one.
            hand = state.hands[seat]
            if (
                hand
                and (state.window != W_RECRUIT or state.recruits_left > 0)
                and cards.playable(hand, state.window, state.components.card_prices, state.gold[seat], state.bank)
            ):
                return
            _close_window(state)
        elif phase == PH_REINFORCE:
            if _reinforce_max(state, seat) > 0:
                return
            state.phase, state.window = PH_CARDS, W_MOVE
        elif phase == PH_MOVE:
            if movement_points(state, seat) > 0:
                return
            state.phase = PH_ACTION3
        elif phase == PH_ACTION3:
            # Action 3a (mint) is automatic: gold is never worth refusing. Then the seals decision, if any.
            income = mint_income(state, seat)
            if income:
                _gain_gold(state, seat, income)
            king, madame = _seal_bonus(state, seat)
            if king or madame:
                state.phase = PH_SEALS
                return
            state.phase = PH_OFFICE
        elif phase == PH_OFFICE:
            # Action 3c: count the Office servants; then the recruit card window and action 4.
            state.recruits_left = state.rooms[OFFICE][seat]
            if state.recruits_left > 0:
                state.phase, state.window = PH_CARDS, W_RECRUIT
            else:
                state.phase = PH_DRAW
        elif phase == PH_RECRUIT:
            if state.recruits_left > 0 and any_recruit(state, seat):
                return
            state.phase = PH_DRAW
        elif phase == PH_DRAW:
            # Action 5: drawing is optional, so how many cards is a decision (when there is a card to draw).
            state.draw_max = draw_limit(state, seat)
            if state.draw_max and (state.deck or state.discard):
                return
            state.draw_max = 0
            state.phase, state.window = PH_CARDS, W_END
        elif phase == PH_END_TURN:
            _end_turn(state)
        else:  # a pending decision (setup, seals, keep) or the end of the game
            return


def _close_window(state: GameState) -> None:
    """Move on from a card window to the action it precedes."""
    window = state.window
    if window == W_START:
        state.phase = PH_REINFORCE
    elif window == W_MOVE:
        state.phase = PH_MOVE
    elif window == W_RECRUIT:
        state.phase = PH_RECRUIT
    else:
        state.phase = PH_END_TURN


def _begin_turn(state: GameState) -> None:
    state.reset_turn()
    state.turn_no += 1
    if state.pause_at_turn:
        state.phase, state.window = PH_TURN_START, W_START
    else:
        _start_turn(state)


def _start_turn(state: GameState) -> None:
    """The turn begins: the end trigger is checked (RULES.md section 7), then the start card window opens."""
    if not state.final_round and final_round_due(state):
        state.final_round = True
    state.phase, state.window = PH_CARDS, W_START


def resume_turn(state: GameState) -> None:
    """Start the turn a state paused before (``pause_at_turn``, or an imported position) and run up to its first
    decision. A position with 12 or fewer nobles and seat 1 to move starts the final round here."""
    if state.phase != PH_TURN_START:
        raise IllegalChoice("the game is not paused before a turn")
    _start_turn(state)
    _advance(state)


def _end_turn(state: GameState) -> None:
    cards.end_of_turn(state)
    state.current += 1
    if state.current == state.n:
        state.current = 0
        if state.final_round:
            _finish(state, finished=True)
            return
        if state.round >= state.options.max_rounds:
            _finish(state, finished=False)
            return
        state.round += 1
    _begin_turn(state)


def _finish(state: GameState, finished: bool) -> None:
    state.over = True
    state.finished = finished
    state.phase = PH_OVER
    state.reset_turn()


def _gain_gold(state: GameState, seat: int, amount: int) -> None:
    if state.bank is not None:
        amount = min(amount, state.bank)
        state.bank -= amount
    state.add_gold(seat, amount)


def _draw_card(state: GameState) -> str | None:
    """The top card of the deck. As soon as the last card is drawn the discard pile is shuffled into a new deck
    (RULES.md section 4, action 5); cards discarded later start a new discard pile."""
    if not state.deck:
        _reshuffle(state)
        if not state.deck:
            return None
    hook = state.chance
    if hook is not None:
        hook(state, "draw")
    card = state.deck.pop(0)
    if not state.deck:
        _reshuffle(state)
    return card


def _reshuffle(state: GameState) -> None:
    if not state.discard:
        return
    hook = state.chance
    if hook is not None:
        hook(state, "reshuffle")
    state.shuffles += 1
    state.deck = list(state.discard)
    state.discard = ()
    shuffle(sub_rng(state.seed, f"shuffle:{state.shuffles}"), state.deck)


def phase_name(state: GameState) -> str:
    return PHASE_NAMES[state.phase]
