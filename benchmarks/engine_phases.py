"""Where a Palais Royal game's time goes, phase by phase, as a tournament worker plays it.

    python -m benchmarks.engine_phases [GAMES] [PLAYERS] [SPEC]

Plays the games of ``palais bench --players PLAYERS --strategies SPEC`` (default 1000 games, 4 players, greedy; root
seed 0) one by one as a worker does and prints the CPU microseconds per game of each phase: creating the strategies,
the setup, the pending decision, the seat view, the strategies' choices, apply (with the automatic steps after it),
the result and the table rows. The clock reads (about 0.05 microseconds each, five a decision) are counted in the
phases, so they sum to a bit more than an untimed game (``palais bench``). Run it compiled and with
``PALAIS_PURE=1`` to compare the two engines; the second of two passes is printed (the first warms the caches).
"""

from __future__ import annotations

import sys
import time

from benchmarks.search_profile import play_timed
from palais_sim import build_info
from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.play import result_of
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.registry import load_strategy
from palais_sim.tournament.bench import bench_settings
from palais_sim.tournament.runner import validate
from palais_sim.tournament.schedule import Schedule

PHASES = ("strategies", "setup", "pending", "view", "choose", "apply", "result", "rows")


def phases(games: int, players: int, spec: str) -> tuple[dict[str, float], float]:
    """CPU nanoseconds per game of each phase, and decisions per game. The phases are split with the fast wall clock
    (a CPU clock read is a system call) and scaled to the pass's CPU time."""
    settings = bench_settings(get_game("palais-royal"), players, (spec,), games)
    context = validate(settings).context
    game = settings.game
    specs = list(Schedule(settings).games(0, games))
    clock = time.perf_counter_ns
    spent = dict.fromkeys(PHASES, 0)
    decisions = 0
    cpu = time.process_time_ns()
    for one in specs:
        t0 = clock()
        strategies = [load_strategy(s, game.name) for s in one.matchup]
        t1 = clock()
        state = new_game(context.components, context.options, one.seed)
        t2 = clock()
        spent["strategies"] += t1 - t0
        spent["setup"] += t2 - t1
        made = play_timed(state, strategies, spent, clock)
        t0 = clock()
        result = result_of(state, strategies, made)
        t1 = clock()
        game.rows(context, result, one.game, one.group, one.rotation)
        t2 = clock()
        spent["result"] += t1 - t0
        spent["rows"] += t2 - t1
        decisions += made
    cpu = time.process_time_ns() - cpu
    wall = sum(spent.values())
    return {phase: ns / wall * cpu / games for phase, ns in spent.items()}, decisions / games


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 1000
    players = int(argv[1]) if len(argv) > 1 else 4
    spec = argv[2] if len(argv) > 2 else "greedy"
    for _ in range(2):
        per_game, decisions = phases(games, players, spec)
    engine = "compiled" if build_info()["compiled"] else "pure Python"
    total = sum(per_game.values())
    print(
        f"{engine}: {games} games, {players} players, {spec}: {total / 1000:.1f} us per game, {decisions:.1f} decisions"
    )
    for phase in PHASES:
        print(f"  {phase:<10} {per_game[phase] / 1000:8.1f} us  {per_game[phase] / total:6.1%}")


if __name__ == "__main__":
    main(sys.argv[1:])
