"""Study: what a self-play run's scores are made of (README, "The players").

    .venv/bin/python -m palais_sim.cli simulate --games 2000 --players 2 --strategies greedy --format fixed \
        --seed 21 --workers 1 --out runs/selfplay-greedy
    .venv/bin/python benchmarks/selfplay_scores.py runs/selfplay-greedy [more run directories]

For each run directory: the median seat score with a 95% bootstrap interval (2000 resamples of the games, seed 0),
the mean score components (nobles, played and unplayed cards, park), the game length in rounds, the nobles taken
per seat and the mean points of a noble taken, and when the nobles were taken (the share in the last round).
"""

from __future__ import annotations

import argparse
import random
import statistics
from pathlib import Path

import polars as pl


def bootstrap_median(scores_by_game: list[list[int]], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of the median seat score, resampling whole games (the seats of a game together)."""
    rng = random.Random(seed)
    n = len(scores_by_game)
    medians: list[float] = []
    for _ in range(resamples):
        sample: list[int] = []
        for _g in range(n):
            sample.extend(scores_by_game[rng.randrange(n)])
        medians.append(statistics.median(sample))
    medians.sort()
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def describe(run: Path) -> str:
    seats = pl.read_parquet(run / "seats" / "*.parquet")
    games = pl.read_parquet(run / "games" / "*.parquet")
    recruits = pl.read_parquet(run / "recruits" / "*.parquet")
    by_game = [list(g) for g in seats.group_by("game", maintain_order=True).agg(pl.col("total"))["total"].to_list()]
    median = statistics.median(seats["total"].to_list())
    low, high = bootstrap_median(by_game)
    comp = seats.select(
        pl.col("total").mean(),
        pl.col("nobles_points").mean(),
        pl.col("cards_played").mean(),
        pl.col("cards_unplayed").mean(),
        pl.col("park").mean(),
        pl.col("nobles_taken").mean(),
        pl.col("servants_in_park").mean(),
    ).row(0, named=True)
    rounds = games["rounds"]
    last = recruits.join(games.select("game", "rounds"), on="game").with_columns(
        (pl.col("round") == pl.col("rounds")).alias("last")
    )
    per_noble = comp["nobles_points"] / comp["nobles_taken"] if comp["nobles_taken"] else 0.0
    lines = [
        f"{run}: {len(games)} games, {seats.height} seats, strategies {sorted(set(seats['strategy']))}",
        f"  median score {median:.1f} [{low:.1f}, {high:.1f}] (95% bootstrap over games); mean {comp['total']:.1f}",
        f"  mean components: nobles {comp['nobles_points']:.1f}, cards played {comp['cards_played']:.1f}, "
        f"unplayed {comp['cards_unplayed']:.1f}, park {comp['park']:.1f}",
        f"  nobles taken per seat {comp['nobles_taken']:.2f} ({per_noble:.2f} points each); "
        f"servants in the park {comp['servants_in_park']:.1f}",
        f"  rounds: mean {rounds.mean():.1f}, median {rounds.median():.0f}, max {rounds.max()}; "
        f"nobles per game {recruits.height / len(games):.1f}, in the last round {last['last'].sum() / len(games):.1f}",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args()
    for run in args.runs:
        print(describe(run), flush=True)


if __name__ == "__main__":
    main()
