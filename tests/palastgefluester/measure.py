"""Measure Palastgeflüster: games/s per core (CPU time), seat balance, round-end kinds, heuristic vs random.

Run from the repository root: ``PALAIS_PURE=1 python -m tests.palastgefluester.measure`` (about a minute).
"""

from __future__ import annotations

import math
import time
from collections import Counter

from palais_sim.games.palastgefluester.play import play_game
from palais_sim.games.palastgefluester.state import PgOptions
from strategies.common.random_play import RandomStrategy
from strategies.palastgefluester.heuristic import HeuristicStrategy


def wilson(k, n, z=1.96):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return f"{p:.3f} [{c - h:.3f}, {c + h:.3f}]"


GAMES = 1000


def main() -> None:
    for n in (3, 4, 5):
        for label, make in (("random", RandomStrategy), ("heuristic", HeuristicStrategy)):
            t = time.process_time()
            seat = [0.0] * n
            kinds = Counter()
            rounds = 0
            unfinished = 0
            for g in range(GAMES):
                r = play_game(PgOptions(players=n), 10_000 + g, [make() for _ in range(n)])
                for s in r.seats:
                    seat[s.seat] += s.win
                kinds.update(e.kind for e in r.round_ends)
                rounds += r.rounds
                unfinished += not r.finished
            dt = time.process_time() - t
            tot = sum(kinds.values())
            print(
                f"{n}p all-{label}: {GAMES / dt:.0f} games/s CPU; seat win shares "
                + " ".join(f"{x / GAMES:.3f}" for x in seat)
                + f"; rounds/game {rounds / GAMES:.2f}; round ends "
                + " ".join(f"{k} {v / tot:.3f}" for k, v in sorted(kinds.items()))
                + f"; unfinished {unfinished}"
            )
        w = 0.0
        GG = 2000
        for g in range(GG):
            s = g % n
            r = play_game(
                PgOptions(players=n),
                50_000 + g,
                [HeuristicStrategy() if i == s else RandomStrategy() for i in range(n)],
            )
            w += r.seats[s].win
        print(f"{n}p heuristic vs random ({GG} games, seat rotated): win share {wilson(w, GG)} (fair {1 / n:.3f})")


if __name__ == "__main__":
    main()
