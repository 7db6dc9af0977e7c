"""How much of a game's outcome variance the luck correction (core.luck) removes, per game and event kind.

    PALAIS_PURE=1 nice .venv/bin/python benchmarks/luck_variance.py --games 300 [--seed 1]
    nice .venv/bin/python benchmarks/luck_variance.py --strategy expert --cases pr,pair,setup-share-pr

(the compiled engine for the search players: ``make build`` first, no PALAIS_PURE).

For each case: the variance of the raw outcome and of the corrected one, the ratio of their 95% interval widths
(corrected over raw: the goal is at most 0.55), and per event kind the share of the raw variance that subtracting
that kind's correction alone removes. The cases:

- ``pr``: Palais Royal, self-play of --strategy (greedy) at --players (2): seat 1's win share per game;
- ``pair``: Palais Royal 2p, a paired arm: `restricted:forbid=N23` on --strategy against --strategy in one seat, the
  other seat --strategy, both seat orders, on the same seeds: the per-seed difference of the focus seat's win share
  between the arms, and the share of pairs whose two games diverge at all;
- ``pg``: Palastgeflüster, heuristic self-play, 4 players: seat 1's win share per game;
- ``setup-share``: how much of the variance the setup holds at all (the most any value of a start could remove): a
  quarter as many setups, each played with --orders (8) different draws of everything after it (the decision streams
  of seeded players too); for Palais Royal (--strategy, --players) and Palastgeflüster (heuristic, 4p);
  ``setup-share-pr`` for Palais Royal alone;
- ``pair-setup-share``: the same for the paired arm's difference (both seat orders averaged per draw): the most an
  arm-aware value of the start could remove from the nobles study's pairs;
- ``rollout``: a greedy self-play game from the same start as V of the setup (cheap beside a search game): the
  correlation of its seat-1 win with --strategy's, and the share of the raw variance a setup term with V = the
  rollout's win (its expectation a mean over SETUP_SAMPLES other starts) would remove, unscaled and at the best scale;
- ``pair-rollout``: the same for the paired arm, with V the difference of two greedy rollouts (each arm's restriction
  on greedy) from the start: a V that knows the arm, so the setup term does not cancel between the arms.

Root seeds come from --seed as study roots do (refused in the range reserved for fitting). Not a timed test.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from palais_sim.core.games import get_game
from palais_sim.core.luck import SETUP_SAMPLES, LuckRecord, play_with_luck
from palais_sim.core.seeds import ReservedSeed, check_root_seed
from palais_sim.games.palais_royal import chance as pr_chance
from palais_sim.games.palais_royal import play as pr_play
from palais_sim.games.palastgefluester import chance as pg_chance
from palais_sim.games.palastgefluester import play as pg_play
from palais_sim.registry import load_strategies
from palais_sim.tournament.schedule import group_seed

FORBIDDEN = "N23"  # the pair case's restricted noble


def redrawn(state: Any, k: int) -> Any:
    """``state`` (just set up) with everything after the setup drawn anew: its seed changed (the engine's and seeded
    players' streams) and its deck, where it has one, shuffled from that seed."""
    state.seed = group_seed(state.seed % 2**32, k + 1)
    if hasattr(state, "deck"):
        random.Random(state.seed).shuffle(state.deck)
    return state


def setup_share(start: Any, play: Any, seeds: Sequence[int], orders: int) -> tuple[float, float]:
    """The share of the outcome's variance the setup holds: each setup played with ``orders`` different draws of the
    later chance (the state's seed changed after the setup, and the deck shuffled anew where the game has one), the
    variance of the setups' means (less its sampling part) over the total. Returns (share, its standard error)."""
    means, within, everything = [], [], []
    for seed in seeds:
        outcomes = []
        for k in range(orders):
            outcomes.append(play(redrawn(start(seed), k)))
        means.append(statistics.fmean(outcomes))
        within.append(statistics.variance(outcomes))
        everything += outcomes
    total = statistics.variance(everything)
    between = statistics.variance(means) - statistics.fmean(within) / orders
    shares = [((m - statistics.fmean(means)) ** 2) / total for m in means]
    return between / total, statistics.stdev(shares) / math.sqrt(len(shares))


def as_setup_value(label: str, played: Sequence[float], predicted: Sequence[float]) -> list[str]:
    """How much of the variance of ``played`` a setup term with V = ``predicted`` (its expectation a mean over
    SETUP_SAMPLES other starts, which adds var/SETUP_SAMPLES) would remove: unscaled and at the best scale."""
    raw, var_v = statistics.variance(played), statistics.variance(predicted)
    cov = statistics.covariance(played, predicted)
    r = cov / math.sqrt(raw * var_v) if raw and var_v else float("nan")
    lines = [f"{label}: correlation {r:+.3f} (n {len(played)})"]
    for name, scale in (("unscaled", 1.0), ("best scale", cov / var_v if var_v else 0.0)):
        removed = 1 - (raw + scale**2 * var_v * (1 + 1 / SETUP_SAMPLES) - 2 * scale * cov) / raw
        ratio = math.sqrt(max(0.0, 1 - removed))
        lines.append(f"  {name} ({scale:.2f}): variance removed {removed:+.3f}, width ratio {ratio:.3f}")
    return lines


def seat_win(state: Any, spec: str, players: int, game: Any, seat: int = 0) -> float:
    return pr_play.continue_game(state, load_strategies(spec, players, game)).seats[seat].win


def rollout_value(model: Any, game: Any, strategy: str, players: int, seeds: Sequence[int]) -> list[str]:
    """How well a greedy rollout from the start predicts ``strategy``'s result there (a V for the setup term). The
    rollout draws its own future (:func:`redrawn`): a V that read the game's deck order and streams would know the
    draws to come, and the draws' terms would no longer have mean zero."""
    played = [seat_win(model.start(seed), strategy, players, game) for seed in seeds]
    greedy = [seat_win(redrawn(model.start(seed), 0), "greedy", players, game) for seed in seeds]
    return as_setup_value(f"greedy rollout as V of the setup for {strategy} {players}p, seat 1 win", played, greedy)


def pair_rollout_value(model: Any, game: Any, strategy: str, seeds: Sequence[int]) -> list[str]:
    """The paired arms' difference (restricted N23 on ``strategy`` minus ``strategy``, focus seat in both orders)
    against the same difference of two greedy rollouts from the start, each arm's restriction on greedy: a V that
    knows the arm (fixed in advance, as AIVAT allows), so the setup term no longer cancels between the arms."""
    played, predicted = [], []
    for seed in seeds:
        for seat in (0, 1):
            diffs = []
            for base, k in ((strategy, None), ("greedy", 0)):
                wins = []
                for spec in (restricted_on(base), base):
                    specs = [base, base]
                    specs[seat] = spec
                    state = model.start(seed) if k is None else redrawn(model.start(seed), k)
                    wins.append(seat_win(state, ",".join(specs), 2, game, seat))
                diffs.append(wins[0] - wins[1])
            played.append(diffs[0])
            predicted.append(diffs[1])
    return as_setup_value(f"greedy rollouts' arm difference as V for the pair on {strategy}", played, predicted)


def pair_difference(state: Any, strategy: str, game: Any) -> float:
    """From one start (with its draws): the focus seat's win share with the restriction minus without, averaged
    over the two seat orders (the nobles study's pair)."""
    diffs = []
    for seat in (0, 1):
        for spec, sign in ((restricted_on(strategy), 1.0), (strategy, -1.0)):
            specs = [strategy, strategy]
            specs[seat] = spec
            diffs.append(sign * seat_win(state.copy(), ",".join(specs), 2, game, seat))
    return sum(diffs) / 2


def restricted_on(base: str) -> str:
    """The nobles study's restricted player (forbidden N23) on ``base``; the shorter spec on greedy (its default)."""
    if base == "greedy":
        return f"restricted:forbid={FORBIDDEN}"
    return f"restricted:base={base.replace(',', ';')},forbid={FORBIDDEN}"


class Series:
    """Per game (or per pair): the raw outcome, the correction, and the correction per event kind."""

    def __init__(self) -> None:
        self.raw: list[float] = []
        self.correction: list[float] = []
        self.by_kind: dict[str, list[float]] = {}
        self.events: dict[str, int] = {}

    def add(self, raw: float, correction: float, by_kind: dict[str, float], events: dict[str, int]) -> None:
        n = len(self.raw)
        for kind in by_kind.keys() | self.by_kind.keys():
            self.by_kind.setdefault(kind, [0.0] * n).append(by_kind.get(kind, 0.0))
        self.raw.append(raw)
        self.correction.append(correction)
        for kind, count in events.items():
            self.events[kind] = self.events.get(kind, 0) + count

    def rows(self, name: str) -> list[str]:
        raw_var = statistics.variance(self.raw)
        corrected = [r - c for r, c in zip(self.raw, self.correction, strict=True)]
        cor_var = statistics.variance(corrected)
        n = len(self.raw)
        out = [
            f"| {name} | {n} | {statistics.fmean(self.raw):+.4f} ± {1.96 * math.sqrt(raw_var / n):.4f} "
            f"| {statistics.fmean(corrected):+.4f} ± {1.96 * math.sqrt(cor_var / n):.4f} "
            f"| {math.sqrt(cor_var / raw_var) if raw_var else float('nan'):.3f} |"
        ]
        for kind in sorted(self.by_kind):
            alone = [r - c for r, c in zip(self.raw, self.by_kind[kind], strict=True)]
            share = 1.0 - statistics.variance(alone) / raw_var if raw_var else float("nan")
            out.append(
                f"|   {kind} ({self.events.get(kind, 0) / n:.1f} events a game) | | mean term "
                f"{statistics.fmean(self.by_kind[kind]):+.4f} | variance removed {share:+.3f} | |"
            )
        return out


def single(record: LuckRecord, seat: int) -> tuple[float, float, dict[str, float], dict[str, int]]:
    return record.raw[seat], record.correction[seat], record.by_kind[seat], record.events


def self_play(model: Any, value: Any, game: Any, strategy: str, players: int, seeds: Sequence[int]) -> Series:
    series = Series()
    for seed in seeds:
        _result, record = play_with_luck(model, seed, load_strategies(strategy, players, game), value)
        series.add(*single(record, 0))
    return series


def course(result: Any) -> tuple[Any, ...]:
    """What two games of one seed share when they did not diverge: their length, every score and every recruit."""
    return result.decisions, result.rounds, [s.score for s in result.seats], result.recruits


def paired_arm(
    model: Any, value: Any, game: Any, focus: str, base: str, seeds: Sequence[int]
) -> tuple[Series, dict[str, float]]:
    """Per seed and seat order: the focus seat's win share with ``focus`` minus with ``base`` (the other seat
    ``base`` in both arms). Also, as shares of the pairs: the pairs whose two games diverge (differ in
    :func:`course`), those where the base arm's focus seat recruited the forbidden noble, and those that diverge
    although it did not (if none, a restricted game need only be played where the base game recruited it)."""
    series = Series()
    diverged = took = diverged_untaken = 0
    for seed in seeds:
        for seat in (0, 1):
            arms, courses = [], []
            for strategy in (focus, base):
                specs = [base, base]
                specs[seat] = strategy
                result, record = play_with_luck(model, seed, load_strategies(",".join(specs), 2, game), value)
                arms.append(single(record, seat))
                courses.append(course(result))
            differ = courses[0] != courses[1]
            taken = any(r.seat == seat and r.noble == FORBIDDEN for r in courses[1][3])
            diverged += differ
            took += taken
            diverged_untaken += differ and not taken
            (ra, ca, ka, ea), (rb, cb, kb, eb) = arms
            kinds = {k: ka.get(k, 0.0) - kb.get(k, 0.0) for k in ka.keys() | kb.keys()}
            events = {k: ea.get(k, 0) + eb.get(k, 0) for k in ea.keys() | eb.keys()}
            series.add(ra - rb, ca - cb, kinds, events)
    pairs = 2 * len(seeds)
    return series, {
        "diverge": diverged / pairs,
        f"base recruits {FORBIDDEN}": took / pairs,
        f"diverge, base without {FORBIDDEN}": diverged_untaken / pairs,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="seeds per case")
    parser.add_argument("--seed", type=int, default=1, help="root seed (game seeds as a run derives them)")
    parser.add_argument(
        "--cases",
        default="pr,pair,pg,setup-share",
        help="comma-separated: pr, pair, pg, setup-share, setup-share-pr, pair-setup-share, rollout, pair-rollout",
    )
    parser.add_argument("--strategy", default="greedy", help="Palais Royal's players (every seat) in pr, pair, setup")
    parser.add_argument("--players", type=int, default=2, help="Palais Royal's player count in pr and setup-share")
    parser.add_argument("--orders", type=int, default=8, help="setup-share: plays of each setup")
    args = parser.parse_args(argv)
    try:
        check_root_seed(args.seed)
    except ReservedSeed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seeds = [group_seed(args.seed, k) for k in range(args.games)]
    cases = set(args.cases.split(","))
    strategy, players = args.strategy, args.players
    label = f"PR {strategy} {players}p"
    print("| case | n | raw mean ± 95% | corrected mean ± 95% | width ratio |")
    print("|---|---|---|---|---|")
    pr = get_game("palais-royal")
    context = pr.context({"players": players})
    model, value = pr_chance.PrChance(context.components, context.options), pr_chance.LuckValue()
    pair_context = pr.context({"players": 2})  # the pair cases are 2-player whatever --players
    pair_model = pr_chance.PrChance(pair_context.components, pair_context.options)
    if "pr" in cases:
        start = time.perf_counter()
        rows = self_play(model, value, pr, strategy, players, seeds).rows(f"{label}, seat 1 win")
        print("\n".join(rows), f"\n({time.perf_counter() - start:.0f} s)", file=sys.stdout)
    if "pair" in cases:
        start = time.perf_counter()
        focus = restricted_on(strategy)
        series, shares = paired_arm(pair_model, value, pr, focus, strategy, seeds)
        print("\n".join(series.rows(f"PR 2p, {focus} - {strategy}, paired")))
        print(f"({time.perf_counter() - start:.0f} s)")
        print("shares of the pairs: " + "; ".join(f"{name} {share:.3f}" for name, share in shares.items()))
    if "pg" in cases:
        start = time.perf_counter()
        pg = get_game("palastgefluester")
        pg_model = pg_chance.PgChance(pg.context({"players": 4}).options)
        series = self_play(pg_model, pg_chance.LuckValue(), pg, "heuristic", 4, seeds)
        print("\n".join(series.rows("PG heuristic 4p, seat 1 win")))
        print(f"({time.perf_counter() - start:.0f} s)")
    n = max(20, len(seeds) // 4)
    if cases & {"setup-share", "setup-share-pr"}:
        start = time.perf_counter()
        share, se = setup_share(
            model.start,
            lambda state: pr_play.continue_game(state, load_strategies(strategy, players, pr)).seats[0].win,
            seeds[:n],
            args.orders,
        )
        print(
            f"{label}: the setup (layout and park) holds {share:.3f} (se {se:.3f}) of seat 1's win variance "
            f"({n} setups x {args.orders}; {time.perf_counter() - start:.0f} s)"
        )
    if "pair-setup-share" in cases:
        start = time.perf_counter()
        share, se = setup_share(
            pair_model.start, lambda state: pair_difference(state, strategy, pr), seeds[:n], args.orders
        )
        print(
            f"PR 2p, {restricted_on(strategy)} - {strategy}: the setup holds {share:.3f} (se {se:.3f}) of the paired "
            f"difference's variance ({n} setups x {args.orders}; {time.perf_counter() - start:.0f} s)"
        )
    if "setup-share" in cases:
        pg = get_game("palastgefluester")
        pg_model = pg_chance.PgChance(pg.context({"players": 4}).options)
        share, se = setup_share(
            pg_model.start,
            lambda state: pg_play.continue_game(state, load_strategies("heuristic", 4, pg)).seats[0].win,
            seeds[:n],
            args.orders,
        )
        print(f"PG heuristic 4p: the setup (first deal, king pile) holds {share:.3f} (se {se:.3f}) of the variance")
    if "rollout" in cases:
        start = time.perf_counter()
        print("\n".join(rollout_value(model, pr, strategy, players, seeds)))
        print(f"({time.perf_counter() - start:.0f} s)")
    if "pair-rollout" in cases:
        start = time.perf_counter()
        print("\n".join(pair_rollout_value(pair_model, pr, strategy, seeds)))
        print(f"({time.perf_counter() - start:.0f} s)")
    print(f"value hashes: Palais Royal {value.digest()}, Palastgefluester {pg_chance.LuckValue().digest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
