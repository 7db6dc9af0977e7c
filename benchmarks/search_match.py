"""Study: two strategies head to head at 2 players, each seed played twice with the seats swapped (README,
"ismcts").

    nice .venv/bin/python -m benchmarks.search_match ismcts:budget=300 lookahead:budget=600 --seeds 100 \
        --seed 5 --workers 2 --out runs/ismcts-vs-lookahead.txt

(run as a module from the repository root, so that this checkout's ``palais_sim`` and ``strategies`` are imported,
not an installed copy's).

Seeds ``group_seed(seed, g)`` for g < ``--seeds``, random layouts. Every game is a line of the output file (seed,
seats, winner share, scores, rounds, finished), written in seed order whatever the number of ``--workers``; the last
lines are the summary: the first strategy's win share with a 95% interval clustered on the seed (the mean of a
seed's two games is one observation), the mean scores, the unfinished games, the failed ones (a strategy that
raised: the error is written and the seed's other game still counts; a failed game counts for neither) and each
strategy's mean CPU time per decision of its own (process CPU time, so a busy machine does not inflate it).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed
from palais_sim.tournament.worker import TimedStrategy


@dataclass
class SeedResult:
    """A seed's two games, seen from the first strategy: its lines, shares, scores and each spec's decisions and
    their CPU seconds."""

    lines: list[str] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    scores_a: list[int] = field(default_factory=list)
    scores_b: list[int] = field(default_factory=list)
    unfinished: int = 0
    failed: int = 0
    clock: dict[str, list] = field(default_factory=dict)  # spec: [decisions, CPU seconds]


def play(specs: tuple[str, str], seed: int, clock: dict[str, list]) -> tuple[list[float], list[int], int, bool]:
    """One game of ``specs`` in seat order, played by the engine's own loop with every decision timed into
    ``clock``: each seat's win share, the scores, rounds and whether it finished."""
    seats = [TimedStrategy(load_strategy(spec), clock[spec]) for spec in specs]
    result = play_game(load_components(None), RuleOptions(players=2), seed, seats)
    return [s.win for s in result.seats], [s.score.total for s in result.seats], result.rounds, result.finished


def play_seed(job: tuple[str, str, int, int]) -> SeedResult:
    """Both seatings of seed number ``g``."""
    a, b, root, g = job
    seed = group_seed(root, g)
    result = SeedResult(clock={a: [0, 0.0], b: [0, 0.0]})
    for specs in ((a, b), (b, a)):
        try:
            share, total, rounds, finished = play(specs, seed, result.clock)
        except Exception as exc:  # a strategy's own error: recorded, the match goes on
            result.failed += 1
            result.lines.append(f"seed {g} seats {specs[0]} | {specs[1]}: FAILED {type(exc).__name__}: {exc}")
            continue
        i = specs.index(a)
        result.shares.append(share[i])
        result.scores_a.append(total[i])
        result.scores_b.append(total[1 - i])
        result.unfinished += not finished
        result.lines.append(
            f"seed {g} seats {specs[0]} | {specs[1]}: {a} share {share[i]:.1f}, scores {total[0]}-{total[1]}, "
            f"rounds {rounds}{'' if finished else ', NOT FINISHED'}"
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    a, b = args.first, args.second
    clock: dict[str, list] = {a: [0, 0.0], b: [0, 0.0]}  # spec: [decisions, CPU seconds]
    per_seed: list[float] = []
    scores_a: list[int] = []
    scores_b: list[int] = []
    unfinished = 0
    failed = 0
    jobs = [(a, b, args.seed, g) for g in range(args.seeds)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as out, multiprocessing.get_context("spawn").Pool(max(1, args.workers)) as pool:
        out.write(f"# {a} vs {b}, {args.seeds} seeds x 2 seatings, root {args.seed}\n")
        results = pool.imap(play_seed, jobs) if args.workers > 1 else map(play_seed, jobs)
        for result in results:
            for line in result.lines:
                out.write(line + "\n")
            out.flush()
            if result.shares:
                per_seed.append(statistics.mean(result.shares))
            scores_a += result.scores_a
            scores_b += result.scores_b
            unfinished += result.unfinished
            failed += result.failed
            for spec in (a, b):
                clock[spec] = [x + y for x, y in zip(clock[spec], result.clock[spec], strict=True)]
        n = len(per_seed)
        share = statistics.mean(per_seed)
        half = 1.96 * statistics.stdev(per_seed) / n**0.5 if n > 1 else float("nan")
        out.write(
            f"{a} vs {b}: {len(scores_a)} games ({n} seeds, seats swapped): win share of {a} {share:.3f} "
            f"[{share - half:.3f}, {share + half:.3f}]; mean scores {statistics.mean(scores_a):.1f} vs "
            f"{statistics.mean(scores_b):.1f}; {unfinished} unfinished, {failed} failed\n"
        )
        for spec in (a, b):
            n, seconds = clock[spec]
            out.write(
                f"{spec}: {n} decisions, {1000 * seconds / max(n, 1):.3f} ms CPU per decision "
                f"({n / max(seconds, 1e-9):.0f} decisions per CPU-second)\n"
            )


if __name__ == "__main__":
    main()
