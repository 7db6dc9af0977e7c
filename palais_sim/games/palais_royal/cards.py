"""The privilege cards (RULES.md section 5), in one place: when each may be played, what it costs, what it does,
where it goes afterwards, and the money that gold4 makes (the bank permitting).

The rules, the legal-option lister and the strategies all use these functions, so a card's rules live here only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from palais_sim.games.palais_royal.components import POINT_CARDS
from palais_sim.games.palais_royal.state import W_END, W_MOVE, W_RECRUIT, W_START, GameState, replace_at

GOLD4_GAIN: Final = 4
ANY_TIME: Final[tuple[str, ...]] = ("gold4", "points2", "points4")
# The cards allowed in each window (indexed by W_START, W_MOVE, W_RECRUIT, W_END).
WINDOW_CARDS: Final[tuple[frozenset[str], ...]] = (
    frozenset(("all_majorities", "free_reinforce", "reinforce2_move6", *ANY_TIME)),
    frozenset(("move5", "move9", *ANY_TIME)),
    frozenset(("two_seals", *ANY_TIME)),
    frozenset(ANY_TIME),
)
assert (W_START, W_MOVE, W_RECRUIT, W_END) == (0, 1, 2, 3)
# all_majorities stays face up in front of the player until the end of the turn, then goes to the discard pile.
STAYS_IN_FRONT: Final[frozenset[str]] = frozenset(("all_majorities",))
EXTRA_REINFORCE: Final = {"reinforce2_move6": 2}
EXTRA_MOVE: Final = {"reinforce2_move6": 6, "move5": 5, "move9": 9}
WILD_SEALS: Final = {"two_seals": 2}


def gold4_gain(bank: int | None) -> int:
    """Gold a gold4 card takes from the bank: 4, or what a finite bank still holds."""
    return GOLD4_GAIN if bank is None or bank >= GOLD4_GAIN else bank


def pay(card: str, price: int, gold: int, bank: int | None) -> tuple[int, int | None]:
    """Gold and bank after playing ``card`` at ``price`` (the caller has checked ``price <= gold``)."""
    gold -= price
    if bank is not None:
        bank += price
    if card == "gold4":
        gain = gold4_gain(bank)
        gold += gain
        if bank is not None:
            bank -= gain
    return gold, bank


def unaffordable(cards: Iterable[str], prices: Mapping[str, int], gold: int, bank: int | None) -> str | None:
    """The first card of ``cards`` (played in that order) the seat cannot pay for, or ``None``."""
    for card in cards:
        price = prices[card]
        if price > gold:
            return card
        gold, bank = pay(card, price, gold, bank)
    return None


def money(hand: Sequence[str], prices: Mapping[str, int], gold: int, bank: int | None) -> int:
    """The most gold the seat can have now: its gold, plus what its gold4 cards make when played first."""
    price = prices["gold4"]
    for _ in range(hand.count("gold4")):
        if price > gold:
            break
        after, after_bank = pay("gold4", price, gold, bank)
        if after <= gold:
            break
        gold, bank = after, after_bank
    return gold


def playable(hand: Sequence[str], window: int, prices: Mapping[str, int], gold: int, bank: int | None) -> tuple:
    """The cards of ``hand`` allowed in ``window`` that the seat can pay for now (gold4 counted as money)."""
    if not hand:
        return ()
    allowed = WINDOW_CARDS[window]
    cash = money(hand, prices, gold, bank) if "gold4" in hand else gold
    return tuple(sorted(c for c in hand if c in allowed and prices[c] <= cash))


def play(state: GameState, seat: int, card: str) -> None:
    """Put a paid card where it goes (point cards before the player, all_majorities in front of the player for
    the turn, the rest to the discard pile) and give its effect for this turn."""
    state.hands[seat].remove(card)
    if card in POINT_CARDS:
        state.played_points = replace_at(state.played_points, seat, (*state.played_points[seat], card))
    elif card in STAYS_IN_FRONT:
        state.in_front = (*state.in_front, card)
    else:
        state.discard = (*state.discard, card)
    if card == "all_majorities":
        state.all_maj = True
    elif card == "free_reinforce":
        state.free_reinforce = True
    state.extra_reinforce += EXTRA_REINFORCE.get(card, 0)
    state.extra_move += EXTRA_MOVE.get(card, 0)
    state.wild += WILD_SEALS.get(card, 0)


def end_of_turn(state: GameState) -> None:
    """Cards that lay in front of the player for the turn go to the discard pile."""
    if state.in_front:
        state.discard = state.discard + state.in_front
        state.in_front = ()
