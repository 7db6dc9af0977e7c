"""Fit the leaf value of Palais Royal (``palais_sim/games/palais_royal/leaf_value.py``) on self-play.

    .venv/bin/python benchmarks/fit_leaf_value.py --games 3000 --seed 1 [--write]

Plays 2-player games between the heuristic styles (a random pair per game), records every turn start's features
from each seat's side with that seat's final win share, fits an L2-regularised logistic regression (scipy) on 80% of the
games and reports the log-loss on the other 20% against the score "as if the game ended now" (a logistic of the
lead) and a constant. ``--write`` stores the fit in ``palais_sim/data/palais_royal_leaf_value.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import random

import numpy as np
from scipy.optimize import minimize

from palais_sim.games import get_game
from palais_sim.games.palais_royal.leaf_value import FEATURES, MODEL, features
from palais_sim.games.palais_royal.play import continue_game
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.registry import load_strategy

STYLES = ("greedy", "seals", "economy", "park", "cards")


def collect(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    game = get_game("palais-royal")
    context = game.context({"players": 2})
    rng = random.Random(seed)
    rows, labels, groups = [], [], []
    for g in range(games):
        players = [load_strategy(rng.choice(STYLES)) for _ in range(2)]
        seen: list[tuple[list[float], list[float]]] = []
        state = new_game(context.components, context.options, rng.getrandbits(63))
        result = continue_game(
            state, players, on_turn_start=lambda s, seen=seen: seen.append((features(s, 0), features(s, 1)))
        )
        for seat in (0, 1):
            rows += [pair[seat] for pair in seen]
            labels += [result.seats[seat].win] * len(seen)
            groups += [g] * len(seen)
    return np.array(rows), np.array(labels), np.array(groups)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    scale = x.std(axis=0) + 1e-9
    xs = np.hstack([np.ones((len(x), 1)), x / scale])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = xs @ w
        p = 1 / (1 + np.exp(-z))
        eps = 1e-12
        value = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + l2 * np.sum(w[1:] ** 2)
        grad = xs.T @ (p - y) / len(y) + 2 * l2 * np.concatenate([[0.0], w[1:]])
        return value, grad

    w = minimize(loss, np.zeros(xs.shape[1]), jac=True, method="L-BFGS-B").x
    return np.concatenate([[w[0]], w[1:] / scale])


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    x, y, groups = collect(args.games, args.seed)
    train = groups < int(0.8 * args.games)
    w = fit(x[train], y[train])
    test = ~train
    p_model = 1 / (1 + np.exp(-(w[0] + x[test] @ w[1:])))
    p_lead = 1 / (1 + np.exp(-x[test][:, 0] / 10))
    p_const = np.full(test.sum(), y[train].mean())
    print(f"{len(y)} turn starts of {args.games} games; held out {test.sum()} of {int(0.2 * args.games)} games")
    for name, p in (("model", p_model), ("lead/10 logistic", p_lead), ("constant", p_const)):
        print(f"  log-loss {name:18s} {log_loss(p, y[test]):.4f}")
    print("  weights:", dict(zip(("intercept", *FEATURES), np.round(w, 4).tolist(), strict=True)))
    if args.write:
        MODEL.write_text(
            json.dumps(
                {
                    "features": list(FEATURES),
                    "intercept": float(w[0]),
                    "weights": [float(v) for v in w[1:]],
                    "fitted_on": f"{args.games} 2-player games between the heuristic styles, seed {args.seed}",
                    "command": f"benchmarks/fit_leaf_value.py --games {args.games} --seed {args.seed} --write",
                    "held_out_log_loss": {
                        "model": log_loss(p_model, y[test]),
                        "lead_logistic": log_loss(p_lead, y[test]),
                    },
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {MODEL}")
    assert math.isfinite(float(w.sum()))


if __name__ == "__main__":
    main()
