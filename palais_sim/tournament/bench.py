"""`palais bench`: a fixed workload played with one worker (in-process) and with all workers.

Both legs play the same games (root seed 0, no Parquet written) through the same executor seam as
`palais simulate`; the pool is warmed up (workers spawned, strategies imported) before the clock starts, so the
scaling factor measures simulation, not process start-up.
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import time
from collections.abc import Iterator, Mapping
from typing import Any

from palais_sim import __version__, build_info
from palais_sim.core.game import Game
from palais_sim.tournament.executor_protocol import default_workers
from palais_sim.tournament.pools import ProcessExecutor, make_executor
from palais_sim.tournament.runner import validate
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.worker import ChunkTask, init_worker, run_chunk


def bench_settings(
    game: Game, players: int, strategies: tuple[str, ...], games: int, rules: Mapping[str, Any] | None = None
) -> Settings:
    """One strategy for every seat, or one per seat; fewer than the seats are dealt round the table in turn
    (a,b -> a,b,a), more are a round-robin. ``rules``: the game's rule options."""
    if 1 < len(strategies) < players:
        strategies = tuple(strategies[seat % len(strategies)] for seat in range(players))
    fmt = "fixed" if len(strategies) in (1, players) else "round-robin"
    return Settings(
        games=games, players=players, strategies=strategies, format=fmt, rotate_seats=False, seed=0, game=game,
        max_rounds=game.default_max_rounds, rules=rules or {},
    )  # fmt: skip


def rate(value: float) -> float:
    """A rate to three significant figures, at least one decimal: a search's 1.75 games/s is not rounded to 1.8."""
    if value <= 0:
        return 0.0
    return round(value, max(1, 2 - math.floor(math.log10(value))))


class BenchGamesFailed(RuntimeError):
    """Games of the benchmark's workload failed: its speeds would measure failures, not games."""


def _played(reports: list) -> list:
    """The chunk reports, checked: a failed game makes the measurement meaningless, so it stops the benchmark."""
    failed = sum(r.errors for r in reports)
    if failed:
        first = next(r.first_error for r in reports if r.first_error)
        total = sum(r.games for r in reports)
        raise BenchGamesFailed(f"{failed} of {total} games of the benchmark failed; the first: {first}")
    return reports


def _leg(settings: Settings, comps, workers: int) -> tuple[float, int, int, float]:
    """Wall seconds, games, decisions and worker CPU seconds for the whole workload on ``workers`` workers."""
    executor = make_executor(workers, init_worker, (settings, comps))
    try:
        warm = [ChunkTask(i, i, 1, None) for i in range(workers)]
        _played(list(executor.imap_unordered(run_chunk, warm)))
        size = max(1, math.ceil(settings.games / (4 * workers)))
        tasks = [ChunkTask(i, first, size, None) for i, first in enumerate(range(0, settings.games, size))]
        start = time.perf_counter()
        reports = _played(list(executor.imap_unordered(run_chunk, tasks)))
        seconds = time.perf_counter() - start
    finally:
        executor.close()
    games, decisions = sum(r.games for r in reports), sum(r.decisions for r in reports)
    return seconds, games, decisions, sum(r.cpu_seconds for r in reports)


@contextlib.contextmanager
def _engine(pure: bool) -> Iterator[None]:
    """Workers spawned inside run the pure Python engine (``PALAIS_PURE=1``) or the compiled one, if built."""
    before = os.environ.get("PALAIS_PURE")
    if pure:
        os.environ["PALAIS_PURE"] = "1"
    else:
        os.environ.pop("PALAIS_PURE", None)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PALAIS_PURE", None)
        else:
            os.environ["PALAIS_PURE"] = before


def _process_leg(settings: Settings, comps, pure: bool, timed: bool = False) -> tuple[float, int, dict[str, list]]:
    """CPU seconds and games for the workload on one worker process running the pure or the compiled engine, and
    with ``timed`` every strategy's decisions and CPU seconds (``{spec: [decisions, seconds]}``)."""
    with _engine(pure):
        executor = ProcessExecutor(1, init_worker, (settings, comps))
        try:
            _played(list(executor.imap_unordered(run_chunk, [ChunkTask(0, 0, 1, None)])))  # start and warm the worker
            size = max(1, math.ceil(settings.games / 4))
            tasks = [
                ChunkTask(i, first, size, None, time_strategies=timed)
                for i, first in enumerate(range(0, settings.games, size))
            ]
            reports = _played(list(executor.imap_unordered(run_chunk, tasks)))
        finally:
            executor.close()
    return sum(r.cpu_seconds for r in reports), sum(r.games for r in reports), _clock(reports)


def _clock(reports: list) -> dict[str, list]:
    """The chunks' strategy clocks summed: ``{spec: [decisions, CPU seconds]}``."""
    total: dict[str, list] = {}
    for report in reports:
        for spec, decisions, seconds in report.clock:
            entry = total.setdefault(spec, [0, 0.0])
            entry[0] += decisions
            entry[1] += seconds
    return total


def _per_second(clock: dict[str, list]) -> dict[str, float]:
    return {spec: round(n / t, 1) if t > 0 else 0.0 for spec, (n, t) in clock.items()}


def strategy_speeds(settings: Settings, comps) -> dict[str, dict]:
    """Each strategy's decisions and decisions per CPU-second in its own choose calls (the engine's work between
    decisions not included), from one in-process worker with every decision timed: a leg of its own, since the clock
    reads cost a fast strategy a few per cent of the games/s the other legs measure."""
    executor = make_executor(1, init_worker, (settings, comps))
    try:
        size = max(1, math.ceil(settings.games / 4))
        tasks = [
            ChunkTask(i, first, size, None, time_strategies=True)
            for i, first in enumerate(range(0, settings.games, size))
        ]
        clock = _clock(_played(list(executor.imap_unordered(run_chunk, tasks))))
    finally:
        executor.close()
    return {
        spec: {"decisions": n, "cpu_seconds": round(t, 3), "decisions_per_cpu_s": _per_second({spec: [n, t]})[spec]}
        for spec, (n, t) in clock.items()
    }


def compare_pure(
    game: Game, players: int, strategies: tuple[str, ...], games: int, rounds: int = 2, per_strategy: bool = False,
    rules: Mapping[str, Any] | None = None,
) -> dict:  # fmt: skip
    """The same workload on the compiled and on the pure Python engine, one worker each, the legs alternated
    (compiled, pure, compiled, pure, ...) so load on a shared machine falls on both alike; in CPU time. With
    ``per_strategy`` every decision is timed too (both legs alike) and each strategy's speed-up is given."""
    settings = bench_settings(game, players, strategies, games, rules)
    comps = validate(settings).context
    rates: dict[str, list[float]] = {"compiled": [], "pure": []}
    speeds: dict[str, dict[str, list[float]]] = {}
    for _ in range(rounds):
        for name in ("compiled", "pure"):
            cpu, played, clock = _process_leg(settings, comps, pure=name == "pure", timed=per_strategy)
            rates[name].append(played / cpu if cpu > 0 else 0.0)
            for spec, per_second in _per_second(clock).items():
                speeds.setdefault(spec, {"compiled": [], "pure": []})[name].append(per_second)
    compiled, pure = statistics.median(rates["compiled"]), statistics.median(rates["pure"])
    result: dict = {
        "compiled_games_per_cpu_s": rate(compiled),
        "pure_games_per_cpu_s": rate(pure),
        "speedup": round(compiled / pure, 2) if pure else None,
        "legs": {name: [rate(r) for r in values] for name, values in rates.items()},
    }
    if per_strategy:
        result["strategies"] = {}
        for spec, legs in speeds.items():
            c, p = statistics.median(legs["compiled"]), statistics.median(legs["pure"])
            result["strategies"][spec] = {
                "compiled_decisions_per_cpu_s": round(c, 1),
                "pure_decisions_per_cpu_s": round(p, 1),
                "speedup": round(c / p, 2) if p else None,
            }
    return result


def bench(
    game: Game, players: int, strategies: tuple[str, ...], games: int, workers: int | None = None,
    compare: bool = False, per_strategy: bool = False, rules: Mapping[str, Any] | None = None,
) -> dict:  # fmt: skip
    settings = bench_settings(game, players, strategies, games, rules)
    comps = validate(settings).context
    workers = workers or default_workers()
    load_before = os.getloadavg()[0]
    t1, g1, d1, c1 = _leg(settings, comps, 1)
    single = g1 / t1
    if workers > 1:
        tw, gw, dw, cw = _leg(settings, comps, workers)
    else:
        tw, gw, dw, cw = t1, g1, d1, c1
    games_rate = gw / tw
    result = {
        "game": settings.game.name,
        "engine_version": __version__,
        "compiled": bool(build_info()["compiled"]),  # both games' engines are in the compiled build
        "players": players,
        "strategies": list(strategies),
        "games": gw,
        "workers": workers,
        "cpu_count": os.cpu_count(),
        "load_average_before": round(load_before, 2),
        "single_worker_games_per_s": rate(single),
        "single_worker_decisions_per_s": round(d1 / t1, 0),
        "games_per_s": rate(games_rate),
        "games_per_s_per_core": rate(games_rate / workers),
        "decisions_per_s": round(dw / tw, 0),
        "decisions_per_game": round(dw / gw, 1),
        "scaling": round(games_rate / single, 2),
        # Games per CPU-second of the workers: what a core gives when nothing else runs on the machine.
        "games_per_cpu_s": rate(gw / cw) if cw > 0 else None,
        "cpu_utilisation": round(cw / (tw * workers), 2),
    }
    if per_strategy:
        result["strategies_timed"] = strategy_speeds(settings, comps)
    if compare:
        result["compare_pure"] = compare_pure(
            settings.game, players, strategies, games, per_strategy=per_strategy, rules=rules
        )
        result["speedup"] = result["compare_pure"]["speedup"]
    return result


def bench_text(r: dict) -> str:
    engine = "compiled (mypyc)" if r["compiled"] else f"pure Python ({build_info()['reason']})"
    text = f"engine:     {engine}\n" + _legs_text(r)
    if "compare_pure" in r:
        c = r["compare_pure"]
        text += (
            f"\ncompiled vs pure, 1 worker each, alternated, CPU time: {c['compiled_games_per_cpu_s']} vs "
            f"{c['pure_games_per_cpu_s']} games per CPU-second: {c['speedup']}x"
        )
    if "strategies_timed" in r:
        text += "\nper strategy, 1 worker, CPU time in its own decisions:"
        pure = r.get("compare_pure", {}).get("strategies", {})
        for spec, t in r["strategies_timed"].items():
            text += f"\n  {spec:<32} {t['decisions_per_cpu_s']:>10,.1f} decisions/CPU-s ({t['decisions']:,} decisions)"
            if spec in pure:
                p = pure[spec]
                text += (
                    f"; compiled vs pure {p['compiled_decisions_per_cpu_s']:,.1f} vs "
                    f"{p['pure_decisions_per_cpu_s']:,.1f}: {p['speedup']}x"
                )
    return text


def _legs_text(r: dict) -> str:
    return (
        f"workload: {r['games']} games of {r['game']}, {r['players']} players, "
        f"{','.join(r['strategies'])} "
        f"(engine {r['engine_version']}, load average before {r['load_average_before']})\n"
        f"1 worker:   {r['single_worker_games_per_s']!s:>8} games/s  {r['single_worker_decisions_per_s']:9.0f} "
        f"decisions/s\n"
        f"{r['workers']} workers: {r['games_per_s']!s:>8} games/s  {r['decisions_per_s']:9.0f} decisions/s  "
        f"{r['games_per_s_per_core']} games/s per core\n"
        f"scaling:    {r['scaling']:.2f}x on {r['workers']} workers\n"
        f"cpu:        {r['games_per_cpu_s']} games per CPU-second in the workers, "
        f"{r['cpu_utilisation']:.0%} of {r['workers']} cores used (less: other load on the machine)"
    )
