"""Study: the seat-2 advantage in 2-player mirror games (README, "The seat-2 advantage in mirror games").

    .venv/bin/python benchmarks/seat_advantage.py [--strategy greedy] [--games 3000] [--seed 77]

Plays mirror games of one strategy (seeds ``group_seed(seed, g)``) in five settings: as the rules deal them, with
the start gold set to 0 and 0, to 1 and 1, swapped (1 and 0), and on the first-game layout. For each it prints the
seats' win shares and seat 2's score margin when the last round starts and at the end (does the last round, where
seat 2 moves last, make the difference?). The start gold is changed on the state after setup dealt it, before any
decision: a study of the rules, not a rule option.
"""

from __future__ import annotations

import argparse
import statistics

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed


def mirror(strategy: str, games: int, seed: int, gold: tuple[int, int] | None, layout: str) -> str:
    comps = load_components(None)
    wins = [0.0, 0.0]
    before: list[float] = []
    after: list[float] = []
    for g in range(games):
        state = new_game(comps, RuleOptions(players=2, layout=layout), group_seed(seed, g))
        if gold is not None:
            state.gold = tuple(gold)
        seats = [load_strategy(strategy), load_strategy(strategy)]
        margin_then = None
        while not state.over:
            if state.final_round and margin_then is None:
                scores = final_scores(state)
                margin_then = scores[1].total - scores[0].total
            dec = rules.decision(state)
            rules.apply(state, seats[dec.seat].choose(PlayerView(state, dec.seat), dec))
        scores = final_scores(state)
        best = winners(scores)
        for s in best:
            wins[s] += 1 / len(best)
        if margin_then is not None:
            before.append(margin_then)
            after.append(scores[1].total - scores[0].total)
    half = 1.96 * (0.25 / games) ** 0.5
    return (
        f"start gold {gold or 'as dealt'}, layout {layout}: seat 1 {wins[0] / games:.3f}, seat 2 {wins[1] / games:.3f} "
        f"(+-{half:.3f}); seat 2's margin when the last round starts {statistics.mean(before):+.2f}, "
        f"at the end {statistics.mean(after):+.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    settings = [(None, "random"), ((0, 0), "random"), ((1, 1), "random"), ((1, 0), "random"), (None, "first-game")]
    print(f"{args.games} mirror games of {args.strategy} per line")
    for gold, layout in settings:
        print(mirror(args.strategy, args.games, args.seed, gold, layout), flush=True)


if __name__ == "__main__":
    main()
