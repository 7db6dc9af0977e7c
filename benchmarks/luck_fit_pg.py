"""Fit Palastgeflüster's luck value (``palais_sim/games/palastgefluester/chance.py``: ``LuckValue``) on games of the
root seeds reserved for fitting (``palais_sim/core/seeds.py``), never on a study's:

    PALAIS_PURE=1 nice .venv/bin/python benchmarks/luck_fit_pg.py --games 1500 --fit-index 1 [--write]

Each seat is the heuristic (three times in four) or random play. The rows: every seat after every chance event of
the game (the state just after its actual outcome, where the correction reads V), labelled with the seat's final
win share; one L2-regularised logistic per player count. ``--write`` stores the fit beside the module, with this
command.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from palais_sim.core.games import get_game
from palais_sim.core.seeds import fit_root_seed
from palais_sim.games.palastgefluester.chance import FEATURES, MODEL, PgChance, features
from palais_sim.games.palastgefluester.play import continue_game
from palais_sim.games.palastgefluester.state import PgState
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed

PLAYER_COUNTS = (3, 4, 5)


def collect(games: int, root: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    game = get_game("palastgefluester")
    model = PgChance(game.context({"players": players}).options)
    rng = random.Random(f"{root}:{players}")
    rows: list[list[float]] = []
    labels: list[float] = []
    for k in range(games):
        seen: list[PgState] = []

        def record(state: PgState, kind: str, seen: list[PgState] = seen) -> None:
            seen.append(model.after(state, kind, model.actual(state, kind)))  # where V is read: after an outcome

        state = model.start(group_seed(root, players * 1_000_000 + k))  # the games of one root, apart per count
        seen.append(state.copy())
        state.chance = record
        strategies = [load_strategy("heuristic" if rng.random() < 0.75 else "random", game) for _ in range(players)]
        result = continue_game(state, strategies)
        for s in range(players):
            rows += [features(x, s) for x in seen]
            labels += [result.seats[s].win] * len(seen)
    return np.array(rows), np.array(labels)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25) -> tuple[float, list[float]]:
    """Newton's method on the L2-penalised log loss (the intercept unpenalised)."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    penalty = l2 * np.diag(np.r_[0.0, np.ones(x.shape[1])])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
        gradient = xb.T @ (p - y) + penalty @ w
        hessian = (xb * (p * (1 - p))[:, None]).T @ xb + penalty
        w -= np.linalg.solve(hessian, gradient)
    return float(w[0]), [float(v) for v in w[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1500, help="games per player count")
    parser.add_argument("--fit-index", type=int, default=1, help="which reserved root seed (core.seeds.fit_root_seed)")
    parser.add_argument("--write", action="store_true", help=f"store the fit in {MODEL.name}")
    args = parser.parse_args()
    root = fit_root_seed(args.fit_index)
    stored: dict = {
        "features": list(FEATURES),
        "fitted_on": f"{args.games} games per player count, root seed fit_root_seed({args.fit_index}) = {root}",
        "root_seed": root,
        "command": f"benchmarks/luck_fit_pg.py --games {args.games} --fit-index {args.fit_index} --write",
        "players": {},
    }
    for players in PLAYER_COUNTS:
        x, y = collect(args.games, root, players)
        intercept, weights = fit_logistic(x, y)
        p = 1.0 / (1.0 + np.exp(-(intercept + x @ np.array(weights))))
        explained = 1.0 - float(np.mean((y - p) ** 2) / np.var(y))
        print(f"{players} players: {len(y)} rows, share of the win variance the fit explains {explained:.3f}")
        stored["players"][str(players)] = {"intercept": intercept, "weights": weights}
    if args.write:
        Path(MODEL).write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL}")


if __name__ == "__main__":
    main()
