"""Fit the leaf value of Palais Royal (``palais_sim/games/palais_royal/leaf_value.py``) on self-play.

    .venv/bin/python benchmarks/fit_leaf_value.py --games 20000 --seed 1 [--players 2 3 4] [--write]

For each player count, plays games between the heuristic styles (a random style per seat and game: the searches'
rollout mixture), records every turn start's features from each seat's side with that seat's final result, and fits
two L2-regularised logistic regressions (scipy) on 80% of the games: the win (shared wins split) and the search's
reward (0.7 for the win, 0.3 for a logistic of the final margin / 10 against the best other seat). It reports the
log-loss and squared error on the other 20% against the score "as if the game ended now" (a logistic of the lead)
and a constant. ``--write`` stores the fit in ``palais_sim/games/palais_royal/leaf_value.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import random

import numpy as np
from scipy.optimize import minimize

from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.leaf_value import FEATURES, HEADS, MODEL, features
from palais_sim.games.palais_royal.play import continue_game
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import GameState
from palais_sim.registry import load_strategy

STYLES = ("greedy", "seals", "economy", "park", "cards")


def every_seat(state: GameState) -> list[list[float]]:
    return [features(state, seat) for seat in range(state.n)]


def collect(games: int, seed: int, players: int = 2) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """Features of every turn start from every seat's side; the labels per head; the game of each row."""
    game = get_game("palais-royal")
    context = game.context({"players": players})
    rng = random.Random(seed)
    rows: list[list[float]] = []
    labels: dict[str, list[float]] = {head: [] for head in HEADS}
    groups: list[int] = []
    for g in range(games):
        seats = range(players)
        strategies = [load_strategy(rng.choice(STYLES)) for _ in seats]
        seen: list[list[list[float]]] = []
        state = new_game(context.components, context.options, rng.getrandbits(63))
        continue_game(state, strategies, on_turn_start=lambda s, seen=seen: seen.append(every_seat(s)))
        scores = final_scores(state)
        best = winners(scores)
        for seat in seats:
            win = 1.0 / len(best) if seat in best else 0.0
            margin = scores[seat].total - max(s.total for s in scores if s.seat != seat)
            rows += [pair[seat] for pair in seen]
            labels["win"] += [win] * len(seen)
            labels["worth"] += [0.7 * win + 0.3 / (1.0 + math.exp(-margin / 10.0))] * len(seen)
            groups += [g] * len(seen)
    return np.array(rows), {head: np.array(values) for head, values in labels.items()}, np.array(groups)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-4) -> np.ndarray:
    """Intercept and weights of a logistic regression of ``y`` in [0, 1] on ``x`` (cross-entropy, L2 on the
    standardised weights)."""
    scale = x.std(axis=0) + 1e-9
    xs = np.hstack([np.ones((len(x), 1)), x / scale])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = 1 / (1 + np.exp(-np.clip(xs @ w, -30, 30)))
        eps = 1e-12
        value = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + l2 * np.sum(w[1:] ** 2)
        grad = xs.T @ (p - y) / len(y) + 2 * l2 * np.concatenate([[0.0], w[1:]])
        return value, grad

    w = minimize(loss, np.zeros(xs.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 5000}).x
    return np.concatenate([[w[0]], w[1:] / scale])


def predict(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The model ``w`` (intercept first) on the rows of ``x``."""
    return 1 / (1 + np.exp(-np.clip(w[0] + x @ w[1:], -30, 30)))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def lead_logistic(x: np.ndarray) -> np.ndarray:
    """The score as if the game ended now: a logistic of the lead / 10."""
    return 1 / (1 + np.exp(-x[:, FEATURES.index("total")] / 10))


def fit_heads(games: int, seed: int, players: int) -> dict:
    """Both heads fitted for ``players``, with their held-out losses printed and stored."""
    x, labels, groups = collect(games, seed, players)
    train = groups < int(0.8 * games)
    test = ~train
    print(f"{players} players: {len(x)} rows (turn starts x seats) of {games} games; {int(test.sum())} held out")
    stored: dict = {}
    for head in HEADS:
        y = labels[head]
        w = fit(x[train], y[train])
        assert math.isfinite(float(w.sum()))
        held_out = {
            "model": predict(x[test], w),
            "lead_logistic": lead_logistic(x[test]),
            "constant": np.full(int(test.sum()), y[train].mean()),
        }
        for name, p in held_out.items():
            error = np.mean((p - y[test]) ** 2)
            print(f"  {head:5s} {name:14s} log-loss {log_loss(p, y[test]):.4f}  squared error {error:.4f}")
        stored[head] = {
            "intercept": float(w[0]),
            "weights": [float(v) for v in w[1:]],
            "held_out_log_loss": {name: log_loss(p, y[test]) for name, p in held_out.items()},
        }
    return stored


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20000, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    stored: dict = {"features": list(FEATURES), "players": {}}
    for players in args.players:
        stored["players"][str(players)] = fit_heads(args.games, args.seed + players, players)
    counts = " ".join(str(p) for p in args.players)
    stored["fitted_on"] = f"{args.games} games per player count ({counts}) between the heuristic styles"
    stored["command"] = (
        f"benchmarks/fit_leaf_value.py --games {args.games} --seed {args.seed} --players {counts} --write"
    )
    if args.write:
        MODEL.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL}")


if __name__ == "__main__":
    main()
