"""Moving servants within one turn's movement points: nearest spare servant first, a room at a time.

The heuristic's movement helpers. Greedy on purpose: each wanted servant comes from the nearest room with one to
spare, in the order the plan asks for rooms, within the points left, and one too far goes part of the way. This is
not the cheapest transport between two whole distributions (``palais_sim.games.palais_royal.movement.plan_moves``
solves that exactly): the plan fills rooms in priority order under a budget, and a later room's servants must not
be taken for an earlier one's.
"""

from __future__ import annotations

from palais_sim.games.palais_royal.board import GATE

Distances = tuple[tuple[int, ...], ...]  # room-to-room movement costs (Layout.distances)


def dist_for(spare: list[int], dist: Distances, room: int, count: int) -> int | None:
    """Points to bring ``count`` servants into ``room`` from the nearest spare ones (``spare`` is consumed)."""
    cost = 0
    for _ in range(count):
        best, best_d = -1, 99
        for src in range(9):
            if spare[src] > 0 and src != room and dist[src][room] < best_d:
                best, best_d = src, dist[src][room]
        if best < 0:
            return None
        spare[best] -= 1
        cost += best_d
    return cost


def fill(
    mine: list[int],
    wants: tuple[tuple[int, int], ...],
    keep: list[int],
    dist: Distances,
    points: int,
    moves: list[tuple[int, int, int]],
    target: list[int] | None = None,
) -> int:
    """Move servants into rooms until each holds what it wants, nearest spare servant first (the Gate's preferred),
    within the points. A servant is spare above ``keep``. With ``target`` (the standing distribution, filled in
    priority order): a servant above its room's standing level first; if none is in reach, one that only a later
    level holds; if none, the nearest goes part of the way. Returns the points left."""
    for room, wanted in wants:
        while mine[room] < wanted and points > 0:
            best = nearest(mine, room, keep, target, dist, points)
            if best < 0 and target is not None:
                best = nearest(mine, room, keep, None, dist, points)
            if best < 0:
                if target is not None:
                    far = nearest(mine, room, keep, target, dist, 99)
                    if far >= 0:
                        # Too far for this turn: part of the way, so that the servant gets there next turn.
                        points = part_way(mine, far, room, dist, points, moves)
                break
            mine[best] -= 1
            mine[room] += 1
            points -= dist[best][room]
            if moves and moves[-1][0] == best and moves[-1][1] == room:
                moves[-1] = (best, room, moves[-1][2] + 1)
            else:
                moves.append((best, room, 1))
    return points


def nearest(mine: list[int], room: int, keep: list[int], target: list[int] | None, dist: Distances, limit: int) -> int:
    """The room of the nearest servant above ``keep`` (and ``target``, the Gate excepted) within ``limit`` points of
    ``room`` (the Gate preferred by half a point), or -1."""
    best, best_d = -1, 99.0
    for src in range(9):
        if src == room or dist[src][room] > limit:
            continue
        floor = keep[src]
        if target is not None and src != GATE and target[src] > floor:
            floor = target[src]
        if mine[src] <= floor:
            continue
        d = dist[src][room] - (0.5 if src == GATE else 0.0)
        if d < best_d:
            best, best_d = src, d
    return best


def part_way(
    mine: list[int], src: int, room: int, dist: Distances, points: int, moves: list[tuple[int, int, int]]
) -> int:
    """Move one servant from ``src`` as far as ``points`` allow along a shortest way to ``room``."""
    best, best_d = -1, 0
    full = dist[src][room]
    for mid in range(9):
        d = dist[src][mid]
        if mid != src and mid != room and d <= points and d + dist[mid][room] == full and d > best_d:
            best, best_d = mid, d
    if best < 0:
        return points
    mine[src] -= 1
    mine[best] += 1
    moves.append((src, best, 1))
    return points - best_d
