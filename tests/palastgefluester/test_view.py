"""The seat view of Palastgeflüster holds no seed and no hidden card, and follows a seat's knowledge exactly."""

from __future__ import annotations

import random
from collections import Counter

from palais_sim.games.palastgefluester.rules import apply, decision, legal_options, new_game
from palais_sim.games.palastgefluester.state import PgOptions, PgState
from palais_sim.games.palastgefluester.view import PlayerView
from tests.palais_royal.test_seat_view import reachable
from tests.palastgefluester.helpers import HOF, MUND, NARR, SCHATZ, WAECH, ZAUB, ZOFE, brown, card, position


def random_positions(games: int, per_game: int = 6) -> list[PgState]:
    out = []
    for g in range(games):
        n = 3 + g % 3
        state = new_game(PgOptions(players=n), 500 + g)
        rng = random.Random(g)
        stops = sorted(rng.sample(range(60), per_game))
        step = 0
        while not state.over and stops:
            if step == stops[0]:
                out.append(state.copy())
                stops.pop(0)
            options = legal_options(state, decision(state))
            apply(state, options[rng.randrange(len(options))])
            step += 1
    return out


def test_nothing_reachable_from_a_view_gives_the_seed_the_piles_or_an_unknown_card() -> None:
    positions = random_positions(60)
    assert len(positions) > 200
    for state in positions:
        seat = decision(state).seat
        view = PlayerView(state, seat)
        objects = reachable(view)
        assert not any(o is state or o is state.hands or o is state.draw or o is state.known for o in objects)
        ints = {o for o in objects if isinstance(o, int) and not isinstance(o, bool)}
        strings = [o for o in objects if isinstance(o, str)]
        assert state.seed not in ints and not any(str(state.seed) in s for s in strings)
        others = {k for s, k in enumerate(state.seat_keys) if s != seat}
        assert not ints & others, "another seat's stream key is in the view"
        sequences = {tuple(o) for o in objects if isinstance(o, tuple | list) and len(o) >= 2}
        if len(state.draw) >= 4:
            assert tuple(state.draw) not in sequences and tuple(reversed(state.draw)) not in sequences
        if len(state.king_pile) >= 4:
            assert tuple(state.king_pile) not in sequences
        # every card the view shows in another hand is really there, and the seat knows it
        for s in range(state.n):
            if s != seat:
                shown = set(view.known_hands[s])
                assert shown <= set(state.hands[s]) and all(state.known[c] >> seat & 1 for c in shown)
        # the view is a function of what the seat knows: change the hidden information and it stays the same
        assert view_data(PlayerView(hide_differently(state, seat, random.Random(state.decisions)), seat)) == view_data(
            view
        )


def view_data(view: PlayerView) -> dict:
    return {name: getattr(view, name) for name in PlayerView.__slots__ if name not in ("_rng",)}


def hide_differently(state: PgState, seat: int, rng: random.Random) -> PgState:
    """The same position for ``seat``: unknown cards of other hands swapped with unknown draw cards, the draw pile
    and the king pile in another order, another gift while the seat is the Zauberer's partner choosing."""
    other = state.copy()
    unknown_draw = [i for i, c in enumerate(other.draw) if not other.known[c] >> seat & 1]
    for s in range(other.n):
        if s == seat:
            continue
        for i, c in enumerate(other.hands[s]):
            if not other.known[c] >> seat & 1 and unknown_draw and not (s == other.current and c in other.given):
                j = unknown_draw.pop()
                other.hands[s][i], other.draw[j] = other.draw[j], c
                other.known[other.hands[s][i]], other.known[c] = other.known[c], 0
    rng.shuffle(other.draw)
    rng.shuffle(other.king_pile)
    if other.given and seat == other.partner:
        other.given = sorted(rng.sample(other.hands[other.current], other.count))
    return other


def test_schatzmeister_knowledge_appears_and_leaves_with_the_cards() -> None:
    """'Decision: every other player knows these cards until they leave that hand (strategies see them).'"""
    hand = [card(0, SCHATZ), card(0, ZOFE), card(0, NARR), card(1, HOF), brown(MUND)]
    state = position(3, [hand, [card(1, ZAUB), card(1, ZOFE)], [card(2, HOF), card(2, ZOFE)]], revealed=(WAECH,))
    assert PlayerView(state, 1).known_hands[0] == ()
    apply(state, card(0, SCHATZ))  # shows the rest of seat 1's hand; seat 1 plays again
    rest = tuple(sorted(hand[1:]))
    assert PlayerView(state, 1).known_hands[0] == rest and PlayerView(state, 2).known_hands[0] == rest
    apply(state, card(0, ZOFE))  # a played card leaves the hand: no longer "known in the hand"
    assert card(0, ZOFE) not in PlayerView(state, 2).known_hands[0]
    apply(state, card(0, NARR))  # discard the Hofnarr: it leaves, the drawn card is unknown to the others
    drawn = next(c for c in state.hands[0] if c not in hand)
    assert PlayerView(state, 2).known_hands[0] == (card(1, HOF), brown(MUND))
    assert drawn not in PlayerView(state, 1).known_hands[0]
    assert PlayerView(state, 0).known_discards == (card(0, NARR),) and PlayerView(state, 1).known_discards == ()


def test_zauberer_exchange_keeps_what_each_giver_knows_and_drops_the_rest() -> None:
    hands = [[card(0, ZAUB), card(0, HOF), card(0, ZOFE)], [card(1, HOF), card(1, NARR)], [card(2, HOF)]]
    state = position(3, hands, revealed=(WAECH,))
    state.known[card(0, HOF)] = 0b111  # as if a Schatzmeister had shown seat 1's hand
    state.known[card(0, ZOFE)] = 0b111
    apply(state, card(0, ZAUB))
    apply(state, (1, 1))
    apply(state, (card(0, HOF),))
    apply(state, (card(1, NARR),))
    # seat 1 gave its Hofmarschall: it knows seat 2 has it; seat 3 no longer does; the Zofe stayed known
    assert PlayerView(state, 0).known_hands[1] == (card(0, HOF),)
    assert PlayerView(state, 2).known_hands[1] == ()
    assert PlayerView(state, 2).known_hands[0] == (card(0, ZOFE),)
    assert PlayerView(state, 1).known_hands[0] == (card(0, ZOFE), card(1, NARR))


def test_a_card_taken_back_by_the_waechter_is_known_to_everyone() -> None:
    state = position(3, [[card(0, WAECH), card(0, HOF)], [card(1, HOF)], [card(2, HOF)]], [[card(1, NARR)], [], []])
    apply(state, card(0, WAECH))
    apply(state, card(1, NARR))
    assert PlayerView(state, 1).known_hands[0] == (card(1, NARR),) == PlayerView(state, 2).known_hands[0]


def test_sample_state_re_deals_only_what_the_seat_does_not_know() -> None:
    for state in random_positions(30, 3):
        seat = decision(state).seat
        view = PlayerView(state, seat)
        firsts = set()
        for k in range(8):
            s = view.sample_state(random.Random(k))
            places = [c for h in s.hands for c in h] + [c for d in s.displays for c in d] + s.draw + s.discards
            assert sorted(places) == state.components.cards_in_game(state.n)
            assert s.hands[seat] == list(view.hand) and s.displays == state.displays
            assert [len(h) for h in s.hands] == [len(h) for h in state.hands]
            assert len(s.draw) == len(state.draw) and len(s.discards) == len(state.discards)
            for o in range(state.n):
                assert set(view.known_hands[o]) <= set(s.hands[o])
            assert s.seed != state.seed and decision(s) == decision(state)
            assert Counter(s.king_pile) == Counter(state.king_pile)
            if s.given:
                assert set(s.given) <= set(s.hands[s.current])
            firsts.add(tuple(s.draw))
        assert len(firsts) > 1 or len(state.draw) <= 1


def test_view_streams_differ_by_seat_and_decision_and_repeat() -> None:
    state = new_game(PgOptions(players=3), 4)
    a = PlayerView(state, 0).rng.random()
    assert a == PlayerView(state, 0).rng.random() and a != PlayerView(state, 1).rng.random()
    apply(state, legal_options(state, decision(state))[0])
    assert a != PlayerView(state, 0).rng.random()
