"""The rules of Palastgeflüster, one test per point of the reference's section 7, on hand-made positions.

Each test quotes the rule it checks: the English reference (PALASTGEFLUESTER.md) and, where it helps, the German
quick rules (Kurzspielregel).
"""

from __future__ import annotations

import pytest

from palais_sim.games.palastgefluester.components import standard_pg_components
from palais_sim.games.palastgefluester.rules import IllegalChoice, apply, decision, legal_options, new_game
from palais_sim.games.palastgefluester.state import OVER, PLAY, PgOptions
from palais_sim.games.palastgefluester.view import PlayerView
from tests.palastgefluester.helpers import HOF, MUND, NARR, SCHATZ, WAECH, ZAUB, ZOFE, brown, card, position


def test_components_follow_the_decisions() -> None:
    """'Decision: the 14 brown cards are two of each person. Decision: the six king cards name the six persons other
    than the Hofmarschall (one each).'"""
    comps = standard_pg_components()
    assert comps.brown_copies == 2 and len(comps.colours) == 5
    assert sorted(comps.kings) == [SCHATZ, ZAUB, ZOFE, MUND, WAECH, NARR]
    assert len(comps.cards_in_game(3)) == 3 * 7 + 14 and len(comps.cards_in_game(5)) == 49
    state = new_game(PgOptions(players=4), 7)
    assert [len(h) for h in state.hands] == [6] * 4 and len(state.draw) == 4 * 7 + 14 - 24
    assert state.kings_revealed == [] and state.blocked == -1  # "No king card is revealed at the start"
    assert decision(state).seat == 0  # "Decision: seat 1 starts the first round."


def test_a_repeat_ends_the_round_and_every_other_player_scores() -> None:
    """'(a) If the player has to add a person already in their display, the round ends at once; every other player
    scores 1 point.' ('Sollte er dort eine schon vorhandene Person auslegen müssen, endet die Runde sofort.') Both
    cards of the hand repeat the Zofe, so the player has to."""
    state = position(3, [[card(0, ZOFE), brown(ZOFE, 1)], [card(1, HOF)], [card(2, HOF)]], [[brown(ZOFE)], [], []])
    apply(state, card(0, ZOFE))
    assert state.points == [0, 1, 1]
    (end,) = state.round_ends
    assert (end.round, end.kind, end.seat, end.scorers, end.cards) == (1, "repeat", 0, (1, 2), 2)
    # "The player who ended the round starts the next one", with 6 fresh cards each and empty displays
    assert state.round == 2 and state.current == 0 and state.phase == PLAY
    assert [len(h) for h in state.hands] == [6, 6, 6] and state.displays == [[], [], []]


def test_six_different_persons_end_the_round_and_the_owner_scores() -> None:
    """'(b) As soon as a display holds 6 different persons, the round ends at once; its owner scores 1 point.'"""
    shown = [card(0, p) for p in (HOF, SCHATZ, ZAUB, ZOFE, MUND)]
    state = position(4, [[card(0, WAECH)], [card(1, HOF)], [card(2, HOF)], [card(3, HOF)]], [shown, [], [], []])
    apply(state, card(0, WAECH))
    assert state.points == [1, 0, 0, 0] and state.round_ends[-1].kind == "six"
    assert state.round_ends[-1].scorers == (0,)


def test_the_jester_under_the_jester_king_ends_the_round() -> None:
    """'(c) A Hofnarr played while the revealed king card names the Hofnarr ends the round at once; every other
    player scores 1 point.' Under another king card the Hofnarr does nothing."""
    state = position(3, [[card(0, NARR)], [card(1, HOF)], [card(2, HOF)]], revealed=(NARR,))
    apply(state, card(0, NARR))
    assert state.points == [0, 1, 1] and state.round_ends[-1].kind == "jester"
    state = position(3, [[card(1, NARR), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], revealed=(ZOFE,))
    apply(state, card(1, NARR))
    assert state.points == [0, 0, 0] and not state.round_ends and state.current == 1


def test_no_action_is_carried_out_when_the_card_ends_the_round() -> None:
    """'Checks the end of the round. If the round ends, the card's action is not carried out.' ('Beim Beenden einer
    Runde wird die letzte Aktion nicht mehr ausgeführt.')"""
    # a Hofmarschall repeat reveals no king card
    state = position(3, [[card(0, HOF)], [card(1, ZOFE)], [card(2, ZOFE)]], [[brown(HOF)], [], []])
    pile = list(state.king_pile)
    apply(state, card(0, HOF))
    assert state.kings_revealed == [] and state.king_pile == pile and state.round == 2
    # a Wächter as the sixth different person: no card goes back to the hand, no guard decision
    shown = [card(0, p) for p in (HOF, SCHATZ, ZAUB, ZOFE, MUND)]
    state = position(3, [[card(0, WAECH)], [card(1, ZOFE)], [card(2, ZOFE)]], [shown, [], []])
    apply(state, card(0, WAECH))
    assert state.round == 2 and decision(state).kind == "play"


def test_own_colour_plays_again_and_another_colour_passes_the_turn_to_its_owner() -> None:
    """'The next player is the owner of the card's colour (so a player who plays their own colour plays again).'"""
    state = position(3, [[card(0, NARR), card(2, NARR)], [card(1, HOF)], [card(2, HOF)]])
    apply(state, card(0, NARR))
    assert state.current == 0 and state.own_replays[0] == 1
    apply(state, card(2, NARR))  # seat 1 again: a second Hofnarr in its display is a repeat
    assert state.round_ends[-1].kind == "repeat"
    state = position(3, [[card(2, ZAUB), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], revealed=(ZAUB,))
    apply(state, card(2, ZAUB))  # blocked: no exchange; green is seat 3's colour
    assert state.current == 2 and state.phase == PLAY


def test_brown_card_gives_the_turn_to_the_fewest_cards_and_its_player_chooses_among_ties() -> None:
    """'If the card is brown, the next player is the one with the fewest cards in their display; if several tie,
    the player of the brown card chooses one of them (possibly themself).' ('Patt: Der Spieler der braunen Karte
    entscheidet sich für einen der Patt-Beteiligten (evtl. er selbst).')"""
    hands = [[brown(NARR), card(0, HOF)], [card(1, HOF)], [card(2, HOF)], [card(3, HOF)]]
    state = position(4, hands, [[], [card(1, ZOFE)], [], [card(3, ZOFE)]], revealed=(ZOFE,))
    apply(state, brown(NARR))  # displays now 1, 1, 0, 1: seat 3 alone has the fewest
    assert state.current == 2 and state.phase == PLAY and state.brown_played[0] == 1
    state = position(4, hands, [[card(0, ZOFE)], [card(1, ZOFE)], [card(2, ZOFE)], []], revealed=(ZOFE,))
    apply(state, brown(NARR))  # 2, 1, 1, 0 -> seat 4
    assert state.current == 3
    state = position(4, hands, [[], [card(1, ZOFE)], [], []], revealed=(ZOFE,))
    apply(state, brown(NARR))  # 1, 1, 0, 0: seats 3 and 4 tie, seat 1 chooses
    dec = decision(state)
    assert (dec.seat, dec.kind, dec.seats) == (0, "next", (2, 3)) and legal_options(state, dec) == [2, 3]
    with pytest.raises(IllegalChoice):
        apply(state, 1)
    apply(state, 3)
    assert state.current == 3 and state.phase == PLAY
    state = position(3, [[brown(NARR), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], revealed=(ZOFE,))
    apply(state, brown(NARR))  # 1, 0, 0 -> seats 2, 3; with all displays equal the chooser may pick itself
    assert decision(state).seats == (1, 2)
    state = position(3, [[brown(WAECH), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], revealed=(ZOFE,))
    apply(state, brown(WAECH))  # the Wächter lapses (no other card): displays 1, 0, 0
    assert decision(state).seats == (1, 2) and state.displays[0] == [brown(WAECH)]
    state = position(3, [[brown(ZAUB)], [card(1, HOF)], [card(2, HOF)]], [[], [card(1, ZOFE)], [card(2, ZOFE)]],
                     revealed=(ZAUB,))  # fmt: skip
    apply(state, brown(ZAUB))  # 1, 1, 1: everyone ties, the player itself among them
    assert decision(state).seats == (0, 1, 2)
    apply(state, 0)
    assert state.current == 0


def test_the_hofmarschall_reveals_a_king_card_that_blocks_until_the_next_one() -> None:
    """'Reveal the top king card: the person it names is blocked (for every player: it can still be played, but has
    no action) until another king card is revealed.'"""
    hands = [[card(0, HOF), card(0, ZOFE), card(0, NARR), brown(HOF)], [card(1, HOF)], [card(2, HOF)]]
    state = position(3, hands, pile=(SCHATZ, ZOFE))
    apply(state, card(0, HOF))
    assert state.kings_revealed == [ZOFE] and state.blocked == ZOFE and state.current == 0
    apply(state, card(0, ZOFE))  # blocked: played, but no discard
    assert state.phase == PLAY and state.current == 0 and len(state.hands[0]) == 2
    state.displays[0] = []  # (to play another Hofmarschall without a repeat)
    apply(state, brown(HOF))
    assert state.kings_revealed == [ZOFE, SCHATZ] and state.blocked == SCHATZ  # the Zofe is free again


def test_the_six_king_cards_are_reshuffled_when_one_more_must_be_revealed() -> None:
    """'If all six are revealed and one more must be revealed, shuffle all six into a new pile and reveal its top
    card.'"""
    order = (SCHATZ, ZAUB, ZOFE, MUND, WAECH, NARR)
    state = position(3, [[card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], revealed=order, pile=())
    apply(state, card(0, HOF))
    assert len(state.kings_revealed) == 1 and len(state.king_pile) == 5
    assert sorted(state.king_pile + state.kings_revealed) == sorted(order) and state.king_shuffles == 2


def test_the_mundschenk_has_no_action_as_the_first_or_second_card_of_a_round() -> None:
    """'Played as the 1st or 2nd card of a round (counting every player's cards), it has no action.' ('Wird der
    Mundschenk als 1. oder 2. Karte einer Runde gespielt, hat er keine Aktion.')"""
    hands = [[card(0, MUND), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]]
    state = position(3, hands, [[], [card(1, ZOFE)], []])  # one card played before: the Mundschenk is the 2nd
    apply(state, card(0, MUND))
    assert state.phase == PLAY and state.current == 0
    state = position(3, hands, [[], [card(1, ZOFE)], [card(2, NARR)]])  # the 3rd card: it swaps
    apply(state, card(0, MUND))
    dec = decision(state)
    assert dec.kind == "swap" and dec.seat == 0
    options = legal_options(state, dec)
    assert (1, card(1, ZOFE), 2, card(2, NARR)) in options
    assert all(card(0, MUND) not in (o[1], o[3]) for o in options)  # "the Mundschenk just played cannot be swapped"
    apply(state, (2, card(2, NARR), 1, card(1, ZOFE)))  # either order of the two displays
    assert state.displays[1] == [card(2, NARR)] and state.displays[2] == [card(1, ZOFE)] and state.current == 0


def test_the_mundschenk_swap_leaves_no_display_with_a_person_twice() -> None:
    """'Afterwards no display may hold the same person twice.' ('Danach dürfen nicht 2 gleiche Karten in der selben
    Auslage sein.') And 'Decision: the swap is compulsory when a legal one exists, and lapses otherwise.'"""
    hands = [[card(0, MUND), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]]
    displays = [[card(0, ZOFE)], [card(1, ZOFE), card(1, NARR)], []]
    state = position(3, hands, displays)
    apply(state, card(0, MUND))
    options = legal_options(state, decision(state))
    # seat 1's Zofe for seat 2's Hofnarr: seat 1 would hold Zofe? no: it gives its Zofe and gets a Hofnarr (fine),
    # seat 2 gets a Zofe beside its own Zofe: a repeat, not allowed. Zofe for Zofe is allowed (colours change).
    assert (0, card(0, ZOFE), 1, card(1, NARR)) not in options
    assert options == [(0, card(0, ZOFE), 1, card(1, ZOFE))]
    with pytest.raises(IllegalChoice):
        apply(state, (0, card(0, ZOFE), 1, card(1, NARR)))
    # no legal swap: the action lapses (only the Mundschenk itself and one other display card)
    state = position(3, hands, [[card(0, ZOFE)], [], []], round_cards=5)
    apply(state, card(0, MUND))
    assert state.phase == PLAY and state.current == 0


def test_the_waechter_with_no_other_card_lapses_else_takes_one_back() -> None:
    """'Take one other card from the player's own display back into their hand; with no other card there, the
    action lapses.' ('Liegt keine andere Karte, verfällt die Aktion.')"""
    state = position(3, [[card(0, WAECH), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]])
    apply(state, card(0, WAECH))
    assert state.phase == PLAY and state.displays[0] == [card(0, WAECH)]
    state = position(3, [[card(0, WAECH), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], [[card(1, NARR)], [], []])
    apply(state, card(0, WAECH))
    dec = decision(state)
    assert dec.kind == "guard" and legal_options(state, dec) == [card(1, NARR)]
    with pytest.raises(IllegalChoice):
        apply(state, card(0, WAECH))  # not the Wächter itself
    apply(state, card(1, NARR))
    assert state.displays[0] == [card(0, WAECH)] and card(1, NARR) in state.hands[0] and state.current == 0


def test_the_zauberer_exchange_respects_its_limits_and_asks_the_partner() -> None:
    """'The player must exchange 1 or more hand cards with another player of their choice; no more than either of
    them holds. Both give their cards face down at the same time ... each side chooses which of its own cards to
    give (Decision: the partner's choice is a decision of the partner's strategy).'"""
    hands = [[card(0, ZAUB), card(0, HOF), card(0, ZOFE), card(0, NARR)], [card(1, HOF)], [card(2, HOF), brown(MUND)]]
    state = position(3, hands)
    apply(state, card(0, ZAUB))
    dec = decision(state)
    assert dec.kind == "wizard" and legal_options(state, dec) == [(1, 1), (2, 1), (2, 2)]
    for bad in ((0, 1), (1, 2), (2, 3), (2, 0)):
        with pytest.raises(IllegalChoice):
            apply(state, bad)
    apply(state, (2, 2))
    dec = decision(state)
    assert (dec.seat, dec.kind, dec.count, dec.partner) == (0, "give", 2, 2)
    assert len(legal_options(state, dec)) == 3  # two of the three cards left
    apply(state, (card(0, NARR), card(0, HOF)))
    dec = decision(state)
    assert (dec.seat, dec.kind, dec.count, dec.partner) == (2, "partner_give", 2, 0)  # asked of the partner
    view = PlayerView(state, 2)
    assert view.giving == () and view.known_hands[0] == ()  # the partner does not see what it will get
    assert PlayerView(state, 0).giving == (card(0, HOF), card(0, NARR))
    apply(state, (card(2, HOF), brown(MUND)))
    assert sorted(state.hands[0]) == sorted([card(0, ZOFE), card(2, HOF), brown(MUND)])
    assert sorted(state.hands[2]) == sorted([card(0, HOF), card(0, NARR)])
    assert state.current == 0  # the Zauberer was seat 1's colour


@pytest.mark.parametrize(("players", "target"), [(3, 6), (4, 5), (5, 4)])
def test_the_win_thresholds_by_player_count(players: int, target: int) -> None:
    """'With 3, 4 or 5 players the game ends as soon as a player has 6, 5 or 4 points; that player wins.'"""
    others = [[card(s, HOF)] for s in range(1, players)]
    shown = [card(0, p) for p in (HOF, SCHATZ, ZAUB, ZOFE, MUND)]
    for before, over in ((target - 2, False), (target - 1, True)):
        points = [before] + [0] * (players - 1)
        state = position(players, [[card(0, WAECH)], *others], [shown] + [[]] * (players - 1), points=points)
        apply(state, card(0, WAECH))
        assert (state.phase == OVER) is over and state.finished is over
        assert state.winners == ([0] if over else [])


def test_simultaneous_winners_are_separated_by_the_display_then_share() -> None:
    """'If several reach it at the same moment, the one with more cards in their display at that moment wins;
    Decision: if that is still tied, they share the win.'"""
    hands = [[card(0, ZOFE)], [card(1, HOF)], [card(2, HOF)]]
    displays = [[brown(ZOFE)], [card(1, ZOFE), card(1, NARR)], [card(2, ZOFE)]]
    state = position(3, hands, displays, points=[0, 5, 5])
    apply(state, card(0, ZOFE))  # a repeat: seats 2 and 3 reach 6 at the same moment
    assert state.finished and state.winners == [1]
    displays = [[brown(ZOFE)], [card(1, ZOFE)], [card(2, ZOFE)]]
    state = position(3, hands, displays, points=[0, 5, 5])
    apply(state, card(0, ZOFE))
    assert state.finished and state.winners == [1, 2]


def test_the_noted_variant_breaks_ties_by_noted_totals_and_the_repeater_notes_nothing() -> None:
    """'Variant: at the end of each round each player notes the number of cards in their display, except the player
    who caused a repeat, who notes nothing that round; ties for the win are broken by the larger noted total.'
    ('Wer allerdings ein Palastgeflüster auslöst (2 gleiche Karten ausliegend), geht leer aus.')"""
    hands = [[card(0, ZOFE)], [card(1, HOF)], [card(2, HOF)]]
    displays = [[brown(ZOFE), card(0, NARR)], [card(1, ZOFE), card(1, NARR)], [card(2, ZOFE)]]
    state = position(3, hands, displays, points=[0, 5, 5], tiebreak="noted")
    state.noted = [0, 1, 3]
    apply(state, card(0, ZOFE))
    assert state.noted == [0, 3, 4]  # seat 1 caused the repeat: nothing noted
    assert state.winners == [2]  # the display would pick seat 2 (2 cards against 1)
    state = position(3, hands, displays, points=[0, 5, 5])
    state.noted = [0, 1, 3]
    apply(state, card(0, ZOFE))
    assert state.winners == [1]


def test_max_rounds_stops_the_game_unfinished() -> None:
    """'Decision: a game stops after max_rounds rounds (default 200) and is recorded as not finished.'"""
    state = position(3, [[card(0, ZOFE)], [card(1, HOF)], [card(2, HOF)]], [[brown(ZOFE)], [], []], max_rounds=1)
    apply(state, card(0, ZOFE))
    assert state.phase == OVER and not state.finished and state.winners == []
    assert PgOptions().max_rounds == 200


def test_the_zofe_refills_an_empty_pile_from_her_discards() -> None:
    """'Discard 1 hand card face down and draw 1 card from the draw pile. Decision: if the pile is empty, shuffle
    the Zofe's discards into a new pile; if there are none, no card is drawn.'"""
    state = position(3, [[card(0, ZOFE), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]])
    rest = state.draw
    state.draw = []
    state.discards = rest[:3]
    state.hands[1] += rest[3:]  # (the other cards somewhere, to keep the count)
    apply(state, card(0, ZOFE))
    assert decision(state).kind == "discard"
    apply(state, card(0, HOF))
    assert len(state.hands[0]) == 1 and len(state.draw) + len(state.discards) == 3 and state.discards == []
    assert card(0, HOF) in state.hands[0] + state.draw


def test_illegal_choices_leave_the_state_untouched() -> None:
    state = new_game(PgOptions(players=3), 11)
    before = state.copy()
    for bad in (99, "x", None, True, (1, 2)):
        with pytest.raises(IllegalChoice):
            apply(state, bad)
    assert state.hands == before.hands and state.displays == before.displays and state.decisions == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"players": 2}, "players must be 3, 4 or 5"), ({"players": 6}, "players must be 3, 4 or 5"),
     ({"tiebreak": "x"}, "tiebreak must be"), ({"max_rounds": 0}, "max_rounds must be")],
)  # fmt: skip
def test_options_are_validated(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PgOptions(**kwargs)


# ------------------------------------------------------------------ the decisions of issue 32 (section 4)
# The quick rules: "a) Sollte er dort eine schon vorhandene Person auslegen müssen, endet die Runde sofort."
# ("a) Should he have to lay out a person already there, the round ends at once.") The player lays out a repeat only
# when he *has to*; and "Rundenende prüfen" comes as step 2, right after "1 Handkarte offen in die eigene Auslage
# legen", with "Beim Beenden einer Runde wird die letzte Aktion nicht mehr ausgeführt" ("when a round ends, the last
# action is no longer carried out").


def test_a_repeat_is_not_offered_while_the_hand_holds_a_new_person() -> None:
    """'Decision (the seed says "auslegen *müssen*", has to): a repeat is played only when forced. A player who holds
    any card whose person is not yet in their display must play one of those.' ('Sollte er dort eine schon
    vorhandene Person auslegen müssen': should he *have to* lay out a person already there.)"""
    hand = [brown(ZOFE), card(0, HOF), brown(NARR), card(0, NARR)]
    state = position(3, [hand, [card(1, HOF)], [card(2, HOF)]], [[card(0, ZOFE), brown(NARR, 1)], [], []])
    dec = decision(state)
    assert dec.kind == "play" and legal_options(state, dec) == [card(0, HOF)]  # Zofe and both Hofnarren repeat
    assert PlayerView(state, 0).legal_options(dec) == [card(0, HOF)]  # what the seat's strategy is offered
    before = state.copy()
    for repeat in (brown(ZOFE), card(0, NARR)):
        with pytest.raises(IllegalChoice, match="repeat"):
            apply(state, repeat)
    assert state.hands == before.hands and state.displays == before.displays and state.points == [0, 0, 0]
    apply(state, card(0, HOF))
    assert not state.round_ends and state.displays[0][-1] == card(0, HOF)


def test_a_hand_of_repeats_offers_every_card_and_ends_the_round() -> None:
    """'Only a hand made entirely of repeats plays a repeat': then every card is a choice, and the one laid out
    ends the round, every other player scoring 1 point."""
    hand = [brown(ZOFE), card(0, NARR), brown(ZOFE, 1)]
    displays = [[card(0, ZOFE), brown(NARR), card(0, HOF)], [], []]
    state = position(3, [hand, [card(1, HOF)], [card(2, HOF)]], displays)
    assert legal_options(state, decision(state)) == sorted(hand)
    apply(state, card(0, NARR))
    assert state.points == [0, 1, 1] and state.round_ends[-1].kind == "repeat"


def test_the_sixth_person_being_the_hofnarr_under_the_hofnarr_king_scores_six_for_its_player() -> None:
    """'Decision: (a) and (b) are checked when the card is laid out, before anything the card does, so (c) applies
    only when neither (a) nor (b) has ended the round: a sixth different person that is the Hofnarr under the
    Hofnarr king scores (b) for its player.' ('b) Sobald 6 unterschiedliche Personen in einer Auslage liegen, endet
    die Runde ebenfalls sofort = 1 Punkt für diesen Spieler': as soon as six different persons lie in a display, the
    round ends at once as well = 1 point for this player.)"""
    shown = [card(0, p) for p in (HOF, SCHATZ, ZAUB, ZOFE, MUND)]
    state = position(3, [[card(0, NARR)], [card(1, HOF)], [card(2, HOF)]], [shown, [], []], revealed=(NARR,))
    apply(state, card(0, NARR))
    (end,) = state.round_ends
    assert (end.kind, end.seat, end.scorers) == ("six", 0, (0,)) and state.points == [1, 0, 0]


def test_a_repeated_hofnarr_under_the_hofnarr_king_is_a_repeat() -> None:
    """'... a repeated Hofnarr is (a).' A repeat and the jester both give every other player a point; they differ in
    the record and in the variant, where 'the player who caused a repeat (4a) notes nothing that round' ('Wer
    allerdings ein Palastgeflüster auslöst (2 gleiche Karten ausliegend), geht leer aus': whoever sets off a
    Palastgeflüster, two equal cards laid out, gets nothing)."""
    displays = [[card(0, NARR), card(0, HOF)], [card(1, ZOFE)], []]
    state = position(3, [[brown(NARR)], [card(1, HOF)], [card(2, HOF)]], displays, revealed=(NARR,), tiebreak="noted")
    apply(state, brown(NARR))
    (end,) = state.round_ends
    assert (end.kind, end.seat, end.scorers) == ("repeat", 0, (1, 2)) and state.points == [0, 1, 1]
    assert state.noted == [0, 1, 0]  # the repeater notes nothing (the jester's player would note its 3 cards)
