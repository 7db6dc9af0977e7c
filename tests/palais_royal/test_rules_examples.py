"""Every example of the rulebook (German rulebook, seeds/000_*) and every rule of RULES.md sections 2 to 8,
each built as a small explicit position (see ``helpers.py``).

Seats are 0-based. In the rulebook's four-player examples Red is seat 0, Yellow seat 1, Black seat 2, Green seat 3.
Layout is the first-game layout PMS/KGD/COB unless a test says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import BACK, GATE, KING, MADAME, MINT, OFFICE, PARADE, STAIRWAY
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.rules import IllegalChoice
from palais_sim.games.palais_royal.scoring import (
    SeatScore,
    final_scores,
    park_points,
    row_points,
    row_strength,
    winners,
)
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import EMPTY, PRIV_INDEX, GameState, RuleOptions, replace_at, servant_code
from strategies.common.random_play import RandomStrategy
from tests.palais_royal.helpers import (
    NOTHING,
    STANDARD,
    advance_to,
    blank_state,
    clear_park,
    fill_park,
    finish_turn,
    give_cards,
    noble,
    pending,
    put,
    servants_of,
    set_gold,
    set_park,
    set_priv,
    set_room,
    snapshot,
    stack_deck,
    start_turn,
)

RED, YELLOW, BLACK, GREEN = 0, 1, 2, 3


def grant(state: GameState, seat: int, noble_id: str) -> None:
    """Give ``seat`` a noble tile as if recruited in an earlier turn (its privilege counts from now on)."""
    index = noble(noble_id)
    state.park = tuple(EMPTY if c == index else c for c in state.park)
    state.nobles_left = sum(1 for c in state.park if c >= 0)
    state.nobles = replace_at(state.nobles, seat, (*state.nobles[seat], index))
    privilege = STANDARD.nobles[index].privilege
    assert privilege is not None
    set_priv(state, seat, PRIV_INDEX[privilege], state.priv[seat][PRIV_INDEX[privilege]] + 1)


def turn_windows(state: GameState, seat: int) -> dict[str, tuple[str, ...]]:
    """Play ``seat``'s turn doing nothing; return the playable cards of each card window offered."""
    windows: dict[str, tuple[str, ...]] = {}
    while (dec := pending(state)) is not None and dec.seat == seat:
        if dec.kind == "cards":
            windows[dec.window] = dec.playable
        rules.apply(state, NOTHING[dec.kind])
    return windows


# ============================================================================ rooms and majorities (section 2)


@pytest.fixture
def cardinal_four() -> GameState:
    """The Cardinal of the rulebook's four cases: Red 2, Yellow 1, Black 1, Green 0."""
    state = blank_state(4)
    put(state, RED, cardinal=2)
    put(state, YELLOW, cardinal=1)
    put(state, BLACK, cardinal=1)
    return state


def test_cardinal_case1_red_breaks_stairway_tie_and_has_4_movement_points(cardinal_four: GameState) -> None:
    state = cardinal_four
    put(state, RED, stairway=3)
    put(state, YELLOW, stairway=3)
    start_turn(state, RED)
    dec = rules.decision(state)
    assert (dec.kind, dec.seat, dec.points) == ("move", RED, 4)


def test_cardinal_case2_cardinal_majority_does_not_help_without_a_tie(cardinal_four: GameState) -> None:
    state = cardinal_four
    put(state, RED, mint=2)
    put(state, BLACK, mint=3)
    put(state, YELLOW, parade_ground=1)  # a decision in Yellow's turn to stop at
    start_turn(state, RED)
    advance_to(state, "reinforce", seat=YELLOW)
    assert state.gold[RED] == 2


def test_cardinal_case2_contrast_tied_mint_goes_to_red(cardinal_four: GameState) -> None:
    state = cardinal_four
    put(state, RED, mint=3)
    put(state, BLACK, mint=3)
    put(state, YELLOW, parade_ground=1)
    start_turn(state, RED)
    advance_to(state, "reinforce", seat=YELLOW)
    assert state.gold[RED] == 4


@pytest.mark.parametrize(("yellow_cardinal", "madame_bonus"), [(1, 1), (0, 0)])
def test_cardinal_case3_yellow_breaks_madame_tie_against_green(
    cardinal_four: GameState, yellow_cardinal: int, madame_bonus: int
) -> None:
    state = cardinal_four
    set_room(state, 8, YELLOW, yellow_cardinal)  # Green has 0 in the Cardinal
    put(state, YELLOW, madame=2)
    put(state, GREEN, madame=2)
    put(state, YELLOW, parade_ground=1)  # stop at Yellow's reinforce first
    put(state, BLACK, parade_ground=1)  # and at Black's after Yellow's turn
    start_turn(state, YELLOW)
    rules.apply(state, (0, ()))
    dec = pending(state)
    if madame_bonus:
        assert (dec.kind, dec.seat, dec.king_max, dec.madame_max) == ("seals", YELLOW, 0, 1)
    else:
        assert (dec.kind, dec.seat) == ("reinforce", BLACK)  # no seals decision: Yellow's turn is over


@pytest.mark.parametrize(("yellow_cardinal", "reinforce"), [(1, 2), (2, 3)])
def test_cardinal_case4_tied_cardinal_gives_no_parade_bonus(
    cardinal_four: GameState, yellow_cardinal: int, reinforce: int
) -> None:
    state = cardinal_four
    set_room(state, 8, YELLOW, yellow_cardinal)  # Black has 1
    put(state, YELLOW, parade_ground=2)
    put(state, BLACK, parade_ground=2)
    start_turn(state, YELLOW)
    dec = rules.decision(state)
    assert (dec.kind, dec.seat, dec.max_count) == ("reinforce", YELLOW, reinforce)


def test_cardinal_must_beat_every_tied_player() -> None:
    state = blank_state(3)
    put(state, 0, mint=2, cardinal=2)
    put(state, 1, mint=2, cardinal=2)
    put(state, 2, mint=2, cardinal=1)
    assert not rules.has_majority(state, 0, MINT)
    set_room(state, 8, 1, 1)
    assert rules.has_majority(state, 0, MINT)
    assert not rules.has_majority(state, 1, MINT)


def test_majority_needs_at_least_one_servant() -> None:
    state = blank_state(2)
    put(state, 0, cardinal=3)
    assert not rules.has_majority(state, 0, MINT)


@pytest.mark.parametrize(
    ("room", "count", "expected"),
    [("parade_ground", 3, 4), ("stairway", 4, 5)],
    ids=["red_3_parade_places_4", "green_4_stairway_moves_5"],
)
def test_room_examples_with_sole_majority(room: str, count: int, expected: int) -> None:
    state = blank_state(2)
    put(state, 0, **{room: count})
    put(state, 1, **{room: count - 1})
    start_turn(state, 0)
    dec = rules.decision(state)
    assert (dec.max_count if room == "parade_ground" else dec.points) == expected


def test_mint_example_yellow_2_servants_with_majority_takes_3_gold() -> None:
    state = blank_state(2)
    put(state, 0, mint=2)
    put(state, 1, mint=1, parade_ground=1)
    start_turn(state, 0)
    advance_to(state, "reinforce", seat=1)
    assert state.gold == (3, 0)


def test_seal_example_yellow_with_both_majorities_has_3_turquoise_and_4_violet() -> None:
    state = blank_state(2)
    put(state, 0, king=2, madame=3)
    put(state, 1, king=1, madame=2)
    start_turn(state, 0)
    dec = rules.decision(state)
    assert (dec.kind, dec.king_max, dec.madame_max) == ("seals", 1, 1)
    rules.apply(state, (1, 1, ()))
    assert (state.rooms[KING][0], state.rooms[MADAME][0]) == (3, 4)


def test_movement_points_are_fixed_at_the_start_of_the_action() -> None:
    state = blank_state(2)
    put(state, 0, stairway=2, gate=3)
    start_turn(state, 0)
    assert rules.decision(state).points == 3  # 2 + majority
    # Moving two servants out of the Stairway (cost 2) and then a third move still fits the 3 points.
    rules.apply(state, [(STAIRWAY, MINT, 2), (GATE, MADAME, 1)])
    assert state.rooms[MINT][0] == 2 and state.rooms[MADAME][0] == 1


# ============================================================================ recruitment (section 4, action 4)


def test_cost_example1_six_gold_noble_with_three_empty_neighbours_costs_3() -> None:
    state = blank_state(2)
    fill_park(state)
    set_park(state, {14: "N05", 8: None, 15: None, 20: 1})  # 20 holds a servant: counts as empty
    assert rules.recruit_cost(state, 14) == 3


def test_cost_example2_only_adjacent_fields_count() -> None:
    state = blank_state(2)
    fill_park(state)
    # N05 on the lion row; 13 is its one empty neighbour; 0 (two above) and 14 (two right) are empty but not
    # adjacent, like the fields beyond the lion and the statue in the rulebook's picture.
    set_park(state, {12: "N05", 13: None, 14: None, 0: None})
    assert rules.recruit_cost(state, 12) == 5


def test_cost_never_below_zero() -> None:
    state = blank_state(2)
    fill_park(state)
    set_park(state, {14: "N13", 8: None, 15: None, 20: None})  # N13 costs 1 gold
    assert rules.recruit_cost(state, 14) == 0


def recruit_position(field: int, noble_id: str, gold: int = 0, **rooms: int) -> GameState:
    """Seat 0 at its recruit decision with ``noble_id`` on ``field`` (all its neighbours holding nobles)."""
    state = blank_state(2)
    fill_park(state)
    set_park(state, {field: noble_id})
    put(state, 0, **rooms)
    put(state, 1, parade_ground=1)  # a decision in seat 1's turn to stop at
    set_gold(state, gold, 0)
    start_turn(state, 0)
    advance_to(state, "recruit", seat=0)
    return state


def test_recruit_pays_reduced_cost_office_and_seal_servants() -> None:
    state = blank_state(2)
    fill_park(state)
    set_park(state, {14: "N05", 8: None, 15: None, 20: 1})
    put(state, 0, office=1, king=1, madame=1)
    put(state, 1, parade_ground=1)
    set_gold(state, 3, 0)
    start_turn(state, 0)
    advance_to(state, "recruit", seat=0)
    supply = state.supply[0]
    rules.apply(state, (14, 0, 0))
    assert state.gold[0] == 0
    assert state.nobles[0] == (noble("N05"),)
    assert state.park[14] == EMPTY
    assert [state.rooms[r][0] for r in (OFFICE, KING, MADAME)] == [0, 0, 0]
    assert state.supply[0] == supply + 3


def test_recruit_example_n25_returns_office_and_two_king_servants_and_pays_4() -> None:
    state = recruit_position(14, "N25", gold=4, office=1, king=2)
    supply = state.supply[0]
    rules.apply(state, 14)
    assert (state.gold[0], state.supply[0], state.rooms[KING][0], state.rooms[OFFICE][0]) == (0, supply + 3, 0, 0)
    assert state.priv[0][PRIV_INDEX["mint_plus2"]] == 1


def test_office_servants_limit_recruitments() -> None:
    state = blank_state(2)
    fill_park(state)
    put(state, 0, office=2, king=4, madame=4)
    put(state, 1, parade_ground=1)
    start_turn(state, 0)
    advance_to(state, "recruit", seat=0)
    assert rules.decision(state).recruits_left == 2
    rules.apply(state, 0)  # N01 on field 0: 0 gold
    assert rules.decision(state).recruits_left == 1
    rules.apply(state, 1)  # N02 on field 1: 0 gold (neighbour 0 now holds a servant)
    assert pending(state).seat == 1  # no third recruitment
    assert len(state.nobles[0]) == 2


@pytest.mark.parametrize(("field", "edge"), [(0, True), (12, True), (33, True), (14, False), (21, False)])
def test_edge_field_recruitment_leaves_a_servant_on_the_field(field: int, edge: bool) -> None:
    state = recruit_position(field, "N01", office=1, king=1, madame=1)
    supply = state.supply[0]
    rules.apply(state, field)
    if edge:
        assert state.park[field] == servant_code(0)
        assert state.supply[0] == supply + 3 - 1
    else:
        assert state.park[field] == EMPTY
        assert state.supply[0] == supply + 3
    assert servants_of(state, 0) == 25


def test_edge_recruitment_with_empty_supply_still_places_a_servant() -> None:
    state = recruit_position(0, "N01", office=1, king=1, madame=1, gate=15)
    assert state.supply[0] == 0
    rules.apply(state, 0)
    assert state.park[0] == servant_code(0)
    assert servants_of(state, 0) == 25
    assert state.supply[0] == 2


def test_recruit_needs_seals_of_each_colour() -> None:
    state = recruit_position(14, "N01", office=1, king=1, madame=1)
    set_park(state, {20: "N07"})  # 2 violet: Madame holds only 1
    assert not rules.can_recruit(state, 0, 20, 0)
    with pytest.raises(IllegalChoice):
        rules.apply(state, 20)


# ============================================================================ Back entrance (action 5)


def test_back_entrance_example_green_draws_3_keeps_2_discards_1() -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=3)
    put(state, 1, parade_ground=1)
    stack_deck(state, "gold4", "move5", "points4")
    start_turn(state, 0)
    dec = rules.decision(state)
    assert (dec.kind, dec.max_count) == ("draw", 3)  # "darf ... ziehen": up to 3
    rules.apply(state, 3)
    dec = rules.decision(state)
    assert (dec.kind, dec.drawn, dec.max_count) == ("keep", ("gold4", "move5", "points4"), 3)
    supply = state.supply[0]
    rules.apply(state, (0, 2))
    assert state.hands[0] == ["gold4", "points4"]
    assert state.discard == ("move5",)
    assert (state.rooms[BACK][0], state.supply[0]) == (1, supply + 2)


def test_empty_deck_reshuffles_the_discard_pile() -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=2)
    put(state, 1, parade_ground=1)
    state.discard, state.deck = tuple(state.deck[:5]), state.deck[5:]
    state.hands[1], state.deck = state.deck, []  # the other 31 cards are in seat 1's hand
    start_turn(state, 0)
    assert rules.decision(state).kind == "draw"
    rules.apply(state, 2)
    dec = rules.decision(state)
    assert dec.kind == "keep" and len(dec.drawn) == 2
    assert len(state.deck) == 3 and state.discard == ()


def test_empty_deck_and_discard_draw_nothing() -> None:
    state = blank_state(2)
    put(state, 0, back_entrance=2)
    put(state, 1, parade_ground=1)
    state.hands[1], state.deck = state.deck, []
    start_turn(state, 0)
    assert rules.decision(state).seat == 1  # no keep decision for seat 0
    assert state.rooms[BACK][0] == 2 and state.hands[0] == []


# ============================================================================ privilege cards (section 5)

CARD_PRICES = {
    "all_majorities": 3,
    "free_reinforce": 3,
    "reinforce2_move6": 3,
    "move5": 1,
    "move9": 2,
    "two_seals": 2,
    "gold4": 0,
    "points2": 1,
    "points4": 2,
}
CARD_WINDOWS = {
    "all_majorities": {"start"},
    "free_reinforce": {"start"},
    "reinforce2_move6": {"start"},
    "move5": {"move"},
    "move9": {"move"},
    "two_seals": {"recruit"},
    "gold4": {"start", "move", "recruit", "end"},
    "points2": {"start", "move", "recruit", "end"},
    "points4": {"start", "move", "recruit", "end"},
}


def card_position(*cards: str, gold: int, players: int = 2, **rooms: int) -> GameState:
    """Seat 0 holding ``cards`` with ``gold`` and servants in ``rooms``; seat 1 has a reinforce decision to stop at."""
    state = blank_state(players)
    give_cards(state, 0, *cards)
    put(state, 0, **rooms)
    put(state, 1, parade_ground=1)
    set_gold(state, gold, *([0] * (players - 1)))
    return state


@pytest.mark.parametrize("card", sorted(CARD_WINDOWS))
def test_card_is_offered_exactly_at_its_timing(card: str) -> None:
    state = card_position(card, gold=10, office=1)
    start_turn(state, 0)
    windows = {w for w, playable in turn_windows(state, 0).items() if card in playable}
    assert windows == CARD_WINDOWS[card]


@pytest.mark.parametrize("card", sorted(CARD_PRICES))
def test_card_price_is_paid_to_the_bank(card: str) -> None:
    price = CARD_PRICES[card]
    assert STANDARD.card_prices[card] == price
    state = card_position(card, gold=price, office=1)
    state.bank = 20  # a gold limit: the price goes back to the bank
    start_turn(state, 0)
    dec = advance_to(state, "cards", seat=0)
    assert card in dec.playable
    rules.apply(state, [card])
    gain = 4 if card == "gold4" else 0
    assert state.gold[0] == gain
    assert state.bank == 20 + price - gain
    assert card not in state.hands[0]


@pytest.mark.parametrize("card", [c for c, p in sorted(CARD_PRICES.items()) if p > 0])
def test_card_without_gold_for_its_price_is_never_offered(card: str) -> None:
    state = card_position(card, gold=CARD_PRICES[card] - 1, office=1)
    start_turn(state, 0)
    assert all(card not in playable for playable in turn_windows(state, 0).values())
    assert state.hands[0] == [card]


def test_card_too_expensive_is_rejected() -> None:
    state = card_position("move9", "move5", gold=1, stairway=1)
    start_turn(state, 0)
    dec = rules.decision(state)
    assert (dec.window, dec.playable) == ("move", ("move5",))
    with pytest.raises(IllegalChoice):
        rules.apply(state, ["move9"])


def test_gold4_pays_for_a_card_played_after_it() -> None:
    state = card_position("gold4", "move9", gold=0, stairway=1)
    start_turn(state, 0)
    advance_to(state, "cards", window="move")
    rules.apply(state, ["gold4", "move9"])
    assert state.gold[0] == 2
    assert rules.decision(state).points == 1 + 1 + 9


@pytest.mark.parametrize("play", [True, False])
def test_all_majorities_gives_every_bonus_where_the_player_has_a_servant(play: bool) -> None:
    state = card_position("all_majorities", gold=3, parade_ground=1, stairway=1, mint=1, king=1, madame=1)
    put(state, 1, parade_ground=2, stairway=3, mint=2, king=2, madame=2)
    start_turn(state, 0)
    rules.apply(state, ["all_majorities"] if play else [])
    bonus = 1 if play else 0
    assert rules.decision(state).max_count == 1 + bonus  # reinforce
    rules.apply(state, (0, ()))
    assert rules.decision(state).points == 1 + bonus  # move
    rules.apply(state, [])
    gold_after_price = 0 if play else 3
    assert state.gold[0] == gold_after_price + 1 + bonus  # mint
    dec = pending(state)
    if play:
        assert (dec.kind, dec.king_max, dec.madame_max) == ("seals", 1, 1)
    else:
        assert dec.seat == 1


def test_all_majorities_lasts_for_this_turn_only() -> None:
    state = card_position("all_majorities", gold=3, parade_ground=1)
    put(state, 1, parade_ground=2)
    start_turn(state, 0)
    rules.apply(state, ["all_majorities"])
    finish_turn(state)
    assert state.current == 1 and not state.all_maj


def test_free_reinforce_places_any_number_of_servants() -> None:
    state = card_position("free_reinforce", gold=3, parade_ground=1, mint=2)
    start_turn(state, 0)
    rules.apply(state, ["free_reinforce"])
    dec = rules.decision(state)
    assert dec.max_count == 15 + 3  # the supply, then every servant in a room
    rules.apply(state, (17, (MINT, MINT)))
    assert (state.rooms[GATE][0], state.supply[0], state.rooms[MINT][0], state.rooms[PARADE][0]) == (17, 0, 0, 1)


def test_reinforce2_move6_adds_two_servants_and_six_movement_points() -> None:
    state = card_position("reinforce2_move6", gold=3, parade_ground=1, stairway=1)
    put(state, 1, parade_ground=1, stairway=2)  # no majorities for seat 0
    start_turn(state, 0)
    rules.apply(state, ["reinforce2_move6"])
    assert rules.decision(state).max_count == 3
    rules.apply(state, (3, ()))
    assert state.rooms[GATE][0] == 3
    assert rules.decision(state).points == 7


@pytest.mark.parametrize(("card", "extra"), [("move5", 5), ("move9", 9)])
def test_move_cards_add_movement_points_that_can_be_spent(card: str, extra: int) -> None:
    state = card_position(card, gold=2, stairway=1, gate=1)
    put(state, 1, stairway=2)
    start_turn(state, 0)
    rules.apply(state, [card])
    points = rules.decision(state).points
    assert points == 1 + extra
    shuttle = [(GATE, MINT, 1) if i % 2 == 0 else (MINT, GATE, 1) for i in range(points + 1)]  # 1 point each
    before = snapshot(state)
    with pytest.raises(IllegalChoice):
        rules.apply(state, shuttle)  # one point too many
    assert snapshot(state) == before
    rules.apply(state, shuttle[:points])


@pytest.mark.parametrize(("noble_id", "wild"), [("N07", (2, 0)), ("N08", (0, 2)), ("N01", (1, 1))])
def test_two_seals_gives_two_seals_of_any_colours_that_cost_no_servants(noble_id: str, wild: tuple) -> None:
    state = card_position("two_seals", gold=2, office=1)
    fill_park(state)
    set_park(state, {14: noble_id})  # 0 gold nobles needing two seals
    start_turn(state, 0)
    assert not rules.can_recruit(state, 0, 14, 0)
    dec = advance_to(state, "cards", window="recruit")
    rules.apply(state, ["two_seals"])
    dec = rules.decision(state)
    assert (dec.kind, dec.wild_seals) == ("recruit", 2)
    rules.apply(state, (14, *wild))
    assert state.nobles[0] == (noble(noble_id),)
    assert (state.rooms[KING][0], state.rooms[MADAME][0]) == (0, 0)
    assert state.gold[0] == 0


def test_gold4_takes_four_gold() -> None:
    state = card_position("gold4", gold=0)
    start_turn(state, 0)
    rules.apply(state, ["gold4"])
    assert state.gold[0] == 4
    assert state.discard == ("gold4",)


def test_gold4_with_gold_limit_takes_only_what_the_bank_holds() -> None:
    state = blank_state(2, gold_limit=10)
    give_cards(state, 0, "gold4")
    put(state, 1, parade_ground=1)
    set_gold(state, 0, 8)
    assert state.bank == 2
    start_turn(state, 0)
    rules.apply(state, ["gold4"])
    assert state.gold == (2, 8) and state.bank == 0


def test_mint_with_gold_limit_pays_only_what_the_bank_holds() -> None:
    state = blank_state(2, gold_limit=10)
    put(state, 0, mint=3)
    put(state, 1, parade_ground=1)
    set_gold(state, 0, 9)
    start_turn(state, 0)
    advance_to(state, "reinforce", seat=1)
    assert state.gold == (1, 9) and state.bank == 0


@pytest.mark.parametrize(("card", "points"), [("points2", 2), ("points4", 4)])
def test_point_cards_stay_in_front_of_the_player_and_score(card: str, points: int) -> None:
    state = card_position(card, gold=CARD_PRICES[card])
    start_turn(state, 0)
    rules.apply(state, [card])
    assert state.played_points[0] == (card,)
    assert card not in state.discard and state.hands[0] == []
    score = final_scores(state)[0]
    assert (score.cards_played, score.cards_unplayed) == (points, 0)


# ============================================================================ noble privileges (section 6)


def test_reinforce_plus2_adds_two_servants() -> None:
    state = blank_state(2)
    put(state, 0, parade_ground=1)
    put(state, 1, parade_ground=2)
    grant(state, 0, "N31")
    start_turn(state, 0)
    assert rules.decision(state).max_count == 3


def test_move_plus2_adds_two_movement_points() -> None:
    state = blank_state(2)
    put(state, 0, stairway=1)
    put(state, 1, stairway=2)
    grant(state, 0, "N33")
    start_turn(state, 0)
    assert rules.decision(state).points == 3


@pytest.mark.parametrize("diagonal", [True, False])
def test_diagonal_move_lets_a_servant_move_diagonally(diagonal: bool) -> None:
    state = blank_state(2)
    put(state, 0, stairway=1, parade_ground=1)
    put(state, 1, stairway=2, parade_ground=2)
    if diagonal:
        grant(state, 0, "N35")
    start_turn(state, 0)
    rules.apply(state, (0, ()))
    dec = rules.decision(state)
    assert (dec.kind, dec.points, dec.diagonal) == ("move", 1, diagonal)
    move = [(PARADE, GATE, 1)]  # PMS/KGD/COB: the Parade ground is diagonal to the Gate
    if diagonal:
        rules.apply(state, move)
        assert state.rooms[GATE][0] == 1
    else:
        with pytest.raises(IllegalChoice):
            rules.apply(state, move)


def test_mint_plus2_adds_two_gold() -> None:
    state = blank_state(2)
    put(state, 0, mint=1)
    put(state, 1, mint=2, parade_ground=1)
    grant(state, 0, "N25")
    start_turn(state, 0)
    advance_to(state, "reinforce", seat=1)
    assert state.gold[0] == 3


def test_privilege_of_a_noble_recruited_this_turn_counts_from_the_next_turn() -> None:
    state = recruit_position(14, "N25", gold=4, office=1, king=2, mint=1)
    assert state.gold[0] == 6  # 4 + 1 mint + 1 majority
    rules.apply(state, 14)
    assert state.gold[0] == 2  # no +2 in the turn the tile is taken: action 3a is over
    advance_to(state, "reinforce", seat=1)
    rules.apply(state, (0, ()))
    advance_to(state, "reinforce", seat=1)
    assert state.gold[0] == 2 + 2 + 2


@pytest.mark.parametrize(
    ("noble_id", "room", "mine", "theirs", "bonus"),
    [
        ("N37", "king", 1, 1, 1),  # tie, no majority: only the privilege servant
        ("N37", "king", 2, 1, 2),  # majority and privilege
        ("N39", "madame", 1, 1, 1),
        ("N39", "madame", 2, 1, 2),
        ("N39", "madame", 0, 0, 1),  # no servant there: the privilege still places one
    ],
)
def test_king_and_madame_plus1_add_a_servant_after_the_majorities(
    noble_id: str, room: str, mine: int, theirs: int, bonus: int
) -> None:
    state = blank_state(2)
    put(state, 0, **{room: mine})
    put(state, 1, **{room: theirs})
    grant(state, 0, noble_id)
    start_turn(state, 0)
    dec = rules.decision(state)
    assert dec.kind == "seals"
    assert (dec.king_max if room == "king" else dec.madame_max) == bonus
    assert (dec.madame_max if room == "king" else dec.king_max) == 0
    choice = (bonus, 0, ()) if room == "king" else (0, bonus, ())
    rules.apply(state, choice)
    assert state.rooms[KING if room == "king" else MADAME][0] == mine + bonus


@pytest.mark.parametrize(("back", "drawn"), [(1, 4), (2, 5), (0, 0)])
def test_cards_plus3_counts_in_the_turn_it_is_recruited_with_a_back_entrance_servant(back: int, drawn: int) -> None:
    rooms = {"office": 1, "madame": 1, "back_entrance": back}
    state = recruit_position(14, "N41", gold=1, **{k: v for k, v in rooms.items() if v})
    rules.apply(state, 14)
    dec = pending(state)
    if drawn:
        assert (dec.kind, dec.max_count) == ("draw", drawn)
        rules.apply(state, drawn)
        dec = pending(state)
        assert (dec.kind, len(dec.drawn), dec.max_count) == ("keep", drawn, back)
    else:
        assert (dec.kind, dec.seat) == ("reinforce", 1)


@pytest.mark.parametrize(
    ("noble_id", "general", "gain"),
    [("N27", 7, 3), ("N27", 2, 2), ("N27", 0, 0), ("N29", 7, 1), ("N29", 0, 0)],
)
def test_servants_plus_take_from_the_general_supply_as_far_as_any_are_left(
    noble_id: str, general: int, gain: int
) -> None:
    state = recruit_position(14, noble_id, gold=2, office=1, king=2, madame=2)
    state.general = replace_at(state.general, 0, general)
    seals = STANDARD.nobles[noble(noble_id)]
    supply = state.supply[0]
    rules.apply(state, 14)
    assert state.general[0] == general - gain
    assert state.supply[0] == supply + 1 + seals.violet + seals.turquoise + gain


# ============================================================================ new servants (section 4)


@pytest.fixture
def reinforce_supply_1() -> GameState:
    """Seat 0: Parade 3 (majority: 4 to the Gate), Mint 1, Gate 13, 1 servant left in supply."""
    state = blank_state(2)
    put(state, 0, parade_ground=3, mint=1, gate=13)
    start_turn(state, 0)
    assert rules.decision(state).max_count == 4 and state.supply[0] == 1
    return state


@pytest.mark.parametrize(
    "choice",
    [(4, ()), (4, (MINT,)), (1, (MINT,)), (4, (MINT, GATE, PARADE)), (4, (MINT, MINT, PARADE)), (5, (1, 1, 1, 1))],
    ids=[
        "no_sources",
        "too_few_sources",
        "source_while_supply_lasts",
        "gate_as_source",
        "servant_not_there",
        "over_max",
    ],
)
def test_new_servants_come_from_rooms_only_when_the_supply_is_empty(
    reinforce_supply_1: GameState, choice: tuple
) -> None:
    state = reinforce_supply_1
    before = snapshot(state)
    with pytest.raises(IllegalChoice):
        rules.apply(state, choice)
    assert snapshot(state) == before


def test_new_servants_taken_from_rooms_after_the_supply(reinforce_supply_1: GameState) -> None:
    state = reinforce_supply_1
    rules.apply(state, (4, (MINT, PARADE, PARADE)))
    assert [state.rooms[r][0] for r in (GATE, PARADE, MINT)] == [17, 1, 0]
    assert state.supply[0] == 0 and servants_of(state, 0) == 25


def test_seal_servants_come_from_a_room_when_the_supply_is_empty() -> None:
    state = blank_state(2)
    put(state, 0, king=1, mint=1, gate=16)
    start_turn(state, 0)
    assert rules.decision(state).king_max == 1
    for bad in [(1, 0, ()), (1, 0, (KING,))]:
        with pytest.raises(IllegalChoice):
            rules.apply(state, bad)
    rules.apply(state, (1, 0, (MINT,)))
    assert (state.rooms[KING][0], state.rooms[MINT][0]) == (2, 0)


# ============================================================================ illegal choices leave the state alone


def _at_setup() -> GameState:
    return new_game(STANDARD, RuleOptions(players=2, layout="first-game"), 7)


def _at_cards() -> GameState:
    state = card_position("move9", "move5", gold=1, stairway=1)
    start_turn(state, 0)
    return state


def _at_start_cards() -> GameState:
    state = card_position("all_majorities", "move5", gold=5, parade_ground=1)
    start_turn(state, 0)
    return state


def _at_reinforce() -> GameState:
    state = blank_state(2)
    put(state, 0, parade_ground=2, stairway=1)
    start_turn(state, 0)
    return state


def _at_move() -> GameState:
    state = blank_state(2)
    put(state, 0, stairway=1)
    put(state, 1, stairway=1, cardinal=1)
    start_turn(state, 0)
    return state


def _at_seals() -> GameState:
    state = blank_state(2)
    put(state, 0, king=1, madame=1, gate=15)  # supply 1
    start_turn(state, 0)
    return state


def _at_recruit() -> GameState:
    state = recruit_position(14, "N05", gold=2, office=1, king=1, madame=1)
    set_park(state, {20: None, 21: "N19"})  # N19 needs 4 violet
    return state


def _at_keep() -> GameState:
    state = blank_state(2)
    put(state, 0, back_entrance=1)
    start_turn(state, 0)
    return state


ILLEGAL: list[tuple[str, Callable[[], GameState], object]] = [
    ("setup_sum_4", _at_setup, (1, 1, 1, 1, 0, 0, 0, 0, 0)),
    ("setup_sum_6", _at_setup, (2, 1, 1, 1, 1, 0, 0, 0, 0)),
    ("setup_negative", _at_setup, (-1, 2, 1, 1, 1, 1, 0, 0, 0)),
    ("setup_8_rooms", _at_setup, (1, 1, 1, 1, 1, 0, 0, 0)),
    ("setup_not_a_list", _at_setup, "abc"),
    ("card_too_expensive", _at_cards, ["move9"]),
    ("card_not_in_hand", _at_cards, ["gold4"]),
    ("card_twice", _at_cards, ["move5", "move5"]),
    ("card_wrong_window", _at_start_cards, ["move5"]),
    ("card_not_a_string", _at_start_cards, [["all_majorities"]]),
    ("cards_not_a_list", _at_start_cards, "all_majorities"),
    ("reinforce_too_many", _at_reinforce, (4, ())),
    ("reinforce_negative", _at_reinforce, (-1, ())),
    ("reinforce_bool", _at_reinforce, (True, ())),
    ("reinforce_bad_form", _at_reinforce, (1, 2, 3)),
    ("move_too_far", _at_move, [(STAIRWAY, BACK, 1)]),
    ("move_from_empty_room", _at_move, [(OFFICE, GATE, 1)]),
    ("move_to_same_room", _at_move, [(STAIRWAY, STAIRWAY, 1)]),
    ("move_zero", _at_move, [(STAIRWAY, MINT, 0)]),
    ("move_room_out_of_range", _at_move, [(STAIRWAY, 9, 1)]),
    ("move_bad_form", _at_move, [(STAIRWAY, MINT)]),
    ("seals_too_many", _at_seals, (2, 0, ())),
    ("seals_second_room_fails", _at_seals, (1, 1, (MINT,))),
    ("recruit_empty_field", _at_recruit, (20, 0, 0)),
    ("recruit_outside_park", _at_recruit, (36, 0, 0)),
    ("recruit_too_expensive", _at_recruit, (14, 0, 0)),
    ("recruit_missing_seals", _at_recruit, (21, 0, 0)),
    ("recruit_wild_without_card", _at_recruit, (21, 1, 0)),
    ("keep_too_many", _at_keep, (0, 1)),
    ("keep_duplicate", _at_keep, (0, 0)),
    ("keep_out_of_range", _at_keep, (7,)),
]


@pytest.mark.parametrize(("build", "choice"), [(b, c) for _, b, c in ILLEGAL], ids=[i for i, _, _ in ILLEGAL])
def test_illegal_choice_is_rejected_and_changes_nothing(build: Callable[[], GameState], choice: object) -> None:
    state = build()
    before = snapshot(state)
    with pytest.raises(IllegalChoice):
        rules.apply(state, choice)
    assert snapshot(state) == before


def test_a_game_over_accepts_no_choice() -> None:
    state = blank_state(2, max_rounds=1)
    start_turn(state, 0)
    assert state.over
    with pytest.raises(IllegalChoice):
        rules.decision(state)
    with pytest.raises(IllegalChoice):
        rules.apply(state, ())


# ============================================================================ setup (section 3)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_gold_servants_and_placement(players: int) -> None:
    state = new_game(STANDARD, RuleOptions(players=players), 11)
    assert state.gold == (0, 1, 2, 3)[:players]
    assert [state.rooms[STAIRWAY][s] for s in range(players)] == [3] * players
    assert [state.rooms[PARADE][s] for s in range(players)] == [2] * players
    assert state.supply == (13,) * players and state.general == (7,) * players
    assert len(set(state.park)) == 36 and all(c >= 0 for c in state.park) and len(state.box) == 6
    assert sorted(state.deck) == sorted(STANDARD.deck())
    for seat in range(players):
        dec = rules.decision(state)
        assert (dec.kind, dec.seat, dec.max_count) == ("setup", seat, 5)
        rules.apply(state, (1, 0, 0, 1, 1, 1, 1, 0, 0))
    assert state.supply == (8,) * players
    assert (state.round, state.current) == (1, 0)
    assert all(servants_of(state, s) == 25 for s in range(players))


def test_setup_layout_option() -> None:
    assert new_game(STANDARD, RuleOptions(layout="first-game"), 1).layout.code == STANDARD.first_game_layout
    assert new_game(STANDARD, RuleOptions(layout="KGD/PMS/COB"), 1).layout.code == "KGD/PMS/COB"
    codes = {new_game(STANDARD, RuleOptions(), seed).layout.code for seed in range(20)}
    assert len(codes) > 10  # random per game


# ============================================================================ end of the game (section 7)


def record_decisions(state: GameState, limit: int = 50) -> list[tuple[int, int]]:
    """Answer "nothing" to every decision to the end of the game; return (round, seat) of each decision."""
    seen: list[tuple[int, int]] = []
    while not state.over and len(seen) < limit:
        dec = rules.decision(state)
        seen.append((state.round, dec.seat))
        rules.apply(state, NOTHING[dec.kind])
    return seen


@pytest.mark.parametrize(("nobles", "last"), [(12, True), (11, True), (13, False)])
def test_last_round_starts_when_the_start_player_begins_with_12_or_fewer_nobles(nobles: int, last: bool) -> None:
    state = blank_state(3)
    clear_park(state, keep=nobles)
    for seat in range(3):
        put(state, seat, parade_ground=1)
    start_turn(state, 0)
    assert state.final_round is last
    seen = record_decisions(state, limit=6)
    if last:
        assert seen == [(1, 0), (1, 1), (1, 2)]  # every player once more, the start player included
        assert state.over and state.finished
    else:
        assert seen[:4] == [(1, 0), (1, 1), (1, 2), (2, 0)]
        assert not state.over


def test_end_trigger_is_checked_only_when_the_start_player_begins() -> None:
    state = blank_state(2)
    fill_park(state)
    clear_park(state, keep=13)  # N01..N13 on fields 0..12
    put(state, 0, parade_ground=1, office=1, king=1, madame=1)
    put(state, 1, parade_ground=1)
    start_turn(state, 0)
    advance_to(state, "recruit")
    rules.apply(state, 0)  # N01: 12 nobles left during round 1
    assert state.nobles_left == 12 and not state.final_round
    advance_to(state, "reinforce", seat=1)
    assert not state.final_round
    seen = record_decisions(state)
    assert seen[0] == (1, 1) and (2, 0) in seen and seen[-1][0] == 2
    assert state.over and state.finished and state.round == 2


def test_max_rounds_stops_the_game_as_not_finished() -> None:
    state = blank_state(2, max_rounds=3)
    state.round = 3
    put(state, 0, parade_ground=1)
    put(state, 1, parade_ground=1)
    start_turn(state, 1)
    finish_turn(state)
    assert state.over and not state.finished and state.round == 3


def test_final_round_ending_at_max_rounds_counts_as_finished() -> None:
    state = blank_state(2, max_rounds=3)
    state.round = 3
    clear_park(state, keep=12)
    start_turn(state, 0)
    assert state.over and state.finished


def test_play_game_with_max_rounds_records_a_game_not_finished() -> None:
    result = play_game(STANDARD, RuleOptions(players=3, max_rounds=5), 3, [RandomStrategy()] * 3)
    assert (result.finished, result.rounds) == (False, 5)


# ============================================================================ final scoring (section 8)


@pytest.fixture
def rows_position() -> GameState:
    """The lion and vase rows of the rulebook: Red seat 0, Black seat 1, Green seat 2."""
    state = blank_state(3)
    clear_park(state)
    red, black, green = 0, 1, 2
    set_park(state, {12: red, 0: red, 24: black, 30: black, 6: green})  # lion row; 12 is x2
    set_park(state, {33: black, 32: green, 31: green, 34: red})  # vase row; 32, 33 are x2; 30 is a corner
    return state


def test_lion_row_example(rows_position: GameState) -> None:
    assert row_strength(rows_position, "lion") == [3, 2, 1]
    assert row_points(row_strength(rows_position, "lion")) == [6, 2, 0]


def test_vase_row_example_tied_first_get_2_each_and_nobody_second(rows_position: GameState) -> None:
    assert row_strength(rows_position, "vase") == [1, 3, 3]
    assert row_points(row_strength(rows_position, "vase")) == [0, 2, 2]


def test_park_total_sums_all_four_rows(rows_position: GameState) -> None:
    # top row: Red's corner servant on field 0 alone (6); right row empty.
    assert park_points(rows_position) == [6 + 0 + 6, 2 + 2, 0 + 2]


@pytest.mark.parametrize(
    ("strengths", "points"),
    [
        ([4, 4, 1], [2, 2, 0]),  # tied first: 2 each, nobody second
        ([2, 2, 2], [2, 2, 2]),
        ([5, 2, 2], [6, 0, 0]),  # tied second: nothing
        ([1, 3, 2, 0], [0, 6, 2, 0]),
        ([3, 0], [6, 0]),  # strength 0 never scores
        ([0, 0, 0, 0], [0, 0, 0, 0]),
    ],
)
def test_row_points(strengths: list[int], points: list[int]) -> None:
    assert row_points(strengths) == points


def test_x2_field_counts_double() -> None:
    state = blank_state(2)
    clear_park(state)
    set_park(state, {2: 0, 0: 1, 1: 1})  # top row: seat 0 on x2 field 2 (2) vs seat 1 on 0 and 1 (2)
    assert row_strength(state, "top") == [2, 2]
    set_park(state, {0: None})
    assert row_strength(state, "top") == [2, 1]
    assert park_points(state) == [6, 2]


@pytest.mark.parametrize(("field", "points"), [(0, 12), (5, 12), (30, 12), (35, 12), (1, 6), (14, 0)])
def test_corner_field_counts_for_two_rows(field: int, points: int) -> None:
    state = blank_state(2)
    clear_park(state)
    set_park(state, {field: 0})
    assert park_points(state) == [points, 0]


def test_53_point_example() -> None:
    state = blank_state(2)
    clear_park(state)
    state.nobles = replace_at(
        state.nobles, 0, tuple(noble(i) for i in ("N23", "N24", "N21", "N22", "N35"))
    )  # 11 + 11 + 9 + 9 + 1
    give_cards(state, 0, "move5", "gold4")
    state.deck.remove("points4")
    state.played_points = replace_at(state.played_points, 0, ("points4",))
    set_park(state, {1: 0})
    score = final_scores(state)[0]
    assert (score.nobles, score.cards_unplayed, score.cards_played, score.park) == (41, 2, 4, 6)
    assert score.total == 53


@pytest.mark.parametrize(("cards", "points"), [(5, 5), (6, 6), (8, 6)])
def test_unplayed_cards_score_at_most_6(cards: int, points: int) -> None:
    state = blank_state(2)
    state.hands[0], state.deck = state.deck[:cards], state.deck[cards:]
    assert final_scores(state)[0].cards_unplayed == points


def _scores(*totals_and_cardinals: tuple[int, int]) -> list[SeatScore]:
    return [SeatScore(seat, total, 0, 0, 0, cardinal) for seat, (total, cardinal) in enumerate(totals_and_cardinals)]


@pytest.mark.parametrize(
    ("scores", "won"),
    [
        (_scores((51, 0), (50, 9)), [0]),
        (_scores((50, 1), (50, 2), (40, 5)), [1]),  # tie broken by the Cardinal
        (_scores((50, 2), (50, 2), (49, 3)), [0, 1]),  # still tied: shared
        (_scores((50, 0), (50, 0), (50, 0), (50, 0)), [0, 1, 2, 3]),
    ],
)
def test_winner_tie_breaks(scores: list[SeatScore], won: list[int]) -> None:
    assert winners(scores) == won


def test_final_scores_take_the_cardinal_from_the_rooms() -> None:
    state = blank_state(2)
    clear_park(state)
    put(state, 0, cardinal=1)
    put(state, 1, cardinal=2)
    scores = final_scores(state)
    assert [s.cardinal for s in scores] == [1, 2]
    assert winners(scores) == [1]


@pytest.mark.parametrize(("bank", "offered"), [(None, True), (4, True), (1, False)])
def test_gold4_counts_as_money_for_other_cards_only_as_far_as_the_bank_pays(bank: int | None, offered: bool) -> None:
    state = card_position("gold4", "move9", gold=0, stairway=1)
    state.bank = bank  # a gold limit with this much gold left in the bank
    start_turn(state, 0)
    dec = advance_to(state, "cards", window="move")
    assert ("move9" in dec.playable) is offered
    if not offered:
        with pytest.raises(IllegalChoice):
            rules.apply(state, ["gold4", "move9"])
