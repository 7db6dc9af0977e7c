"""Legal options at a decision, enumerated from what the deciding seat may know (its PlayerView).

``legal_options`` lists every legal choice of every decision kind but two, and says so plainly:

- ``move``: the reachable distributions grow exponentially with the points, so movement is never enumerated
  (``legal_options`` raises); ``random_moves`` samples a random walk instead, which reaches every distribution the
  points allow but not uniformly.
- ``cards`` with a finite bank (``gold_limit``): a choice is listed as a multiset with its gold4 cards first. Other
  orders are legal too and, only with a finite bank, can change what gold4 takes (prices paid first refill the
  bank); they are not listed. With the unlimited bank (the default) the order changes nothing but affordability.

The engine's ``apply`` accepts every option listed here (a test checks it over many random games), and the counts
per decision kind are pinned in ``tests/playthroughs`` so any change of the lister shows up.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from itertools import combinations, combinations_with_replacement

from palais_sim.core.errors import NotListed
from palais_sim.games.palais_royal import cards
from palais_sim.games.palais_royal.board import GATE, IS_EDGE, KING, MADAME, OFFICE
from palais_sim.games.palais_royal.rules import FROM_SUPPLY, Decision
from palais_sim.games.palais_royal.state import WINDOW_NAMES

NOT_ENUMERATED = frozenset(("move",))


def legal_options(view, decision: Decision) -> list:
    """Every legal choice at ``decision`` (see the module docstring for the two exceptions)."""
    kind = decision.kind
    if kind == "setup":
        return setup_options(decision.max_count)
    if kind == "cards":
        return card_options(view, decision)
    if kind == "reinforce":
        return [
            (count, sources)
            for count in range(decision.max_count + 1)
            for sources in source_options(_own_rooms(view), count - view.supply[view.seat], GATE)
        ]
    if kind == "seals":
        return seal_options(view, decision)
    if kind == "recruit":
        return recruit_options(view, decision)
    if kind == "draw":
        return list(range(decision.max_count + 1))
    if kind == "keep":
        return [
            combo
            for k in range(min(decision.max_count, len(decision.drawn)) + 1)
            for combo in combinations(range(len(decision.drawn)), k)
        ]
    if kind == "move":
        raise NotListed("movement options are not enumerated (too many); sample them with random_moves")
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
    """Distinct multisets of playable cards, gold4 first (it pays for the others)."""
    prices = view.components.card_prices
    window_cards = cards.WINDOW_CARDS[WINDOW_NAMES.index(decision.window)]
    counts = Counter(c for c in view.hand if c in window_cards)
    kinds = sorted(counts, key=lambda c: (c != "gold4", c))
    gold = view.gold[view.seat]
    results: list[tuple[str, ...]] = []

    def extend(i: int, chosen: list[str]) -> None:
        if i == len(kinds):
            if cards.unaffordable(chosen, prices, gold, view.bank) is None:
                results.append(tuple(chosen))
            return
        card = kinds[i]
        for k in range(counts[card] + 1):
            extend(i + 1, chosen + [card] * k)

    extend(0, [])
    return results


def _own_rooms(view) -> list[int]:
    return [row[view.seat] for row in view.rooms]


def source_options(own: list[int], need: int, target: int) -> list[tuple[int, ...]]:
    """Every way to take ``need`` servants from the seat's rooms (``own``: its servants per room), ``target``
    excepted: multisets of rooms as sorted tuples. ``[()]`` when nothing is needed."""
    if need <= 0:
        return [()]
    rooms = [r for r in range(9) if r != target and own[r] > 0]
    return list(_multisets(rooms, own, need, 0))


def _multisets(rooms: list[int], own: list[int], need: int, start: int) -> Iterator[tuple[int, ...]]:
    if need == 0:
        yield ()
        return
    for i in range(start, len(rooms)):
        room = rooms[i]
        for take in range(min(own[room], need), 0, -1):
            for rest in _multisets(rooms, own, need - take, i + 1):
                yield (room,) * take + rest


def seal_options(view, decision: Decision) -> list[tuple]:
    """Every (king, madame, sources): the King's new servants come first, then Madame's (as ``apply`` takes them)."""
    supply = view.supply[view.seat]
    own = _own_rooms(view)
    results = []
    for king in range(decision.king_max + 1):
        for madame in range(decision.madame_max + 1):
            for ks in source_options(own, king - supply, KING):
                after = own[:]
                for room in ks:
                    after[room] -= 1
                after[KING] += king
                for ms in source_options(after, madame - max(0, supply - king), MADAME):
                    results.append((king, madame, ks + ms))
    return results


def recruit_options(view, decision: Decision) -> list:
    """``None`` (stop) and every affordable noble with every split of the wild seals and, on an edge field, every
    place the edge servant can come from (the supply, or a room with an own servant left after the returns)."""
    nobles = view.components.nobles
    own = _own_rooms(view)
    king, madame = own[KING], own[MADAME]
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
                if noble.violet - wv > madame or noble.turquoise - wt > king:
                    continue
                if not IS_EDGE[field]:
                    results.append((field, wv, wt, FROM_SUPPLY))
                    continue
                left = own[:]
                left[OFFICE] -= 1
                left[MADAME] -= noble.violet - wv
                left[KING] -= noble.turquoise - wt
                results.append((field, wv, wt, FROM_SUPPLY))
                results.extend((field, wv, wt, room) for room in range(9) if left[room] > 0)
    return results


def random_moves(view, decision: Decision, rng: random.Random) -> list[tuple[int, int, int]]:
    """A random walk: a uniformly random number of points, each spent moving a random own servant one step. Every
    distribution the points can reach has a chance, but not an equal one (this samples, it does not enumerate)."""
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
    """A uniformly random legal choice (for movement, a random walk: see ``random_moves``)."""
    if decision.kind == "move":
        return random_moves(view, decision, rng)
    return rng.choice(legal_options(view, decision))
