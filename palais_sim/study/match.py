"""``palais match A B``: an A/B test on paired, seat-rotated games that stops as soon as the SPRT decides.

A group is one setup seed played in every rotation of the table (A in seat 1, then seat 2, ...); with more than two
players the table is A against P-1 copies of B. The match is played in batches of groups, each batch a run of its own
(``Settings.first_group``: batch k plays groups k*b .. k*b+b-1, the seeds an unbroken run would have used), and after
every batch the group scores so far are tested (``analytics.sprt``). A match the SPRT ran (stopped at a bound, or
still open at ``max_games``) reports the Elo that accounts for its stopping rule, as fishtest reports an SPRT run
(``SPRT_elo``): median-unbiased, with an interval that covers what it says (``sprt.stopped_estimate``). The plain
mean and interval of the stopped sample would not: a run that stops early is one that ran ahead, so they lean
away from the middle (simulated SPRT(0, 20): -5.4 Elo at 0, +4.5 at 20) and cover 90-93% for a 95% interval. A
fixed-length match (``--no-sprt``) reports the plain ones.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from palais_sim.analytics import paired, sprt
from palais_sim.analytics.runs import open_run
from palais_sim.study.arms import play_arm
from palais_sim.tournament.schedule import Settings


@dataclass(frozen=True)
class MatchPlan:
    a: str
    b: str
    players: int = 2
    sprt: bool = True
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 20000
    batch_groups: int = 50
    confidence: float = 0.95
    base: Settings = field(default_factory=Settings)  # seed and rule options (games, strategies are set here)

    def check(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"--elo1 must be above --elo0, got {self.elo0} and {self.elo1}")
        for name, v in (("--alpha", self.alpha), ("--beta", self.beta)):
            if not 0 < v < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {v}")
        if self.max_games < 1:
            raise ValueError(f"--max-games must be at least 1, got {self.max_games}")
        if self.batch_groups < 1:
            raise ValueError(f"--batch must be at least 1, got {self.batch_groups}")

    def settings(self, batch: int, groups: int) -> Settings:
        table = (self.a,) + (self.b,) * (self.players - 1)
        return replace(
            self.base, games=groups * self.players, players=self.players, strategies=table, format="fixed",
            rotate_seats=True, first_group=batch * self.batch_groups,
        )  # fmt: skip


@dataclass
class MatchResult:
    plan: MatchPlan
    result: str
    games: int
    groups: int
    failed_games: int
    score: paired.Estimate
    llr: float
    lower: float
    upper: float
    seconds: float
    distribution: dict
    batches: int
    stopped: sprt.Stopped | None = None  # the SPRT's own estimate (None for a fixed-length match)
    group_scores: pl.DataFrame | None = None  # A's score in each complete group (``group``, ``score``)

    @property
    def elo(self) -> tuple[float, float, float]:
        """The Elo and its interval: the stopping-rule-aware ones after an SPRT, else those of the score."""
        if self.stopped is not None:
            return self.stopped.elo, self.stopped.low, self.stopped.high
        return self.plain_elo

    @property
    def plain_elo(self) -> tuple[float, float, float]:
        """The Elo of the sample's mean score and of its fixed-length interval (ignoring any stop)."""
        s = self.score
        return sprt.score_to_elo(s.mean), sprt.score_to_elo(s.low), sprt.score_to_elo(s.high)

    def elo_reason(self) -> str | None:
        """Why the Elo (or an end of its interval) is not a number: a score of 0 or 1, or an interval reaching it."""
        why = sprt.unbounded_elo(self.score.mean)
        if why is not None:
            return why
        if self.stopped is not None:
            ends = [end for end, x in (("lower", self.stopped.low), ("upper", self.stopped.high)) if math.isinf(x)]
            if ends:
                return f"the interval's {' and '.join(ends)} end lies beyond {sprt.ELO_LIMIT:g} Elo: unbounded"
            return None
        ends = [end for end, x in (("lower", self.score.low), ("upper", self.score.high)) if not 0.0 < x < 1.0]
        if ends:
            return f"the score interval's {' and '.join(ends)} end reaches 0 or 1: its Elo is unbounded"
        return None

    def elo_text(self) -> str:
        """The Elo line: a figure with its interval, or in words where the score cannot bound it."""
        elo, low, high = self.elo
        why = self.elo_reason()
        if math.isinf(elo):
            return f"Elo difference: A {'above' if elo > 0 else 'below'} B, unbounded; {why}"
        text = f"Elo difference {sprt.elo_end(elo)} [{sprt.elo_end(low)}, {sprt.elo_end(high)}] (logistic"
        stopped = self.stopped is not None
        text += ", accounting for the SPRT's stop: median-unbiased, as fishtest's SPRT_elo)" if stopped else ", fixed)"
        return f"{text}; {why}" if why else text

    def to_dict(self) -> dict:
        p = self.plan
        elo, low, high = self.elo
        plain, plain_low, plain_high = self.plain_elo
        return {
            "result": self.result,
            "a": p.a,
            "b": p.b,
            "players": p.players,
            "games": self.games,
            "groups": self.groups,
            "failed_games": self.failed_games,
            "score": _finite(self.score.mean),
            "score_ci": [_finite(self.score.low), _finite(self.score.high)],
            "elo": _finite(elo),
            "elo_ci": [_finite(low), _finite(high)],
            "elo_reason": self.elo_reason(),
            "elo_method": "sprt-stopped (median-unbiased)" if self.stopped is not None else "fixed-length",
            "fixed_length_elo": _finite(plain),
            "fixed_length_elo_ci": [_finite(plain_low), _finite(plain_high)],
            "confidence": p.confidence,
            "sprt": {
                "enabled": p.sprt,
                "elo0": p.elo0,
                "elo1": p.elo1,
                "alpha": p.alpha,
                "beta": p.beta,
                "llr": round(self.llr, 4),
                "lower": round(self.lower, 4),
                "upper": round(self.upper, 4),
            },  # fmt: skip
            "distribution": self.distribution,
            "batches": self.batches,
            "seed": p.base.seed,
            "max_games": p.max_games,
            "seconds": round(self.seconds, 3),
        }

    def text(self) -> str:
        p = self.plan
        s = self.score
        # What accepting means is the test's error rates at elo0 and elo1, not a bound on the difference: how large
        # it is, the Elo interval says (an accepted H1 beside "+7.6 [-0.5, +15.1]" read as "at least 10 Elo").
        verdict = {
            "H1": f"H1 accepted: the games favour A {p.elo1:+g} Elo over A {p.elo0:+g} Elo (a test that errs in at "
                  f"most {p.alpha:.0%} of matches where A is {p.elo0:+g} Elo; how large: the Elo line)",
            "H0": f"H0 accepted: the games favour A {p.elo0:+g} Elo over A {p.elo1:+g} Elo (a test that errs in at "
                  f"most {p.beta:.0%} of matches where A is {p.elo1:+g} Elo; how large: the Elo line)",
            "undecided": "undecided: neither bound reached",
        }[self.result]  # fmt: skip
        how = (f"SPRT elo0={p.elo0:g} elo1={p.elo1:g} alpha={p.alpha:g} beta={p.beta:g}: LLR {self.llr:.2f} "
               f"(bounds {self.lower:.2f}, {self.upper:.2f})")  # fmt: skip
        return "\n".join([
            f"{p.a} vs {p.b}, {p.players} players: {verdict}",
            f"{self.games} games in {self.groups} seat-rotation groups ({self.failed_games} failed games left out "
            f"with their groups), root seed {p.base.seed}, {self.seconds:.1f} s",
            f"score share of A {100 * s.mean:.1f}% [{100 * s.low:.1f}, {100 * s.high:.1f}] "
            f"({100 * p.confidence:g}% interval over groups; ties count half"
            + ("; the sample's own, as if its length had been fixed: the Elo below accounts for the stop)"
               if self.stopped is not None else ")"),
            self.elo_text(),
            how if p.sprt else how.replace("SPRT", "fixed-length test, SPRT"),
        ])  # fmt: skip


def _finite(x: float) -> float | None:
    return x if isinstance(x, float) and math.isfinite(x) else None


def _batch_scores(run_dir: Path) -> tuple[pl.DataFrame, int]:
    played = open_run(run_dir)
    return paired.focus_groups(played), played.summary["failed"]


def stopped_estimate(plan: MatchPlan, scores: np.ndarray) -> sprt.Stopped | None:
    """The Elo that accounts for the SPRT's stopping rule (None for a fixed-length match or fewer than two groups)."""
    if not plan.sprt or len(scores) < 2:
        return None
    return sprt.stopped_estimate(scores, plan.elo0, plan.elo1, plan.alpha, plan.beta, plan.confidence,
                                 plan.batch_groups)  # fmt: skip


def play_match(
    plan: MatchPlan, out: Path, workers: int | None = 1, backend: str = "local", address: str | None = None
) -> MatchResult:
    """Play batches until the SPRT decides (or ``max_games``); batches already in ``out`` are read, not replayed.
    ``backend``, ``address``: where each batch is played (``workers`` None: all the Ray cluster's CPUs)."""
    plan.check()
    start = time.perf_counter()
    max_groups = math.ceil(plan.max_games / plan.players)
    frames: list[pl.DataFrame] = []
    failed = 0
    batch = 0
    state = sprt.decide(np.array([]), plan.elo0, plan.elo1, plan.alpha, plan.beta)
    played_groups = 0
    while played_groups < max_groups:
        groups = min(plan.batch_groups, max_groups - played_groups)
        batch_dir = out / f"batch-{batch:04d}"
        play_arm(plan.settings(batch, groups), batch_dir, workers, backend=backend, address=address)
        df, f = _batch_scores(batch_dir)
        frames.append(df)
        failed += f
        played_groups += groups
        batch += 1
        scores = pl.concat(frames)["score"].to_numpy()
        state = sprt.decide(scores, plan.elo0, plan.elo1, plan.alpha, plan.beta)
        if plan.sprt and state.result != "undecided":
            break
    group_scores = pl.concat(frames).select("group", "score") if frames else None
    scores = group_scores["score"].to_numpy() if group_scores is not None else np.array([])
    if plan.players == 2:
        dist: dict = {"pentanomial": sprt.pentanomial(scores)}
    else:
        values, counts = np.unique(np.round(scores, 6), return_counts=True)
        dist = {"group_scores": {f"{v:g}": int(c) for v, c in zip(values, counts, strict=True)}}
    return MatchResult(
        plan=plan, result=state.result, games=played_groups * plan.players, groups=len(scores), failed_games=failed,
        score=paired.mean_interval(scores, plan.confidence, within=(0.0, 1.0)), llr=state.llr, lower=state.lower,
        upper=state.upper,
        seconds=time.perf_counter() - start, distribution=dist, batches=batch, stopped=stopped_estimate(plan, scores),
        group_scores=group_scores,
    )  # fmt: skip


def score_difference(first: MatchResult, second: MatchResult) -> paired.Estimate:
    """``first``'s score share minus ``second``'s over the seat-rotation groups both played, with a t interval cut
    to [-1, 1]. Two fixed-length matches of the same root seed and length against the same opponent play the same
    setups in the same rotations: a paired design, each group's difference one observation."""
    if first.group_scores is None or second.group_scores is None:
        return paired.mean_interval(np.array([]))
    return paired.paired_difference(first.group_scores, second.group_scores, "score", first.plan.confidence,
                                    within=(-1.0, 1.0))  # fmt: skip
