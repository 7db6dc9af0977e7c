"""The rules of Palastgeflüster as a state machine of decisions (PALASTGEFLUESTER.md sections 2 to 6).

``decision(state)`` describes the pending decision; ``legal_options(state, decision)`` lists every legal choice;
``apply(state, choice)`` checks a choice completely before it changes anything (an illegal one raises
:class:`IllegalChoice` and leaves the state untouched), applies it and runs every automatic step up to the next
decision. Seats are 0-based. The decision kinds and their choices:

- ``play``: a card id from the seat's hand (cards are ints, see ``components``), one whose person is not yet in the
  seat's display while the hand holds any such card (a repeat is played only when forced: ``playable``);
- ``next``: after a brown card, a seat among ``decision.seats`` (tied for the fewest display cards); asked only when
  two or more tie;
- ``swap`` (Mundschenk): ``(seat_a, card_a, seat_b, card_b)`` with ``seat_a < seat_b``, a card of each display;
- ``guard`` (Wächter): a card id of the seat's display (not the Wächter just played);
- ``discard`` (Zofe): a card id from the hand;
- ``wizard`` (Zauberer): ``(partner, count)``;
- ``give`` (Zauberer): a sorted tuple of ``decision.count`` card ids from the seat's hand;
- ``partner_give``: the same from the partner's hand; ``decision.seat`` is the partner, ``decision.partner`` the
  Zauberer's player. It is asked after ``give`` but the partner does not see what was given (no view shows it):
  both sides give face down at the same time.

Order of the round-end checks after a card is laid out (the reference's Decision in section 4): a repeat (4a), six
different (4b), the jester under the jester king (4c); the first that applies ends the round and no action follows.
So a sixth different person that is the Hofnarr under the Hofnarr king scores (b), a repeated Hofnarr is (a).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Final, NamedTuple

from palais_sim.core.errors import IllegalChoice
from palais_sim.games.palastgefluester.components import (
    BROWN,
    HOFMARSCHALL,
    HOFNARR,
    MUNDSCHENK,
    PERSONS,
    SCHATZMEISTER,
    WAECHTER,
    ZAUBERER,
    ZOFE,
    PgComponents,
)
from palais_sim.games.palastgefluester.state import (
    DISCARD,
    GIVE,
    GUARD,
    JESTER,
    NEXT,
    OVER,
    PARTNER,
    PHASE_KINDS,
    PLAY,
    REPEAT,
    SIX,
    SWAP,
    WIZARD,
    PgOptions,
    PgState,
    RoundEnd,
    empty_state,
    shuffle_rng,
)

MUNDSCHENK_IDLE_CARDS: Final = 2  # a Mundschenk played as the 1st or 2nd card of a round has no action


class Decision(NamedTuple):
    """A pending decision: its kind, the seat asked (0-based) and what bounds the choice."""

    kind: str
    seat: int
    count: int = 0  # type: ignore[assignment]  # give / partner_give: how many cards (shadows tuple.count)
    seats: tuple[int, ...] = ()  # next: the tied seats
    partner: int = -1  # give: the partner; partner_give: the Zauberer's player

    @property
    def label(self) -> str:
        """The decision as errors and logs name it."""
        return self.kind


# ---------------------------------------------------------------------------------------------- setup


def new_game(options: PgOptions, seed: int, components: PgComponents | None = None) -> PgState:
    """A game at its first decision: seat 1 (index 0) to play a card."""
    state = empty_state(options, seed, components)
    if options.players not in state.components.player_counts:
        raise ValueError(f"the component set has no win threshold for {options.players} players")
    pile = list(state.components.kings)
    shuffle_rng(seed, "kings", 0).shuffle(pile)
    state.king_pile = pile
    state.king_shuffles = 1
    _deal(state)
    return state


def _deal(state: PgState) -> None:
    """Collect every person card, shuffle and deal a hand to each seat; the rest is the draw pile."""
    hook = state.chance
    if hook is not None:
        hook(state, "deal")
    rng = shuffle_rng(state.seed, "deal", state.shuffles)
    state.shuffles += 1
    deal_cards(state, rng)


def deal_cards(state: PgState, rng: random.Random) -> None:
    """The deal itself, shuffled by ``rng`` (the luck correction deals sampled hands on copies with its own)."""
    comps = state.components
    cards = comps.cards_in_game(state.n)
    rng.shuffle(cards)
    known = [0] * comps.card_count
    size = comps.hand_size
    for s in range(state.n):
        hand = cards[len(cards) - size :]
        del cards[len(cards) - size :]
        state.hands[s] = hand
        bit = 1 << s
        for c in hand:
            known[c] = bit
        state.displays[s] = []
    state.draw = cards
    state.discards = []
    state.known = known


# ---------------------------------------------------------------------------------------------- queries


def points_to_win(state: PgState) -> int:
    return state.components.points_to_win(state.n)


def decision(state: PgState) -> Decision:
    phase = state.phase
    seat = state.current
    if phase in (PLAY, SWAP, GUARD, DISCARD, WIZARD):
        return Decision(PHASE_KINDS[phase], seat)
    if phase == NEXT:
        return Decision("next", seat, seats=tuple(state.tie))
    if phase == GIVE:
        return Decision("give", seat, state.count, partner=state.partner)
    if phase == PARTNER:
        return Decision("partner_give", state.partner, state.count, partner=seat)
    raise ValueError("the game is over: no decision is pending")


def swap_options(displays, last_card: int) -> list[tuple[int, int, int, int]]:
    """Every legal Mundschenk swap: one card from each of two displays, the Mundschenk just played excluded, and
    no display holding a person twice afterwards."""
    out = []
    n = len(displays)
    for a in range(n):
        da = displays[a]
        if not da:
            continue
        persons_a = {c % PERSONS for c in da}
        for b in range(a + 1, n):
            db = displays[b]
            if not db:
                continue
            persons_b = {c % PERSONS for c in db}
            for ca in da:
                if ca == last_card:
                    continue
                pa = ca % PERSONS
                for cb in db:
                    if cb == last_card:
                        continue
                    pb = cb % PERSONS
                    if pa == pb or (pb not in persons_a and pa not in persons_b):
                        out.append((a, ca, b, cb))
    return out


def playable(hand, display) -> list[int]:
    """The cards of ``hand`` that may be laid out in ``display``, sorted: those whose person is not yet there, or,
    when every card repeats a person of the display, the whole hand (the reference's Decision on 4a: a repeat is
    played only when forced, the seed's "auslegen *müssen*")."""
    persons = {c % PERSONS for c in display}
    new = sorted(c for c in hand if c % PERSONS not in persons)
    return new if new else sorted(hand)


def options_for(hand, displays, hand_sizes, last_card: int, decision: Decision) -> list:
    """Every legal choice at ``decision``, from what the deciding seat sees: its hand, the displays, the hand sizes
    and the card just played (so a view can ask it too)."""
    kind = decision.kind
    if kind == "play":
        return playable(hand, displays[decision.seat])
    if kind == "discard":
        return sorted(hand)
    if kind == "next":
        return list(decision.seats)
    if kind == "swap":
        return swap_options(displays, last_card)
    if kind == "guard":
        return sorted(c for c in displays[decision.seat] if c != last_card)
    if kind == "wizard":
        mine = len(hand)
        return [
            (p, k) for p in range(len(hand_sizes)) if p != decision.seat for k in range(1, min(mine, hand_sizes[p]) + 1)
        ]
    if kind == "give" or kind == "partner_give":
        return list(combinations(sorted(hand), decision.count))
    raise ValueError(f"unknown decision kind {kind!r}")


def legal_options(state: PgState, decision: Decision) -> list:
    """Every legal choice at ``decision`` (the pending one of ``state``)."""
    return options_for(
        state.hands[decision.seat], state.displays, [len(h) for h in state.hands], state.last_card, decision
    )


# ---------------------------------------------------------------------------------------------- applying


def _card(choice: object, where: str) -> int:
    if isinstance(choice, bool) or not isinstance(choice, int):
        raise IllegalChoice(f"{where}: expected a card id (an int), got {choice!r}")
    return choice


def _hand_card(choice: object, hand: list[int], where: str) -> int:
    """The card ``choice`` names, which must be in ``hand``."""
    card = _card(choice, where)
    if card not in hand:
        raise IllegalChoice(f"{where}: card {card} is not in the hand {sorted(hand)}")
    return card


def _cards(choice: object, count: int, hand: list[int], where: str) -> list[int]:
    if not isinstance(choice, tuple | list) or len(choice) != count:
        raise IllegalChoice(f"{where}: expected {count} card id(s), got {choice!r}")
    cards = [_card(c, where) for c in choice]
    if len(set(cards)) != count:
        raise IllegalChoice(f"{where}: a card is named twice in {choice!r}")
    missing = [c for c in cards if c not in hand]
    if missing:
        raise IllegalChoice(f"{where}: card(s) {missing} not in the hand {sorted(hand)}")
    return sorted(cards)


def apply(state: PgState, choice: object) -> None:
    phase = state.phase
    if phase == PLAY:
        _apply_play(state, choice)
    elif phase == NEXT:
        if isinstance(choice, bool) or not isinstance(choice, int) or choice not in state.tie:
            raise IllegalChoice(f"next: {choice!r} is not one of the tied seats {state.tie}")
        state.current = choice
        state.tie = []
        state.phase = PLAY
    elif phase == SWAP:
        _apply_swap(state, choice)
    elif phase == GUARD:
        card = _card(choice, "guard")
        display = state.displays[state.current]
        if card not in display or card == state.last_card:
            raise IllegalChoice(f"guard: card {card} is not another card of the display {display}")
        display.remove(card)
        state.hands[state.current].append(card)
        state.known[card] = (1 << state.n) - 1  # it came back from the face-up display: everyone saw it
        _next_player(state)
    elif phase == DISCARD:
        _apply_discard(state, choice)
    elif phase == WIZARD:
        if not isinstance(choice, tuple | list) or len(choice) != 2:
            raise IllegalChoice(f"wizard: expected (partner, count), got {choice!r}")
        partner, count = _card(choice[0], "wizard partner"), _card(choice[1], "wizard count")
        seat = state.current
        if not 0 <= partner < state.n or partner == seat:
            raise IllegalChoice(f"wizard: partner {partner} must be another seat (0..{state.n - 1})")
        most = min(len(state.hands[seat]), len(state.hands[partner]))
        if not 1 <= count <= most:
            raise IllegalChoice(f"wizard: count {count} must be 1..{most} (no more than either holds)")
        state.partner, state.count = partner, count
        state.phase = GIVE
    elif phase == GIVE:
        state.given = _cards(choice, state.count, state.hands[state.current], "give")
        state.phase = PARTNER
    elif phase == PARTNER:
        taken = _cards(choice, state.count, state.hands[state.partner], "partner_give")
        _exchange(state, taken)
    else:
        raise IllegalChoice("the game is over")
    state.decisions += 1


def _apply_play(state: PgState, choice: object) -> None:
    seat = state.current
    hand = state.hands[seat]
    card = _hand_card(choice, hand, "play")
    person = card % PERSONS
    display = state.displays[seat]
    repeat = any(c % PERSONS == person for c in display)
    if repeat:
        allowed = playable(hand, display)
        if card not in allowed:  # the hand holds new persons: these
            raise IllegalChoice(
                f"play: card {card} repeats a person of the display; a repeat is played only when every card of the "
                f"hand repeats, and {allowed} do not"
            )
    comps = state.components
    hand.remove(card)
    state.known[card] = 0
    display.append(card)
    state.round_cards += 1
    state.plays[seat] += 1
    if comps.colour(card) == BROWN:
        state.brown_played[seat] += 1
    state.last_card = card
    # the end of the round, before any action (section 3 step 2)
    if repeat:
        _end_round(state, REPEAT, seat)
        return
    if len(display) >= comps.different_to_end:  # a display never holds a person twice: all are different
        _end_round(state, SIX, seat)
        return
    blocked = state.blocked
    if person == HOFNARR and blocked == HOFNARR:
        _end_round(state, JESTER, seat)
        return
    if person == blocked:
        _next_player(state)
        return
    if person == HOFMARSCHALL:
        _reveal_king(state)
    elif person == SCHATZMEISTER:
        everyone = (1 << state.n) - 1
        for c in hand:
            state.known[c] = everyone
    elif person == ZAUBERER:  # lapses only if no exchange is possible (an empty hand on either side)
        if hand and any(state.hands[p] for p in range(state.n) if p != seat):
            state.phase = WIZARD
            return
    elif person == ZOFE:
        if hand:
            state.phase = DISCARD
            return
    elif person == MUNDSCHENK:  # Decision: compulsory when a legal swap exists, lapses otherwise
        if state.round_cards > MUNDSCHENK_IDLE_CARDS and swap_options(state.displays, card):
            state.phase = SWAP
            return
    elif person == WAECHTER and len(display) > 1:  # with no other card in the display the action lapses
        state.phase = GUARD
        return
    _next_player(state)


def _reveal_king(state: PgState) -> None:
    hook = state.chance
    if hook is not None:
        hook(state, "king")
    if not state.king_pile:  # all six are revealed: shuffle them into a new pile
        pile = state.kings_revealed
        state.kings_revealed = []
        shuffle_rng(state.seed, "kings", state.king_shuffles).shuffle(pile)
        state.king_shuffles += 1
        state.king_pile = pile
    state.kings_revealed.append(state.king_pile.pop())


def _apply_swap(state: PgState, choice: object) -> None:
    if not isinstance(choice, tuple | list) or len(choice) != 4:
        raise IllegalChoice(f"swap: expected (seat_a, card_a, seat_b, card_b), got {choice!r}")
    a, ca, b, cb = (_card(x, "swap") for x in choice)
    if a > b:
        a, ca, b, cb = b, cb, a, ca
    if (a, ca, b, cb) not in swap_options(state.displays, state.last_card):
        raise IllegalChoice(f"swap: {choice!r} is not a legal swap (two displays, not the Mundschenk, no repeats)")
    da, db = state.displays[a], state.displays[b]
    da[da.index(ca)] = cb
    db[db.index(cb)] = ca
    _next_player(state)


def _apply_discard(state: PgState, choice: object) -> None:
    seat = state.current
    hand = state.hands[seat]
    card = _hand_card(choice, hand, "discard")
    bit = 1 << seat
    hand.remove(card)
    state.discards.append(card)
    state.known[card] = bit
    if not state.draw and state.discards:  # Decision: an empty pile is refilled from the Zofe's discards
        hook = state.chance
        if hook is not None:
            hook(state, "reshuffle")
        pile = state.discards
        state.discards = []
        shuffle_rng(state.seed, "discards", state.shuffles).shuffle(pile)
        state.shuffles += 1
        state.draw = pile
    if state.draw:
        hook = state.chance
        if hook is not None:
            hook(state, "draw")
        drawn = state.draw.pop()
        hand.append(drawn)
        state.known[drawn] = bit
    _next_player(state)


def _exchange(state: PgState, taken: list[int]) -> None:
    """The Zauberer's exchange, both sides at once; each card given is known to its giver (and receiver)."""
    seat, partner = state.current, state.partner
    both = (1 << seat) | (1 << partner)
    mine, theirs = state.hands[seat], state.hands[partner]
    for c in state.given:
        mine.remove(c)
        theirs.append(c)
        state.known[c] = both
    for c in taken:
        theirs.remove(c)
        mine.append(c)
        state.known[c] = both
    state.given = []
    state.partner = -1
    state.count = 0
    _next_player(state)


def _next_player(state: PgState) -> None:
    """The owner of the card's colour plays next; after a brown card the seat with the fewest display cards, the
    brown card's player choosing among ties."""
    seat = state.current
    colour = state.components.colour(state.last_card)
    if colour != BROWN:
        if colour == seat:
            state.own_replays[seat] += 1
        state.current = colour
        state.phase = PLAY
        return
    sizes = [len(d) for d in state.displays]
    fewest = min(sizes)
    tie = [s for s in range(state.n) if sizes[s] == fewest]
    if len(tie) == 1:
        state.current = tie[0]
        state.phase = PLAY
    else:
        state.tie = tie
        state.phase = NEXT


def _end_round(state: PgState, kind: str, seat: int) -> None:
    n = state.n
    scorers = (seat,) if kind == SIX else tuple(s for s in range(n) if s != seat)
    for s in scorers:
        state.points[s] += 1
    for s in range(n):
        if not (kind == REPEAT and s == seat):  # the variant: whoever caused a repeat notes nothing
            state.noted[s] += len(state.displays[s])
    state.round_ends.append(RoundEnd(state.round, kind, seat, scorers, state.round_cards))
    target = points_to_win(state)
    reached = [s for s in range(n) if state.points[s] >= target]
    if reached:
        if state.options.tiebreak == "noted":
            keys = {s: state.noted[s] for s in reached}
        else:
            keys = {s: len(state.displays[s]) for s in reached}
        best = max(keys.values())
        state.winners = [s for s in reached if keys[s] == best]
        state.finished = True
        state.phase = OVER
        return
    if state.round >= state.options.max_rounds:
        state.finished = False
        state.winners = []
        state.phase = OVER
        return
    state.round += 1
    state.round_cards = 0
    state.last_card = -1
    _deal(state)
    state.current = seat
    state.phase = PLAY
