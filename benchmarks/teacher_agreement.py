"""Study: how often a distilled student, its teacher run twice, a stronger judge and the base style choose the same
move, at the decisions the student decides in its own games (docs/notes/2026-12-02-student.md).

    nice .venv/bin/python -m benchmarks.teacher_agreement --games 60 --seed 1649267491001 --workers 2

(run as a module from the repository root, so that this checkout's ``palais_sim`` and ``strategies`` are imported).

The student (``--student``, a strategy with ``featurize``, ``expert`` by default) plays every seat. At each decision
it describes (its candidates; the first is the base style's own choice), the teacher (``--teacher``) analyses the
position twice (each run with its own random numbers, as two games would), the judge (``--judge``) once, and the
move each plays is compared with the student's and the base style's. The student's move is the one it plays.
Game ``g`` is dealt from ``group_seed(seed, g)``, whatever the number of ``--workers``. The table gives, per decision
kind, each pair's agreement: the mean over games of the game's share of agreeing decisions, with a 95% t interval
over games (a game's decisions are not independent of each other).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from palais_sim.analytics.paired import mean_interval
from palais_sim.core.games import get_game
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed
from strategies.common.search import choice_key

MOVERS = ("student", "base", "teacher", "teacher again", "judge")


@dataclass(frozen=True)
class Task:
    game: str
    players: int
    student: str
    teacher: str
    judge: str
    seed: int


class Probe:
    """A seat played by the student; at each decision it describes, every mover's choice is recorded."""

    def __init__(self, task: Task, student: Any, records: list[tuple[str, dict[str, str]]]) -> None:
        game = get_game(task.game)
        self.student, self.records, self.name = student, records, task.student
        self.teachers = [load_strategy(spec, game) for spec in (task.teacher, task.teacher, task.judge)]

    def choose(self, view: Any, decision: Any) -> object:
        described = self.student.featurize(view, decision, random.Random(view.rng.getrandbits(64)))
        move = self.student.choose(view, decision)
        if described is None:
            return move
        keys = {"student": choice_key(move), "base": choice_key(described[0][0])}
        for mover, teacher in zip(MOVERS[2:], self.teachers, strict=True):
            keys[mover] = next(choice_key(c.choice) for c in teacher.analyse(view, decision) if c.played)
        self.records.append((decision.kind, {mover: repr(key) for mover, key in keys.items()}))
        return move


def play(task: Task) -> list[tuple[str, dict[str, str]]]:
    """One game of the student against itself; every described decision's moves."""
    game = get_game(task.game)
    student = load_strategy(task.student, game)
    records: list[tuple[str, dict[str, str]]] = []
    seats = [Probe(task, student, records) for _ in range(task.players)]
    game.play(game.context({"players": task.players}), task.seed, seats)
    return records


def table(games: list[list[tuple[str, dict[str, str]]]]) -> list[str]:
    """Per decision kind, each pair of movers' agreement over games."""
    lines = []
    for kind in sorted({kind for records in games for kind, _ in records}):
        per_game = [[moves for k, moves in records if k == kind] for records in games]
        per_game = [moves for moves in per_game if moves]
        lines.append(f"{kind}: {sum(map(len, per_game))} decisions in {len(per_game)} games")
        for a, b in combinations(MOVERS, 2):
            shares = np.array([np.mean([m[a] == m[b] for m in moves]) for moves in per_game])
            e = mean_interval(shares, within=(0.0, 1.0))
            lines.append(f"  {a} = {b}: {100 * e.mean:.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}]")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="palais-royal")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--student", default="expert")
    parser.add_argument("--teacher", default="ismcts:budget=100,horizon=2")
    parser.add_argument("--judge", default="ismcts:budget=300,horizon=2")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1649267491001)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    tasks = [Task(args.game, args.players, args.student, args.teacher, args.judge, group_seed(args.seed, g))
             for g in range(args.games)]  # fmt: skip
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            games = pool.map(play, tasks, chunksize=1)
    else:
        games = list(map(play, tasks))
    print("\n".join(table(games)))


if __name__ == "__main__":
    main()
