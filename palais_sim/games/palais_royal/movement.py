"""Movement planning for strategies: the cheapest transfers from one distribution of servants to another.

The cost of turning one distribution of a seat's servants over the nine rooms into another is a small transport
problem on the 3 x 3 grid (distances orthogonal, or with diagonals). ``plan_moves`` solves it exactly by successive
shortest paths; sizes are tiny (at most 9 rooms), so this stays in pure Python.
"""

from __future__ import annotations

from collections.abc import Sequence

Transfer = tuple[int, int, int]  # from_room, to_room, count


def plan_moves(
    current: Sequence[int], target: Sequence[int], dist: Sequence[Sequence[int]]
) -> tuple[int, list[Transfer]]:
    """Minimal movement points and the transfers that turn ``current`` into ``target`` (same total)."""
    if sum(current) != sum(target):
        raise ValueError("current and target must hold the same number of servants")
    surplus = [(r, current[r] - target[r]) for r in range(9) if current[r] > target[r]]
    deficit = [(r, target[r] - current[r]) for r in range(9) if target[r] > current[r]]
    if not surplus:
        return 0, []
    if len(surplus) == 1 or len(deficit) == 1:
        # One side is a single room: every assignment is optimal.
        if len(surplus) == 1:
            src = surplus[0][0]
            transfers = [(src, d, b) for d, b in deficit]
        else:
            dst = deficit[0][0]
            transfers = [(s, dst, a) for s, a in surplus]
        return sum(c * dist[s][d] for s, d, c in transfers), transfers
    return _successive_shortest_paths(surplus, deficit, dist)


def _successive_shortest_paths(
    surplus: list[tuple[int, int]], deficit: list[tuple[int, int]], dist: Sequence[Sequence[int]]
) -> tuple[int, list[Transfer]]:
    ns, nd = len(surplus), len(deficit)
    left = [a for _, a in surplus]
    need = [b for _, b in deficit]
    cost = [[dist[surplus[i][0]][deficit[j][0]] for j in range(nd)] for i in range(ns)]
    flow = [[0] * nd for _ in range(ns)]
    inf = 1 << 30
    while True:
        # Bellman-Ford from a virtual source that reaches every surplus room with units left.
        d_s = [0 if left[i] > 0 else inf for i in range(ns)]
        d_d = [inf] * nd
        prev_s = [-1] * ns  # deficit node reached backwards from
        prev_d = [-1] * nd  # surplus node reached from
        changed = True
        while changed:
            changed = False
            for i in range(ns):
                di = d_s[i]
                if di == inf:
                    continue
                row = cost[i]
                for j in range(nd):
                    nd_ = di + row[j]
                    if nd_ < d_d[j]:
                        d_d[j] = nd_
                        prev_d[j] = i
                        changed = True
            for j in range(nd):
                dj = d_d[j]
                if dj == inf:
                    continue
                for i in range(ns):
                    if flow[i][j] > 0 and dj - cost[i][j] < d_s[i]:
                        d_s[i] = dj - cost[i][j]
                        prev_s[i] = j
                        changed = True
        best, sink = inf, -1
        for j in range(nd):
            if need[j] > 0 and d_d[j] < best:
                best, sink = d_d[j], j
        if sink < 0:
            break
        # Walk the path back, find the bottleneck, then push.
        path: list[tuple[int, int, bool]] = []  # (i, j, forward)
        amount = need[sink]
        j = sink
        while True:
            i = prev_d[j]
            path.append((i, j, True))
            if prev_s[i] == -1:
                amount = min(amount, left[i])
                break
            j2 = prev_s[i]
            path.append((i, j2, False))
            amount = min(amount, flow[i][j2])
            j = j2
        for i, j, forward in path:
            flow[i][j] += amount if forward else -amount
        left[path[-1][0]] -= amount
        need[sink] -= amount
    transfers = [(surplus[i][0], deficit[j][0], flow[i][j]) for i in range(ns) for j in range(nd) if flow[i][j] > 0]
    return sum(c * dist[s][d] for s, d, c in transfers), transfers


def path_cost(transfers: Sequence[Transfer], dist: Sequence[Sequence[int]]) -> int:
    return sum(c * dist[s][d] for s, d, c in transfers)
