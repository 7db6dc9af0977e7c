"""Legal options at a decision, enumerated from what the deciding seat may know (its PlayerView).

Every decision is enumerable except movement, whose reachable distributions grow exponentially with the points;
for movement ``random_moves`` takes a random walk instead. The engine's ``apply`` accepts every option listed here
(a test checks it over many random games).
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, combinations_with_replacement

from palais_sim.board import GATE, KING, MADAME
from palais_sim.engine.rules import Decision
from palais_sim.engine.state import WINDOW_CARDS

SOURCE_LIMIT = 200  # cap on source-room combinations listed when the supply is empty


def legal_options(view, decision: Decision) -> list:
    """Every legal choice at ``decision`` (movement excluded: see ``random_moves``)."""
    kind = decision.kind
    if kind == "setup":
        return setup_options(decision.max_count)
    if kind == "cards":
        return card_options(view, decision)
    if kind == "reinforce":
        return [
            (count, sources)
            for count in range(decision.max_count + 1)
            for sources in _source_options(view, count, view.supply[view.seat], GATE)
        ]
    if kind == "seals":
        return seal_options(view, decision)
    if kind == "recruit":
        return recruit_options(view, decision)
    if kind == "keep":
        return [
            combo
            for k in range(min(decision.max_count, len(decision.drawn)) + 1)
            for combo in combinations(range(len(decision.drawn)), k)
        ]
    if kind == "move":
        raise ValueError("movement options are not enumerated; use random_moves or palais_sim.movement")
    raise ValueError(f"unknown decision kind {kind!r}")


def setup_options(total: int) -> list[tuple[int, ...]]:
    """All ways to put ``total`` servants into the nine rooms."""
    result = []
    for combo in combinations_with_replacement(range(9), total):
        counts = [0] * 9
        for room in combo:
            counts[room] += 1
        result.append(tuple(counts))
    return result


def card_options(view, decision: Decision) -> list[tuple[str, ...]]:
    """Distinct multisets of playable cards, ordered so gold4 is played first (it pays for the others)."""
    prices = view.components.card_prices
    window_cards = _window_cards(decision)
    allowed = [c for c in view.hand if c in window_cards]
    counts = Counter(allowed)
    kinds = sorted(counts, key=lambda c: (c != "gold4", c))
    gold = view.gold[view.seat]
    results: list[tuple[str, ...]] = []

    def extend(i: int, chosen: list[str]) -> None:
        if i == len(kinds):
            if _affordable(chosen, prices, gold, view.bank):
                results.append(tuple(chosen))
            return
        card = kinds[i]
        for k in range(counts[card] + 1):
            extend(i + 1, chosen + [card] * k)

    extend(0, [])
    return results


def _window_cards(decision: Decision) -> frozenset[str]:
    from palais_sim.engine.state import WINDOW_NAMES

    return WINDOW_CARDS[WINDOW_NAMES.index(decision.window)]


def _affordable(cards: list[str], prices: dict[str, int], gold: int, bank: int | None) -> bool:
    for card in cards:
        if prices[card] > gold:
            return False
        gold -= prices[card]
        if bank is not None:
            bank += prices[card]
        if card == "gold4":
            gain = 4 if bank is None else min(4, bank)
            gold += gain
            if bank is not None:
                bank -= gain
    return True


def _source_options(view, count: int, supply: int, target: int, limit: int = SOURCE_LIMIT) -> list[tuple]:
    """Ways to take the servants beyond the supply from rooms (multisets of rooms, target excluded)."""
    need = count - supply
    if need <= 0:
        return [()]
    pool = [room for room in range(9) if room != target for _ in range(view.rooms[room][view.seat])]
    options = sorted(set(combinations(pool, need)))
    return options[:limit]


def seal_options(view, decision: Decision) -> list[tuple]:
    seat = view.seat
    results = []
    for king in range(decision.king_max + 1):
        for madame in range(decision.madame_max + 1):
            total = king + madame
            need = total - view.supply[seat]
            if need <= 0:
                results.append((king, madame, ()))
                continue
            king_need = max(0, king - view.supply[seat])
            for ks in _source_options(view, king, view.supply[seat], KING):
                # After the King's servants, Madame's come from what is left.
                rest_supply = max(0, view.supply[seat] - king)
                remaining = _without(view, ks)
                for ms in _source_options(remaining, madame, rest_supply, MADAME):
                    if len(ks) == king_need:
                        results.append((king, madame, tuple(ks) + tuple(ms)))
    return results


class _Reduced:
    """A view-like object with some servants taken out of rooms (for chained source choices)."""

    def __init__(self, view, taken: tuple[int, ...]) -> None:
        self.seat = view.seat
        rooms = [list(row) for row in view.rooms]
        for room in taken:
            rooms[room][view.seat] -= 1
        self.rooms = rooms


def _without(view, taken: tuple[int, ...]) -> _Reduced:
    return _Reduced(view, taken)


def recruit_options(view, decision: Decision) -> list:
    """``None`` (stop) and every affordable noble with every useful split of the wild seals."""
    seat = view.seat
    nobles = view.components.nobles
    king, madame = view.rooms[KING][seat], view.rooms[MADAME][seat]
    wild = decision.wild_seals
    results: list = [None]
    if decision.recruits_left < 1:
        return results
    for field, code in enumerate(view.park):
        if code < 0 or not view.can_recruit(field, wild):
            continue
        noble = nobles[code]
        for wv in range(min(noble.violet, wild) + 1):
            for wt in range(min(noble.turquoise, wild - wv) + 1):
                if noble.violet - wv <= madame and noble.turquoise - wt <= king:
                    results.append((field, wv, wt))
    return results


def random_moves(view, decision: Decision, rng: random.Random) -> list[tuple[int, int, int]]:
    """A random walk: a uniformly random number of points, each spent moving a random own servant one step."""
    seat = view.seat
    mine = [row[seat] for row in view.rooms]
    neighbours = view.layout.neighbours(decision.diagonal)
    steps = rng.randint(0, decision.points)
    moves = []
    for _ in range(steps):
        occupied = [r for r in range(9) if mine[r] > 0]
        if not occupied:
            break
        src = rng.choice(occupied)
        dst = rng.choice(neighbours[src])
        mine[src] -= 1
        mine[dst] += 1
        moves.append((src, dst, 1))
    return moves


def sample_option(view, decision: Decision, rng: random.Random):
    """A uniformly random legal choice (a random walk for movement)."""
    if decision.kind == "move":
        return random_moves(view, decision, rng)
    return rng.choice(legal_options(view, decision))
