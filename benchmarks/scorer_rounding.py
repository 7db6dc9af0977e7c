"""Study: what the network scorer's rounding changes in play (docs/notes/2026-12-02-exact-scorer.md).

    nice .venv/bin/python -m benchmarks.scorer_rounding [--game palais-royal] [--model MODEL.json] [--players 2]
        [--games 100]

(run as a module from the repository root, so that this checkout's ``strategies`` is imported).

``MlpPolicy`` scores candidates with its features rounded to multiples of 2**-20, its weights to its network's own
power of two (an exact matrix product) and ``tanh`` read from a table (``strategies/common/mlp.py``). Here the
game's ``expert`` plays its own games at its defaults (``--model``: another model file) and every scoring is done
again the unrounded way (each unit's sum by numpy's products and pairwise sums of the stored floats, ``tanh`` from
IEEE operations): how many scorings order their candidates otherwise (what a screen keeps), how many put another
candidate first (what the policy plays), and the largest change of a score. The games are the rounded scorer's own.
"""

from __future__ import annotations

import argparse
import random
import weakref

import numpy as np

from palais_sim.core.games import get_game
from palais_sim.registry import resolve
from strategies.common import mlp

# per network, made once as the old scorer made them; weak keys, so that a policy freed and another made at its
# address never reads the first one's arrays
_ARRAYS: weakref.WeakKeyDictionary[mlp.MlpPolicy, dict[str, tuple[np.ndarray, ...]]] = weakref.WeakKeyDictionary()


def unrounded_scores(policy: mlp.MlpPolicy, kind: str, rows: list[list[float]]) -> list[float]:
    """The network's scores from its stored floats, no rounding: the scorer before 2026-12-02, its arrays made once
    per network as there."""
    if not rows:
        return []
    arrays = _ARRAYS.get(policy)
    if arrays is None:
        arrays = _ARRAYS[policy] = {k: tuple(np.array(part) for part in net) for k, net in policy.nets.items()}
    hidden, bias, out = arrays.get(kind) or arrays[""]
    x = np.array(rows, dtype=float)
    units = (x[:, None, :] * hidden[None, :, :]).sum(axis=2) + bias
    scores: list[float] = (mlp.tanh(units) * out).sum(axis=1).tolist()
    return scores


def _order(scores: list[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def study(model: str, players: int, games: int, seed: int, game_name: str = "palais-royal") -> dict[str, float]:
    """Scorings, those ordered otherwise, those with another first, and the largest change of a score."""
    tally = {"scorings": 0, "order_differs": 0, "first_differs": 0, "largest_change": 0.0}
    rounded_scores = mlp.MlpPolicy.scores

    def compared(policy: mlp.MlpPolicy, kind: str, rows: list[list[float]]) -> list[float]:
        got = rounded_scores(policy, kind, rows)
        if rows:
            ref = unrounded_scores(policy, kind, rows)
            tally["scorings"] += 1
            tally["order_differs"] += _order(got) != _order(ref)
            tally["first_differs"] += _order(got)[0] != _order(ref)[0]
            tally["largest_change"] = max(tally["largest_change"], *(abs(a - b) for a, b in zip(got, ref, strict=True)))
        return got

    mlp.MlpPolicy.scores = compared  # type: ignore[method-assign]
    try:
        game = get_game(game_name)
        context = game.context({"players": players})
        cls = resolve("expert", game)[1]
        seats = [cls(model=model) if model else cls() for _ in range(players)]
        rng = random.Random(seed)
        for _ in range(games):
            game.play(context, rng.getrandbits(63), seats)
    finally:
        mlp.MlpPolicy.scores = rounded_scores  # type: ignore[method-assign]
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="palais-royal")
    parser.add_argument("--model", default="", help="a model file (default: the game's shipped one)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    tally = study(args.model, args.players, args.games, args.seed, args.game)
    print(
        f"{args.game}, {args.games} games at {args.players} players: {tally['scorings']:,} scorings, "
        f"{tally['order_differs']} ordered otherwise, {tally['first_differs']} with another first; "
        f"largest change of a score {tally['largest_change']:.2g}"
    )


if __name__ == "__main__":
    main()
