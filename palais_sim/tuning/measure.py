"""The games a tuning plays and the win share they measure.

Games are played through the tournament's executor (``make_executor``: in-process with one worker, else a local
pool of ``spawn``-started workers), whole rotation groups per task; the win share's 95% interval is clustered on the
rotation group (the games of one setup seed), with the analytics' cluster-robust mean (``stats.cluster_mean``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable

import numpy as np

from palais_sim.analytics.stats import cluster_mean
from palais_sim.core.game import Game
from palais_sim.tournament.pools import init_plain_worker, make_executor
from palais_sim.tournament.schedule import Schedule, Settings

# (group, the focus strategy's win: 1, 1/k for a shared win, 0; finished)
Row = tuple[int, float, bool]


@functools.cache
def _context(game: Game, rules: str) -> object:
    """The game's context (component set, rule options) for the run settings ``rules`` (JSON): built once per
    worker, since every trial of a tuning plays under the same rules."""
    return game.context(json.loads(rules))


def play_games(task: tuple[Settings, int, int]) -> list[Row]:
    """Play games ``first .. first + count - 1`` of a schedule: the first listed strategy's result in each (a
    top-level function: worker processes run it too; the settings travel with their game's name)."""
    from palais_sim.registry import load_strategy

    settings, first, count = task
    schedule = Schedule(settings)
    game = settings.game
    rules = {k: v for k, v in settings.to_dict().items() if k not in ("strategies", "seed", "games", "format")}
    context = _context(game, json.dumps(rules, sort_keys=True))
    rows: list[Row] = []
    for spec in schedule.games(first, count):
        result = game.play(context, spec.seed, [load_strategy(s, game) for s in spec.matchup])
        seat = spec.rotation % settings.players  # rotation r seats the first listed strategy in seat r + 1
        win = 1.0 / len(result.winners) if seat in result.winners else 0.0  # a shared win counts as a share
        rows.append((spec.group, win, result.finished))
    return rows


def _play_numbered(task: tuple[int, Settings, int, int]) -> tuple[int, list[Row]]:
    """``play_games`` of a task numbered ``index``: the pool returns tasks as they finish, the rows go in order."""
    index, settings, first, count = task
    return index, play_games((settings, first, count))


class Games:
    """Plays schedules with the tournament's executor, whole rotation groups per task, the rows in schedule order."""

    def __init__(self, workers: int, progress: Callable[[int], None]) -> None:
        self.workers = workers
        self.progress = progress
        self._executor = make_executor(workers, init_plain_worker, ())

    def play(self, settings: Settings) -> list[Row]:
        schedule = Schedule(settings)
        size = schedule.group_size
        groups = schedule.groups
        per_task = max(1, math.ceil(groups / (4 * self.workers)))
        tasks = [
            (i, settings, g * size, min(per_task, groups - g) * size) for i, g in enumerate(range(0, groups, per_task))
        ]  # fmt: skip
        parts: dict[int, list[Row]] = {}
        for index, part in self._executor.imap_unordered(_play_numbered, tasks):
            parts[index] = part
            self.progress(len(part))
        return [row for index in range(len(tasks)) for row in parts[index]]

    def close(self) -> None:
        """Let the workers finish and stop."""
        self._executor.close()

    def terminate(self) -> None:
        """Stop now (an error or Ctrl-C): the workers are killed."""
        self._executor.terminate()


@dataclasses.dataclass(frozen=True)
class Share:
    """A win share with its 95% interval, clustered on the rotation group (the games of one setup seed)."""

    share: float
    low: float
    high: float
    games: int
    unfinished: int

    def text(self) -> str:
        return f"{self.share:.3f} [{self.low:.3f}, {self.high:.3f}]"


def _share(sums: dict[int, float], counts: dict[int, int], games: int, unfinished: int) -> Share:
    """The mean over the rows of groups with these value sums and row counts, its 95% interval clustered on the
    group (the games of one setup seed are not independent)."""
    order = sorted(sums)
    s = np.array([sums[g] for g in order], dtype=float)
    n = np.array([counts[g] for g in order], dtype=float)
    m = cluster_mean(
        n=n.sum(), total=s.sum(), sum_sq=(s**2).sum(), sum_tn=(s * n).sum(), sum_nn=(n**2).sum(),
        clusters=np.array(len(order)),
    )  # fmt: skip
    return Share(float(m.mean), float(m.low), float(m.high), games, unfinished)


def _by_group(rows: list[Row]) -> tuple[dict[int, float], dict[int, int]]:
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for group, win, _finished in rows:
        sums[group] = sums.get(group, 0.0) + win
        counts[group] = counts.get(group, 0) + 1
    return sums, counts


def share_of(rows: list[Row]) -> Share:
    """The focus strategy's win share over ``rows`` (a shared win counts as a share)."""
    sums, counts = _by_group(rows)
    return _share(sums, counts, len(rows), sum(1 for r in rows if not r[2]))


def difference_of(a: list[Row], b: list[Row]) -> Share:
    """``a`` less ``b`` on the same games (both play every game of each group): the paired difference, per group."""
    sums_a, counts = _by_group(a)
    sums_b, _ = _by_group(b)
    diffs = {g: sums_a[g] - sums_b[g] for g in sums_a if g in sums_b}
    return _share(diffs, {g: counts[g] for g in diffs}, len(a), 0)
