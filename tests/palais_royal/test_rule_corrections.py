"""The rule corrections of RULES.md (sections 4, 5 and 7, corrected 2026-11-21), each built from the rule's text.

Each test quotes the sentence it checks.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb

import pytest

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import BACK, GATE, KING, MADAME, MINT, OFFICE, STAIRWAY
from palais_sim.games.palais_royal.notation import export_position, import_position
from palais_sim.games.palais_royal.options import legal_options, recruit_options, seal_options
from palais_sim.games.palais_royal.rules import FROM_SUPPLY, IllegalChoice
from palais_sim.games.palais_royal.state import PH_TURN_START, replace_at, servant_code
from palais_sim.games.palais_royal.view import PlayerView
from tests.palais_royal.helpers import (
    advance_to,
    blank_state,
    clear_park,
    fill_park,
    give_cards,
    noble,
    put,
    set_gold,
    set_park,
    set_priv,
    stack_deck,
    start_turn,
)

# ---------------------------------------------------------------------------------------------- section 5


def test_all_majorities_stays_in_front_until_the_end_of_the_turn_so_it_cannot_be_drawn_again() -> None:
    """ "all_majorities, which stays face up in front of the player until the end of that turn ("bleibt bis zum
    Ende des Zuges offen vor dem Spieler liegen") and only then goes to the discard pile, so it cannot be drawn
    again in the same turn." Here the deck runs out during the turn's draw, so the discard pile is reshuffled
    while the card lies in front of the player: it must not be in the new deck."""
    state = blank_state(2)
    put(state, 0, back_entrance=3)
    put(state, 1, parade_ground=1)
    set_gold(state, 3, 0)
    give_cards(state, 0, "all_majorities")
    # The deck holds one card; the other all_majorities cards are in seat 1's hand, everything else is discarded.
    rest = [c for c in state.deck if c != "all_majorities"]
    state.hands[1] = [c for c in state.deck if c == "all_majorities"]
    state.deck, state.discard = rest[:1], tuple(rest[1:])
    start_turn(state, 0)
    dec = advance_to(state, "cards", "start")
    assert "all_majorities" in dec.playable
    rules.apply(state, ["all_majorities"])
    assert state.in_front == ("all_majorities",) and "all_majorities" not in state.discard
    assert state.all_maj
    dec = advance_to(state, "draw")
    rules.apply(state, dec.max_count)  # the last card, then the reshuffled discard pile
    assert state.shuffles == 1
    drawn = rules.decision(state).drawn
    assert "all_majorities" not in drawn and "all_majorities" not in state.deck
    rules.apply(state, ())  # nothing kept, and the turn ends (nothing to play in the end window)
    assert state.current == 1
    assert state.in_front == () and state.discard[-len(drawn) - 1 :] == (*drawn, "all_majorities")
    assert not state.all_maj


def gold4_between_recruitments_position(gold_limit: int | None, office: int = 2):
    """Seat 0 at its first card window before recruiting: ``office`` Office servants, 3 gold, one gold4; N03 (3
    gold) on field 14 and N23 (4 gold) on field 21, every other field holding a noble."""
    state = blank_state(2, gold_limit=gold_limit)
    fill_park(state)
    park = list(state.park)
    park[14], park[2] = park[2], park[14]  # N03 to field 14
    park[21], park[22] = park[22], park[21]  # N23 to field 21
    state.park = tuple(park)
    put(state, 0, office=office, king=3, madame=4)
    put(state, 1, parade_ground=1)
    set_gold(state, 3, 0)
    give_cards(state, 0, "gold4")
    start_turn(state, 0)
    advance_to(state, "cards", "recruit")
    return state


def test_any_time_cards_can_be_played_between_two_recruitments() -> None:
    """ "any-time cards (gold4, points2, points4) can be played between two recruitments too, so a player can
    recruit, play gold4, and recruit again"."""
    state = gold4_between_recruitments_position(None)
    rules.apply(state, ())  # no card before the first recruitment
    rules.apply(state, (14, 0, 0))
    assert state.gold[0] == 0
    dec = rules.decision(state)
    assert (dec.kind, dec.window, dec.playable) == ("cards", "recruit", ("gold4",))
    rules.apply(state, ["gold4"])
    assert state.gold[0] == 4
    dec = rules.decision(state)
    assert dec.kind == "recruit" and dec.recruits_left == 1
    cost = rules.recruit_cost(state, 21)
    rules.apply(state, (21, 0, 0))
    assert state.nobles[0] == (noble("N03"), noble("N23")) and state.gold[0] == 4 - cost


def test_with_a_gold_limit_gold_paid_for_a_noble_refills_the_bank_for_gold4() -> None:
    """ "with a gold_limit this order matters, because paid gold refills the bank": with a bank of 3 that the seats
    hold entirely, gold4 takes nothing before the recruitment and 3 gold after it."""
    before = gold4_between_recruitments_position(3)
    assert before.bank == 0
    rules.apply(before, ["gold4"])
    assert (before.gold[0], before.bank) == (3, 0)  # played: nothing to take
    after = gold4_between_recruitments_position(3)
    rules.apply(after, ())
    rules.apply(after, (14, 0, 0))
    assert (after.gold[0], after.bank) == (0, 3)
    rules.apply(after, ["gold4"])
    assert (after.gold[0], after.bank) == (3, 0)


def test_no_card_window_between_recruitments_once_the_office_is_used_up() -> None:
    state = gold4_between_recruitments_position(None, office=1)
    rules.apply(state, ())
    rules.apply(state, (14, 0, 0))
    dec = rules.decision(state)
    assert not (dec.seat == 0 and dec.kind in ("recruit", "cards") and dec.window in ("", "recruit"))


# ---------------------------------------------------------------------------------------------- section 4: edge servant


def edge_position(office: int = 1, mint: int = 2):
    """Seat 0 at its recruit decision; N03 (3 gold, 1 violet, 1 turquoise) on edge field 1."""
    state = blank_state(2)
    fill_park(state)
    set_park(state, {1: "N03"})
    put(state, 0, office=office, king=1, madame=1, mint=mint)
    put(state, 1, parade_ground=1)
    set_gold(state, 10, 0)
    start_turn(state, 0)
    advance_to(state, "recruit", seat=0)
    return state


def test_the_edge_servant_may_come_from_any_room_even_with_servants_in_the_supply() -> None:
    """ "The servant placed on an edge field in action 4 is different: the player chooses freely, from the supply
    or from any room, even when the supply is not empty"."""
    state = edge_position()
    supply, mint = state.supply[0], state.rooms[MINT][0]
    assert supply > 0
    rules.apply(state, (1, 0, 0, MINT))
    assert state.park[1] == servant_code(0)
    assert state.rooms[MINT][0] == mint - 1
    assert state.supply[0] == supply + 3  # Office, King and Madame servants returned; none taken


def test_the_edge_servant_comes_from_the_supply_by_default() -> None:
    state = edge_position()
    supply = state.supply[0]
    rules.apply(state, (1, 0, 0))
    assert state.supply[0] == supply + 3 - 1
    rules_state = edge_position()
    rules.apply(rules_state, (1, 0, 0, FROM_SUPPLY))
    assert rules_state.supply[0] == supply + 3 - 1


@pytest.mark.parametrize(
    ("choice", "why"),
    [
        ((1, 0, 0, STAIRWAY), "no own servant"),  # no servant in the Stairway
        ((1, 0, 0, OFFICE), "no own servant"),  # the only Office servant returns to the supply first
        ((1, 0, 0, KING), "no own servant"),  # the only King servant is a seal of this noble
        ((1, 0, 0, 9), "neither the supply"),
    ],
)
def test_an_edge_servant_source_must_hold_a_servant_after_the_returns(choice: tuple, why: str) -> None:
    state = edge_position()
    before = state.copy()
    with pytest.raises(IllegalChoice, match=why):
        rules.apply(state, choice)
    assert state.park == before.park and state.rooms == before.rooms and state.supply == before.supply


def test_a_second_office_servant_can_be_the_edge_servant() -> None:
    state = edge_position(office=2)
    rules.apply(state, (1, 0, 0, OFFICE))
    assert state.rooms[OFFICE][0] == 0


def test_an_inner_field_takes_no_source() -> None:
    state = blank_state(2)
    fill_park(state)
    set_park(state, {14: "N03"})
    put(state, 0, office=1, king=1, madame=1, mint=1)
    put(state, 1, parade_ground=1)
    set_gold(state, 10, 0)
    start_turn(state, 0)
    advance_to(state, "recruit", seat=0)
    with pytest.raises(IllegalChoice, match="not an edge field"):
        rules.apply(state, (14, 0, 0, MINT))


def test_recruit_options_list_every_source_of_the_edge_servant() -> None:
    state = edge_position(office=2)
    view = PlayerView(state, 0)
    options = [o for o in recruit_options(view, rules.decision(state)) if o is not None and o[0] == 1]
    # after the returns the seat holds servants in the Office (1) and the Mint (2); King and Madame are emptied
    assert sorted(o[3] for o in options) == sorted([FROM_SUPPLY, OFFICE, MINT])


# ---------------------------------------------------------------------------------------------- section 4: action 5


def test_drawing_is_optional_and_fewer_may_be_drawn() -> None:
    """ "The player may draw up to 1 card per own servant at the Back entrance, + up to 3 more per "+3 cards" noble
    if they have at least 1 servant there ("darf ... ziehen": drawing is optional, and fewer may be drawn)."
    Keeping stays limited by the servants there."""
    state = blank_state(2)
    put(state, 0, back_entrance=2)
    put(state, 1, parade_ground=1)
    set_priv(state, 0, rules.P_CARDS, 1)
    stack_deck(state, "points4", "gold4", "move5")
    start_turn(state, 0)
    dec = advance_to(state, "draw")
    assert dec.max_count == 2 + 3
    rules.apply(state, 1)
    dec = rules.decision(state)
    assert (dec.kind, dec.drawn, dec.max_count) == ("keep", ("points4",), 2)
    assert state.deck[:2] == ["gold4", "move5"]


def test_drawing_nothing_ends_the_action() -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=2)
    put(state, 1, parade_ground=1)
    deck = state.deck[:]
    start_turn(state, 0)
    advance_to(state, "draw")
    rules.apply(state, 0)
    assert state.deck == deck and state.rooms[BACK][0] == 2
    with pytest.raises(IllegalChoice):
        rules.apply(state.copy(), 3)  # the decision is gone


@pytest.mark.parametrize("bad", [3, -1, True, "2"])
def test_drawing_more_than_allowed_is_refused(bad: object) -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=2)
    put(state, 1, parade_ground=1)
    start_turn(state, 0)
    advance_to(state, "draw")
    with pytest.raises(IllegalChoice):
        rules.apply(state, bad)


def test_cards_plus3_draws_nothing_without_a_back_entrance_servant() -> None:
    state = blank_state(2)
    put(state, 0, parade_ground=1)
    put(state, 1, parade_ground=1)
    set_priv(state, 0, rules.P_CARDS, 1)
    start_turn(state, 0)
    while rules.decision(state).seat == 0:
        dec = rules.decision(state)
        assert dec.kind != "draw"
        rules.apply(state, {"reinforce": (0, ()), "move": [], "cards": ()}[dec.kind])


def test_the_discard_pile_is_shuffled_in_as_soon_as_the_last_card_is_drawn() -> None:
    """ "as soon as the last card of the deck is drawn, the discard pile is shuffled into a new deck ...; cards
    discarded later start the new discard pile"."""
    state = blank_state(2)
    put(state, 0, back_entrance=1)
    put(state, 1, parade_ground=1)
    full = state.deck[:]
    last = full[0]
    state.deck, state.discard, state.hands[1] = [last], tuple(full[1:6]), full[6:]  # one card left, five discarded
    start_turn(state, 0)
    advance_to(state, "draw")
    rules.apply(state, 1)
    assert rules.decision(state).drawn == (last,)
    assert len(state.deck) == 5 and state.discard == () and state.shuffles == 1  # shuffled at once
    rules.apply(state, ())  # the drawn card is not kept: it starts the new discard pile
    assert state.discard == (last,) and len(state.deck) == 5


def test_with_deck_and_discard_empty_there_is_nothing_to_draw() -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=2)
    put(state, 1, parade_ground=1)
    state.hands[1], state.deck = state.deck, []
    start_turn(state, 0)
    while not state.over and state.current == 0:
        dec = rules.decision(state)
        assert dec.kind != "draw"
        rules.apply(state, {"reinforce": (0, ()), "move": [], "cards": ()}[dec.kind])


# ---------------------------------------------------------------------------------------------- section 7


def paused_position(nobles_left: int, current: int) -> dict:
    state = blank_state(3)
    for seat in range(3):
        put(state, seat, parade_ground=1)  # every seat has a decision in its turn
    clear_park(state, keep=nobles_left)
    in_park = set(state.park)
    state.box = [i for i in range(len(state.components.nobles)) if i not in in_park]  # the others: out of play
    state.current = current
    state.final_round = False
    state.phase = PH_TURN_START
    return export_position(state)


@pytest.mark.parametrize(("nobles_left", "current", "final"), [(12, 0, True), (11, 0, True), (13, 0, False),
                                                                (12, 1, False), (5, 2, False)])  # fmt: skip
def test_a_position_with_12_nobles_and_seat_1_to_move_starts_the_final_round(
    nobles_left: int, current: int, final: bool
) -> None:
    """ "When the start player is about to begin a turn and 12 or fewer nobles remain in the park, this round is
    the last": also for a position imported at that moment that does not say so itself."""
    data = paused_position(nobles_left, current)
    assert data["final_round"] is False
    state = import_position(data)
    rules.resume_turn(state)
    assert rules.decision(state).seat == current
    assert state.final_round is final


# ---------------------------------------------------------------------------------------------- legal options


def test_reinforce_options_list_every_source_multiset_beyond_the_supply() -> None:
    """No cap: with an empty supply and servants in six rooms, every multiset of source rooms is listed."""
    state = blank_state(2)
    put(state, 0, parade_ground=6, stairway=3, mint=3, king=3, madame=3)
    state.supply = replace_at(state.supply, 0, 0)
    start_turn(state, 0)
    dec = advance_to(state, "reinforce")
    assert dec.max_count == 6 + 1  # six Parade ground servants and the majority
    options = legal_options(PlayerView(state, 0), dec)
    own = [state.rooms[r][0] for r in range(9)]

    def multisets(count: int) -> int:  # brute force: every multiset of rooms within the seat's servants
        rooms = [r for r in range(9) if r != GATE]
        return sum(
            1 for combo in combinations_with_replacement(rooms, count) if all(combo.count(r) <= own[r] for r in rooms)
        )

    assert len(options) == sum(multisets(c) for c in range(dec.max_count + 1))
    assert len(options) > 200  # the old lister stopped at 200
    assert len(set(options)) == len(options)


def test_seal_options_match_a_brute_force_count() -> None:
    state = blank_state(2)
    put(state, 0, king=2, madame=2, mint=1, stairway=1)
    state.supply = replace_at(state.supply, 0, 0)
    set_priv(state, 0, rules.P_KING, 1)
    set_priv(state, 0, rules.P_MADAME, 1)
    start_turn(state, 0)
    dec = advance_to(state, "seals")
    assert (dec.king_max, dec.madame_max) == (2, 2)  # majorities (seat 1 has nothing) and the privileges
    options = seal_options(PlayerView(state, 0), dec)
    for option in options:
        rules.apply(state.copy(), option)
    # king servants from {stairway, mint, madame}, then madame's from what is left (the King included)
    count = 0
    for k in range(3):
        for ks in combinations_with_replacement((STAIRWAY, MINT, MADAME), k):
            own = {STAIRWAY: 1, MINT: 1, MADAME: 2, KING: 2 + k}
            if any(ks.count(r) > own[r] for r in set(ks)):
                continue
            for r in ks:
                own[r] -= 1
            for m in range(3):
                for ms in combinations_with_replacement((STAIRWAY, MINT, KING), m):
                    count += all(ms.count(r) <= own[r] for r in set(ms))
    assert len(options) == count


def test_movement_is_not_enumerated_and_says_so() -> None:
    state = blank_state(2)
    put(state, 0, stairway=2)
    put(state, 1, parade_ground=1)
    start_turn(state, 0)
    dec = advance_to(state, "move")
    with pytest.raises(ValueError, match="not enumerated"):
        legal_options(PlayerView(state, 0), dec)


def test_draw_options_are_every_count() -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=3)
    put(state, 1, parade_ground=1)
    start_turn(state, 0)
    dec = advance_to(state, "draw")
    assert legal_options(PlayerView(state, 0), dec) == [0, 1, 2, 3]
    rules.apply(state, 3)
    keep = rules.decision(state)
    assert len(legal_options(PlayerView(state, 0), keep)) == sum(comb(3, k) for k in range(4))
