"""Can a cheap value of a Palais Royal start (its layout and park) predict greedy self-play's winner? Fitted on games
of a root seed reserved for fitting (``palais_sim/core/seeds.py``), scored on held-out games of the same root:

    PALAIS_PURE=1 nice .venv/bin/python benchmarks/luck_setup_features.py --games 4000 --fit-index 0

The features: the room at each of the layout's nine places (one-hot), which nobles lie in the park, and per park
field its noble's gold cost, points and servants needed. The figure: the share of seat 1's win variance the fit
explains on the last quarter of the games, for a few L2 penalties.
"""

from __future__ import annotations

import argparse

import numpy as np
from luck_fit_pg import fit_logistic

from palais_sim.core.games import get_game
from palais_sim.core.seeds import fit_root_seed
from palais_sim.games.palais_royal.board import ROOM_CODES
from palais_sim.games.palais_royal.play import continue_game
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import GameState
from palais_sim.registry import load_strategies
from palais_sim.tournament.schedule import group_seed


def start_features(state: GameState) -> list[float]:
    nobles = state.components.nobles
    code = state.layout.code.replace("/", "")
    out = [1.0 if code[place] == room else 0.0 for place in range(9) for room in ROOM_CODES]
    in_park = [0.0] * len(nobles)
    for noble in state.park:
        in_park[noble] = 1.0
    out += in_park
    for noble in state.park:
        n = nobles[noble]
        out += [n.gold / 10, n.points / 10, (n.violet + n.turquoise) / 5]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--fit-index", type=int, default=0)
    args = parser.parse_args()
    game = get_game("palais-royal")
    context = game.context({"players": 2})
    root = fit_root_seed(args.fit_index)
    rows, wins = [], []
    for k in range(args.games):
        state = new_game(context.components, context.options, group_seed(root, k))
        rows.append(start_features(state))
        wins.append(continue_game(state, load_strategies("greedy", 2, game)).seats[0].win)
    x, y = np.array(rows), np.array(wins)
    cut = args.games * 3 // 4
    for l2 in (1.0, 10.0, 100.0, 300.0):
        intercept, weights = fit_logistic(x[:cut], y[:cut], l2)
        p = 1.0 / (1.0 + np.exp(-(intercept + x[cut:] @ np.array(weights))))
        explained = 1.0 - float(np.mean((y[cut:] - p) ** 2) / np.var(y[cut:]))
        print(f"L2 {l2:g}: held-out share of seat 1's win variance explained {explained:+.3f}")


if __name__ == "__main__":
    main()
