"""Where a Palais Royal search spends its time: the cost of one rollout step, and the search's time per decision kind.

    python benchmarks/search_profile.py steps [POSITIONS] [REPEATS]
    python benchmarks/search_profile.py kinds [GAMES] [SPEC]

``steps`` plays rollouts as the searches do (a determinization of the view, a mixture player dealt to every seat,
the core's steps: pending decision, seat view, choice, apply) from POSITIONS two-player positions of greedy games
(50 decisions in), REPEATS rollouts from each, and prints the CPU microseconds per step of each part. The clock
reads cost a little each, so the parts sum to a bit more than an untimed rollout.

``kinds`` plays GAMES two-player games of SPEC (default ``ismcts:budget=30``) against greedy, seats alternated, and
prints per decision kind the searched decisions, the share of the search's CPU time, the milliseconds per decision,
the candidates per decision and how often the search played something other than its rollout player's choice.
Run it compiled and with ``PALAIS_PURE=1`` to compare the two engines.
"""

from __future__ import annotations

import collections
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.play import PR_TURNS
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import GameState
from palais_sim.registry import load_strategy
from strategies.common.search import choice_key
from strategies.palais_royal import ismcts

MIXTURE = ("greedy", "seals", "economy", "park", "cards")  # the searches' default rollout players


def play_timed(state: GameState, players: Sequence[Any], parts: dict[str, Any], clock: Callable[[], Any]) -> int:
    """Play ``state`` to its end, ``players[seat]`` choosing for each seat, and add each step's time by ``clock`` to
    ``parts`` (``pending``, ``view``, ``choose``, ``apply``); the decisions made."""
    made = 0
    while not state.over:
        t0 = clock()
        decision = PR_TURNS.pending(state)
        t1 = clock()
        parts["pending"] += t1 - t0
        if decision is None:
            continue
        view = PR_TURNS.view(state, decision.seat)
        t2 = clock()
        choice = players[decision.seat].choose(view, decision)
        t3 = clock()
        PR_TURNS.apply(state, choice)
        parts["apply"] += clock() - t3
        parts["view"] += t2 - t1
        parts["choose"] += t3 - t2
        made += 1
    return made


def steps(positions: int, repeats: int) -> None:
    game = get_game("palais-royal")
    context = game.context({"players": 2})
    players = [load_strategy(s) for s in MIXTURE]
    starts = []
    for seed in range(positions):
        state = new_game(context.components, context.options, seed)
        made = 0
        while not state.over and made < 50:
            decision = PR_TURNS.pending(state)
            if decision is not None:
                PR_TURNS.apply(state, players[0].choose(PR_TURNS.view(state, decision.seat), decision))
                made += 1
        starts.append(state)
    clock = time.process_time
    parts = dict.fromkeys(("sample_state", "copy", "pending", "view", "choose", "apply"), 0.0)
    rng = random.Random(1)
    made = rollouts = 0
    for _ in range(repeats):
        for start in starts:
            t0 = clock()
            sampled = PR_TURNS.view(start, 0).sample_state(rng)
            t1 = clock()
            state = sampled.copy()
            parts["sample_state"] += t1 - t0
            parts["copy"] += clock() - t1
            dealt = [rng.choice(players) for _ in range(state.n)]
            rollouts += 1
            made += play_timed(state, dealt, parts, clock)
    total = sum(parts.values())
    print(f"{rollouts} rollouts of {made / rollouts:.1f} steps, {total / rollouts * 1e3:.3f} ms CPU each")
    for name, seconds in parts.items():
        print(f"  {name:12s} {seconds / made * 1e6:6.2f} us per step ({seconds / total:5.1%})")


def kinds(games: int, spec: str) -> None:
    stats: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0, 0.0, 0])  # decisions, deviations, s, cands
    decide = ismcts.IsmctsStrategy.decide

    def timed(self, view, decision, root, candidates):  # noqa: ANN001, ANN202 - wraps the search's own signature
        start = time.process_time()
        out = decide(self, view, decision, root, candidates)
        entry = stats[decision.kind]
        entry[0] += 1
        entry[1] += choice_key(out) != candidates[0][0]
        entry[2] += time.process_time() - start
        entry[3] += len(candidates)
        return out

    ismcts.IsmctsStrategy.decide = timed
    game = get_game("palais-royal")
    context = game.context({"players": 2})
    start = time.process_time()
    for seed in range(games):
        players = [load_strategy(spec), load_strategy("greedy")]
        game.play(context, seed, players if seed % 2 == 0 else players[::-1])
    total = time.process_time() - start
    print(f"{games} games of {spec} against greedy: {total:.1f} CPU-s, {games / total:.2f} games per CPU-second")
    print("kind       searched  CPU share  ms each  candidates  not the rollout player's choice")
    for kind, (n, other, seconds, cands) in sorted(stats.items(), key=lambda kv: -kv[1][2]):
        share, each = seconds / total, seconds / n * 1e3
        print(f"{kind:10s} {n:8.0f} {share:10.1%} {each:8.1f} {cands / n:11.2f} {other / n:10.1%}")


if __name__ == "__main__":
    mode, rest = (sys.argv[1] if len(sys.argv) > 1 else "steps"), sys.argv[2:]
    if mode == "steps":
        steps(int(rest[0]) if rest else 40, int(rest[1]) if len(rest) > 1 else 25)
    elif mode == "kinds":
        kinds(int(rest[0]) if rest else 40, rest[1] if len(rest) > 1 else "ismcts:budget=30")
    else:
        sys.exit(f"error: the mode is steps or kinds, not {mode!r}")
