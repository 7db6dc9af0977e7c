"""Benchmark: expert's games per CPU-second with several model files and scorers, alternated game by game in one
process over the same setups (docs/notes/2026-12-02-exact-scorer.md).

    nice .venv/bin/python -m benchmarks.scorer_speed --model it2=OLD.json --model it3=NEW.json [--unrounded]
        [--players 2] [--games 100] [--seed 5]

(run as a module from the repository root, so that this checkout's ``strategies`` is imported).

``palais bench`` runs one player per process, so on a shared machine its passes spread by 10-15%. Here every arm
plays the same setups in turn (the order reversed every other setup) in one process, and the CPU time of each game
is its own (``time.process_time``). An arm is a model file at its defaults, with the exact scorer
(``strategies/common/mlp.py``) and, with ``--unrounded``, the unrounded scorer before it
(``benchmarks/scorer_rounding.py``). The models' games differ, so the ratio of two models' totals is their speed
on the same setups, not on the same positions.
"""

from __future__ import annotations

import argparse
import random
import time

from benchmarks.scorer_rounding import unrounded_scores
from palais_sim.core.games import get_game
from palais_sim.registry import resolve
from strategies.common import mlp


def measure(models: dict[str, str], unrounded: bool, players: int, games: int, seed: int) -> dict[str, float]:
    """CPU-seconds of each arm (``LABEL`` with the exact scorer, ``LABEL unrounded``) over the same setups."""
    game = get_game("palais-royal")
    context = game.context({"players": players})
    cls = resolve("expert", game)[1]
    arms = [(label, scorer) for label in models for scorer in (("exact", "unrounded") if unrounded else ("exact",))]
    seats = {label: [cls(model=path) for _ in range(players)] for label, path in models.items()}
    scorers = {"exact": mlp.MlpPolicy.scores, "unrounded": unrounded_scores}
    spent = {f"{label} {scorer}": 0.0 for label, scorer in arms}
    rng = random.Random(seed)
    try:
        for i in range(games):
            setup = rng.getrandbits(63)
            for label, scorer in arms if i % 2 == 0 else arms[::-1]:
                mlp.MlpPolicy.scores = scorers[scorer]  # type: ignore[method-assign]
                start = time.process_time()
                game.play(context, setup, seats[label])
                spent[f"{label} {scorer}"] += time.process_time() - start
    finally:
        mlp.MlpPolicy.scores = scorers["exact"]  # type: ignore[method-assign]
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", required=True, help="LABEL=PATH (repeat)")
    parser.add_argument("--unrounded", action="store_true", help="also each model with the unrounded scorer")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    models = dict(item.split("=", 1) for item in args.model)
    spent = measure(models, args.unrounded, args.players, args.games, args.seed)
    first = next(iter(spent))
    for arm, seconds in spent.items():
        speed = spent[first] / seconds
        print(f"{arm}: {args.games / seconds:.2f} games per CPU-second, {speed:.3f} of {first}'s speed")


if __name__ == "__main__":
    main()
