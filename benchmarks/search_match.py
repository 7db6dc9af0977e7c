"""Study: two strategies head to head at 2 players, each seed played twice with the seats swapped (README,
"ismcts").

    nice .venv/bin/python -m benchmarks.search_match ismcts:budget=300 lookahead:budget=600 --seeds 100 \
        --seed 5 --out runs/ismcts-vs-lookahead.txt

(run as a module from the repository root, so that this checkout's ``palais_sim`` and ``strategies`` are imported,
not an installed copy's).

Seeds ``group_seed(seed, g)`` for g < ``--seeds``, random layouts. Every game is a line of the output file as it
ends (seed, seats, winner share, scores, rounds, finished); the last lines are the summary: the first strategy's win
share with a 95% interval clustered on the seed (the mean of a seed's two games is one observation), the mean
scores, the unfinished games, the failed ones (a strategy that raised: the error is written and the seed's other
game still counts; a failed game counts for neither) and each strategy's mean time per decision of its own (wall
clock, so on a busy machine it is an upper bound).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from palais_sim.components import load_components
from palais_sim.engine import rules
from palais_sim.engine.scoring import final_scores, winners
from palais_sim.engine.setup import new_game
from palais_sim.engine.state import RuleOptions
from palais_sim.engine.view import PlayerView
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed


def play(specs: tuple[str, str], seed: int, clock: dict[str, list[float]]) -> tuple[list[float], list[int], int, bool]:
    """One game of ``specs`` in seat order: each seat's win share, the scores, rounds and whether it finished."""
    comps = load_components(None)
    state = new_game(comps, RuleOptions(players=2), seed)
    seats = [load_strategy(specs[0]), load_strategy(specs[1])]
    while not state.over:
        dec = rules.decision(state)
        start = time.perf_counter()
        choice = seats[dec.seat].choose(PlayerView(state, dec.seat), dec)
        clock[specs[dec.seat]].append(time.perf_counter() - start)
        rules.apply(state, choice)
    scores = final_scores(state)
    best = winners(scores)
    share = [1 / len(best) if s in best else 0.0 for s in range(2)]
    return share, [sc.total for sc in scores], state.round, state.finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    a, b = args.first, args.second
    clock: dict[str, list[float]] = {a: [], b: []}
    per_seed: list[float] = []
    scores_a: list[int] = []
    scores_b: list[int] = []
    unfinished = 0
    failed = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as out:
        out.write(f"# {a} vs {b}, {args.seeds} seeds x 2 seatings, root {args.seed}\n")
        for g in range(args.seeds):
            seed = group_seed(args.seed, g)
            shares: list[float] = []
            for specs in ((a, b), (b, a)):
                try:
                    share, total, rounds, finished = play(specs, seed, clock)
                except Exception as exc:  # a strategy's own error: recorded, the match goes on
                    failed += 1
                    out.write(f"seed {g} seats {specs[0]} | {specs[1]}: FAILED {type(exc).__name__}: {exc}\n")
                    continue
                i = specs.index(a)
                shares.append(share[i])
                scores_a.append(total[i])
                scores_b.append(total[1 - i])
                unfinished += not finished
                out.write(
                    f"seed {g} seats {specs[0]} | {specs[1]}: {a} share {share[i]:.1f}, scores {total[0]}-{total[1]}, "
                    f"rounds {rounds}{'' if finished else ', NOT FINISHED'}\n"
                )
            if shares:
                per_seed.append(statistics.mean(shares))
            out.flush()
        n = len(per_seed)
        share = statistics.mean(per_seed)
        half = 1.96 * statistics.stdev(per_seed) / n**0.5 if n > 1 else float("nan")
        out.write(
            f"{a} vs {b}: {len(scores_a)} games ({n} seeds, seats swapped): win share of {a} {share:.3f} "
            f"[{share - half:.3f}, {share + half:.3f}]; mean scores {statistics.mean(scores_a):.1f} vs "
            f"{statistics.mean(scores_b):.1f}; {unfinished} unfinished, {failed} failed\n"
        )
        for spec in (a, b):
            times = clock[spec]
            out.write(
                f"{spec}: {len(times)} decisions, {1000 * statistics.mean(times):.3f} ms per decision "
                f"({len(times) / sum(times):.0f} decisions/s)\n"
            )


if __name__ == "__main__":
    main()
