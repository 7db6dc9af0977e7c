"""``palais study nobles``: what each noble is worth at its price, by restricted play (Jaffe et al. 2012), take
rates and repricing.

For each subject X (a noble, or every noble of a privilege kind) and skill level S, one arm, seats rotated: the focus
is S forbidden X (``restricted:base=S,forbid=X``) against P-1 copies of S that only watch X
(``restricted:base=S,watch=X``: they play exactly as S and note whether X came within their reach and whether they
took it). The mirror of S wins 1/P every group (all its rotations are the same game), so

- **value** = 1/P - the forbidden focus's win share, group by group: what having X available is worth to a player,
  in percentage points of win share. A noble worth more than it costs is one a player loses by being forbidden
  (value above +margin: **favoured**, underpriced); a noble whose taking costs the player (value below -margin:
  forbidding it helps) is **disfavoured**, overpriced.
- A noble worth less than it costs is one a good player leaves alone, so forbidding it costs nothing and its value is
  about 0 whatever its price: the **take rates** tell it apart from a fair one. *Within reach*: the share of the
  unrestricted players' games in which X could be recruited at one of their recruit decisions; *taken*: the share of
  those in which they took it. A noble within reach in surely fewer than ``DEAD_REACH`` of the groups is **dead**
  (nobody can afford it), one surely taken in fewer than ``RARELY_TAKEN`` of the games it was within reach is
  **passed over**: both are overpriced (verdict disfavoured with that reason), unless its value says favoured. "Surely":
  the one-sided upper bound at the row's level, counted in groups, not seat-games, since the seats of a group share
  its setup (``take_bounds``).

The earlier measure, an *eager* arm that took X at the first chance, measured a reckless policy rather than the
noble: it spent seals the base strategy would have put to better use (about -9 pp at low prices whatever X was
worth) and, at high prices, could rarely afford X, so a dearer noble looked better (docs: studies).

Looks and budget (``study.sequential``): with ``looks`` > 1 each arm is played in batches of groups and stops at its
first decided look, each look's interval the repeated 95% interval of a Lan-DeMets spending design (so the verdicts
keep their 95% over all looks); the arms' looks are played in rounds (every open arm's next look, then the next
round) until ``budget`` games are spent, and each row records the games it cost and why it stopped.

Repricing: the nobles to reprice (``reprice``: those with a decided verdict, all, none, or a list) are played again
in component-set variants with the noble at gold + each offset (default -1 and +1; 0: the printed price again), the
same arm on setups of each price's own, through every look. The price line is a weighted least-squares fit of the
variants' values on the gold cost (the base row, which selected the noble, is not a point: ``price_line``); where it
crosses 0 is the price at which having the noble stops being worth anything more than it costs (given only when the
slope is surely negative).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics.paired import Estimate, focus_groups, mean_interval, notes_by_group, notes_rates
from palais_sim.analytics.runs import open_run
from palais_sim.analytics.stats import weighted_line
from palais_sim.games.palais_royal.components import ComponentSet, load_components
from palais_sim.games.palais_royal.studies.variants import repriced, write_variant
from palais_sim.study import charts, ladder, render, sequential
from palais_sim.study.common import MORE_GROUPS, MORE_LOOKS, Ledger, StudySpec, arm_dir, header, progress
from palais_sim.study.evidence import min_differing

MAX_LOOKS = 20  # a plan grown by looks of the same size (2,400 groups in 12 looks of 200) keeps its looks
REPRICE_SEED_OFFSET = 2_000_003  # the variant at the k-th smallest offset plays root seed + k times this
REPRICE_MODES = ("decided", "all", "none")


@dataclass(frozen=True)
class NoblesPlan:
    spec: StudySpec
    players: int = 2
    subjects: tuple[str, ...] | None = None  # noble ids and privilege kinds; None: every noble and every kind
    reprice: str = "decided"  # decided | all | none | comma-separated noble ids
    offsets: tuple[int, ...] = (-1, 1)
    looks: int = 1  # >1: each subject's arm in this many batches, stopping at the first decided verdict
    spending: str = "obf"  # the alpha-spending function of the looks (``study.sequential``): obf or pocock
    budget: int | None = None  # games the whole study may play (its arms' looks in rounds); None: no cap
    ladder: bool = False  # the skill levels are a strength ladder (``study.ladder``): rung strengths and settling
    elo_groups: int = 100  # setups of each rung's match against the first rung

    @property
    def confidence(self) -> float:
        """The level the study's intervals keep together over all its looks (95%); each look's own interval is
        wider (``look_confidence``)."""
        return 1 - sequential.ALPHA

    def look_sizes(self) -> tuple[int, ...]:
        """Groups played at each look (the last may be smaller)."""
        per = -(-self.spec.groups // self.looks)
        sizes = [min(per, self.spec.groups - k * per) for k in range(self.looks)]
        return tuple(g for g in sizes if g > 0)

    def bounds(self) -> tuple[float, ...]:
        """Each look's critical value (z scale): the alpha-spending boundary at the looks' information fractions
        (groups so far over the planned groups), 1.96 for a single look."""
        return sequential.boundaries(sequential.fractions_of(self.look_sizes()), self.spending)

    def look_confidence(self, look: int) -> float:
        """The level of look ``look``'s interval (0-based): the repeated confidence interval with that look's
        critical value, so that the intervals of all looks hold the truth together 95% of the time."""
        if len(self.look_sizes()) == 1:
            return self.confidence
        return sequential.look_confidence(self.bounds()[look])

    def check(self, comps: ComponentSet) -> None:
        self.spec.check()
        self.spec.require_game("nobles")
        if self.players not in (2, 3, 4):
            raise ValueError(f"--players must be 2, 3 or 4, got {self.players}")
        known = {n.id for n in comps.nobles} | {n.privilege for n in comps.nobles if n.privilege}
        unknown = [s for s in self.subjects or () if s not in known]
        if unknown:
            raise ValueError(f"--nobles: {', '.join(unknown)} is not a noble or privilege kind of the component set")
        if self.reprice not in REPRICE_MODES:
            bad = [x for x in self.reprice.split(",") if x not in {n.id for n in comps.nobles}]
            if bad:
                raise ValueError(f"--reprice must be {', '.join(REPRICE_MODES)} or noble ids; unknown: {bad}")
        most = min(MAX_LOOKS, self.spec.groups // 2)
        if not 1 <= self.looks <= most:
            raise ValueError(f"--looks must be 1 to {most} (at least 2 groups a look), got {self.looks}")
        if self.spending not in sequential.SHAPES:
            raise ValueError(f"--spending must be one of {', '.join(sequential.SHAPES)}, got {self.spending!r}")
        if self.budget is not None and self.budget < 1:
            raise ValueError(f"--budget must be at least 1 game, got {self.budget}")
        if self.budget is not None and self.ladder:
            raise ValueError("--budget and --ladder together are not supported: a ladder compares every rung's arm")
        if not self.offsets or len(set(self.offsets)) != len(self.offsets):
            raise ValueError(f"--prices must be distinct gold offsets such as -1,1 (0: the printed price on fresh "
                             f"setups), got {list(self.offsets)}")  # fmt: skip

    def all_subjects(self, comps: ComponentSet) -> list[tuple[str, str]]:
        """(subject kind, key): the nobles in set order, then the privilege kinds in the order they first appear."""
        kinds = list(dict.fromkeys(n.privilege for n in comps.nobles if n.privilege))
        everything = [("noble", n.id) for n in comps.nobles] + [("privilege", k) for k in kinds]
        if self.subjects is None:
            return everything
        wanted = set(self.subjects)
        return [s for s in everything if s[1] in wanted]


def _spec_text(strategy: str) -> str:
    """A base spec inside the restricted spec: its parameters' commas become semicolons."""
    return strategy.replace(",", ";")


DEAD_REACH = 0.05  # within reach in fewer than 5% of the unrestricted players' games: nobody can afford it
RARELY_TAKEN = 0.15  # taken in fewer than 15% of the games it was within reach: a good player passes it over
ARM = "forbid"


def arm_settings(
    plan: NoblesPlan, strategy: str, key: str, components: str | None, groups: int | None = None, first_group: int = 0,
    seed: int | None = None,
):  # fmt: skip
    """The arm's run settings; ``seed``: a root seed other than the study's (a repriced variant's fresh setups)."""
    base = _spec_text(strategy)
    spec = plan.spec
    settings = spec.settings(
        games=(groups or spec.groups) * plan.players, players=plan.players,
        strategies=(f"restricted:base={base},forbid={key}",)
        + (f"restricted:base={base},watch={key}",) * (plan.players - 1),
        format="fixed", rotate_seats=True, components=components, first_group=first_group,
    )  # fmt: skip
    return settings if seed is None else replace(settings, seed=seed)


@dataclass
class Arm:
    """One subject's forbid arm at one skill level, played look by look; ``state``: open, decided (stopped at a
    decided look), played (every look, still undecided) or budget (stopped undecided by the study's budget)."""

    strategy: str
    subject: str
    key: str
    comps: ComponentSet
    components: str | None
    tag: str
    runs: list = field(default_factory=list)  # the looks' readings (:class:`LookReading`), read once each
    row: dict = field(default_factory=dict)
    state: str = "open"
    groups: int = 0  # groups of the looks played
    title: str = ""  # the arm's name in the progress lines, where its tag does not say it (a balance search's hash)
    seed: int | None = None  # the root seed of its setups; None: the study's (a repriced variant has its own)
    stops: bool = True  # stops at its first decided look; a repriced variant plays every look (``price_line``)

    @property
    def label(self) -> str:
        """The subject, and its price for a repriced variant's arm (tag ``N17-gold3``)."""
        return self.title or (self.key if self.tag == "base" else self.tag)


@dataclass
class Budget:
    """The games a study may play (``limit``, None: no cap) and what its arms' looks have cost so far, whether
    played in this session or read from an earlier one (so a rerun with the same budget stops at the same place,
    and one with a larger budget carries on from there)."""

    limit: int | None = None
    spent: int = 0
    exhausted: bool = False

    def take(self, games: int) -> bool:
        """Spend ``games`` if they fit; once a look does not fit, the budget is spent for every arm."""
        if self.exhausted or (self.limit is not None and self.spent + games > self.limit):
            if not self.exhausted:
                progress.info("the budget of %s games is spent (%s played or read): the open arms stop undecided",
                              f"{self.limit:,}", f"{self.spent:,}")  # fmt: skip
            self.exhausted = True
            return False
        self.spent += games
        return True


def play_rounds(plan: NoblesPlan, ledger: Ledger, out: Path, arms: list[Arm], budget: Budget | None = None) -> None:
    """Play the arms look by look in rounds: every open arm's next look, then the next round. An arm stops at its
    first decided look; when the next look would overrun the budget, the study stops and every open arm says so."""
    budget = budget if budget is not None else Budget()
    sizes = plan.look_sizes()
    for look, groups in enumerate(sizes):
        for arm in arms:
            if arm.state != "open":
                continue
            if not budget.take(groups * plan.players):
                arm.state = "budget"
                continue
            play_look(plan, ledger, out, arm, look)
            if arm.stops and arm.row["verdict"] != "undecided":
                arm.state = "decided"
            elif look == len(sizes) - 1:
                arm.state = "played"
    for arm in arms:
        finish_row(plan, arm)
        if arm.state == "decided":
            drop_later_looks(out, arm)


def drop_later_looks(out: Path, arm: Arm) -> None:
    """Remove the looks after the one a decided arm stopped at. Only a run of other code or settings leaves them
    (the same games decide at the same look): kept, they would be published with the study's evidence, fail every
    verification, and be read as this study's by the ladder's values (``subject_runs``)."""
    d = arm_dir(out, arm.strategy, arm.tag, f"{ARM}-{arm.key}")
    for later in sorted(d.glob("look-*")):
        number = later.name.removeprefix("look-")
        if later.is_dir() and number.isdigit() and int(number) > arm.row["looks"]:
            progress.info("%s: %s was decided at look %d; look %s, left by another run, removed", arm.strategy,
                          arm.label, arm.row["looks"], number)  # fmt: skip
            shutil.rmtree(later)


def play_look(plan: NoblesPlan, ledger: Ledger, out: Path, arm: Arm, look: int) -> None:
    """Play (or read) look ``look`` of the arm (a run of its own with --looks, the arm's only run without) and make
    its row from every look so far, at that look's level."""
    sizes = plan.look_sizes()
    parts = (f"{ARM}-{arm.key}",) if plan.looks == 1 else (f"{ARM}-{arm.key}", f"look-{look + 1}")
    d = arm_dir(out, arm.strategy, arm.tag, *parts)
    settings = arm_settings(plan, arm.strategy, arm.key, arm.components, sizes[look], sum(sizes[:look]), arm.seed)
    before = ledger.played_now.get(arm.strategy, 0)
    ledger.play(plan.spec, arm.strategy, settings, d)
    arm.runs.append(LookReading.of(open_run(d)))  # a finished look never changes: read once, not at every look
    arm.groups += sizes[look]
    arm.row = subject_row(plan, arm.runs, arm.subject, arm.key, arm.strategy, arm.comps, plan.look_confidence(look))
    arm.row["looks"] = look + 1
    if ledger.played_now.get(arm.strategy, 0) > before:
        row = arm.row
        why = f" ({reading(row)})" if row["reason"] in ("dead", "passed over") else ""  # not the value's interval
        progress.info("%s: %s after look %d of %d (%s groups): %s pp %s, %s%s", arm.strategy, arm.label, look + 1,
                      len(sizes), f"{arm.groups:,}", render.pp(row["effect"]), render.ci_text(row["ci"]),
                      row["verdict"], why)  # fmt: skip


def finish_row(plan: NoblesPlan, arm: Arm) -> None:
    """The arm's row as the study ends: the games it cost and why it stopped (an arm the budget stopped before its
    first look gets a row of no groups)."""
    if not arm.row:
        arm.row = subject_row(plan, [], arm.subject, arm.key, arm.strategy, arm.comps, plan.look_confidence(0))
        arm.row["looks"] = 0
    row = arm.row
    row["games"] = arm.groups * plan.players
    row["stopped"] = arm.state
    if arm.state == "budget":
        why = row.get("evidence")
        row["evidence"] = f"budget spent after {arm.groups} groups" + (f"; {why}" if why else "")
        row["reading"] = reading(row)


def play_subject(
    plan: NoblesPlan, ledger: Ledger, out: Path, strategy: str, subject: str, key: str, comps: ComponentSet,
    components: str | None, tag: str, title: str = "",
) -> dict:  # fmt: skip
    """Play (or read) one subject's forbid arm and return its row. With ``plan.looks`` > 1 the arm is played in that
    many batches of groups (each a run of its own), and it stops at the first look whose verdict is decided."""
    arm = Arm(strategy, subject, key, comps, components, tag, title=title)
    play_rounds(plan, ledger, out, [arm])
    return arm.row


@dataclass(frozen=True)
class LookReading:
    """What a verdict row needs from one look's run: the forbidden focus's win share per complete group and the
    watching players' notes (``notes_rates``). A study reads each look once and keeps this, instead of reading
    every earlier look's Parquet again at each look."""

    wins: np.ndarray
    rates: dict[str, dict[str, float]]
    reached: np.ndarray = field(default_factory=lambda: np.empty(0))  # per group: watcher seat-games within reach
    taken: np.ndarray = field(default_factory=lambda: np.empty(0))  # per group: watcher seat-games that took it

    @classmethod
    def of(cls, run) -> LookReading:
        groups = focus_groups(run)
        notes = groups.select("group").join(notes_by_group(run), on="group", how="left").fill_null(0)
        return cls(groups["win"].to_numpy(), notes_rates(run), notes["reachable"].to_numpy().astype(float),
                   notes["taken"].to_numpy().astype(float))  # fmt: skip


def _readings(runs: list) -> list[LookReading]:
    return [r if isinstance(r, LookReading) else LookReading.of(r) for r in runs]


def subject_runs(out: Path, strategy: str, key: str, tag: str = "base") -> list:
    """The runs of a subject's forbid arm that were played (one, or one per look)."""
    d = arm_dir(out, strategy, tag, f"{ARM}-{key}")
    looks = sorted(p for p in d.glob("look-*") if p.is_dir()) if d.is_dir() else []
    return [open_run(p) for p in looks] if looks else [open_run(d)]


def forbidden_values(out: Path, players: int) -> Callable[[str, str], pl.DataFrame]:
    """A subject's value per setup at a rung (1/P - the forbidden focus's win share), for the ladder."""

    def values(rung: str, key: str) -> pl.DataFrame:
        groups = pl.concat([focus_groups(run) for run in subject_runs(out, rung, key)])
        return groups.select("group", (1.0 / players - pl.col("win")).alias("value"))

    return values


def group_values(runs: list, players: int) -> np.ndarray:
    """1/P - the forbidden focus's win share, per group: what having the subject available is worth (0: forbidding
    it changed nothing in that group). ``runs``: the looks' runs or their readings (:class:`LookReading`)."""
    if not runs:
        return np.empty(0)
    wins = np.concatenate([r.wins for r in _readings(runs)])
    return 1.0 / players - wins


def value_range(players: int) -> tuple[float, float]:
    """Where a group's value lies: 1/P less a win share between 0 and 1."""
    return 1.0 / players - 1.0, 1.0 / players


def value_estimate(runs: list, players: int, confidence: float = 0.95) -> Estimate:
    """The mean of ``group_values`` with its t interval (cut to their range)."""
    return mean_interval(group_values(runs, players), confidence, value_range(players))


def take_rates(runs: list) -> dict:
    """Within reach and taken, from the watching players' notes (``notes_rates``, over every run of the arm), and
    the focus's reach. ``runs``: the looks' runs or their readings (:class:`LookReading`)."""
    looks = _readings(runs)
    total = {"others": [0.0, 0.0, 0], "focus": [0.0, 0.0, 0]}  # reachable, taken (seat-game counts), seat-games
    for look in looks:
        for role, r in look.rates.items():
            if r["seat_games"] and np.isfinite(r["reachable"]):
                total[role][0] += r["reachable"] * r["seat_games"]
                total[role][1] += r["taken"] * r["seat_games"]
                total[role][2] += r["seat_games"]
    reached, took, seat_games = total["others"]
    reach = reached / seat_games if seat_games else float("nan")
    taken = took / seat_games if seat_games else float("nan")
    focus_reach = total["focus"][0] / total["focus"][2] if total["focus"][2] else float("nan")
    noted = [look for look in looks if len(look.reached) == len(look.wins)]  # the looks with notes per group
    per_group = np.concatenate([look.reached for look in noted]) if noted else np.empty(0)
    took_group = np.concatenate([look.taken for look in noted]) if noted else np.empty(0)
    hit = per_group > 0
    return {
        "within_reach": _rate(reach), "taken": _rate(taken),
        "taken_when_within_reach": _rate(took / reached) if reached > 0 else None,
        "seat_games": seat_games, "reached": int(round(reached)), "focus_within_reach": _rate(focus_reach),
        "groups": sum(len(look.wins) for look in looks),
        # counted in groups (the unit of the bounds): those with notes, those in which it came within reach of a
        # watching player, and the sum over those of the share of their within-reach seat-games that took it
        "groups_noted": int(len(per_group)), "groups_reached": int(hit.sum()),
        "taken_in_groups": round(float(np.sum(took_group[hit] / per_group[hit])), 6),
    }  # fmt: skip


def _rate(x: float) -> float | None:
    return round(float(x), 4) if np.isfinite(x) else None


def upper_bound(x: float, n: int, confidence: float = 0.95) -> float:
    """The one-sided upper ``confidence`` bound (Clopper-Pearson) of a share with ``x`` successes in ``n`` trials
    (``x`` may be a sum of per-trial shares: each trial's share in [0, 1] varies no more than a 0/1 outcome with
    its mean). 0 of 2 bounds it below 78%; 0 of 59 below 5%; 0 of 19 below 15%."""
    if n <= 0 or x >= n:
        return 1.0
    return float(sstats.beta.ppf(confidence, max(x, 0.0) + 1, n - max(x, 0.0)))


def groups_needed(share: float, line: float, have: int, confidence: float) -> int | None:
    """How many trials in all a share of ``share`` needs before its ``upper_bound`` falls below ``line`` (None: it
    never does, the share itself is not below the line); at least ``have``."""
    if not share < line:
        return None
    if upper_bound(share * have, have, confidence) < line:
        return have
    low, high = max(have, 1), max(have, 1) * 2
    while upper_bound(share * high, high, confidence) >= line:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if upper_bound(share * mid, mid, confidence) >= line else (low, mid)
    return high


def take_bounds(rates: dict, confidence: float = 0.95) -> dict:
    """The take rates' bounds, counted in groups (the seat-games of a group share its setup: a noble out of reach
    in one seat of a setup is mostly out of reach in the others), at the row's ``confidence``:

    - ``reach_bound``: of the share of groups in which the noble came within reach of a watching player (dead when
      below ``DEAD_REACH``);
    - ``taken_bound``: of the share taken when within reach, each group in which it came within reach weighing one
      (its within-reach seat-games' share that took it); passed over when below ``RARELY_TAKEN``;
    - ``dead_needs`` / ``passed_over_needs``: how many more groups (groups within reach, for passed over) the rule
      needs at the shares seen before it can say so (None: it cannot, or it already does)."""
    groups, reached = rates.get("groups_noted", 0), rates.get("groups_reached", 0)
    taken = rates.get("taken_in_groups", 0.0)
    reach_bound = upper_bound(reached, groups, confidence) if groups else 1.0
    taken_bound = upper_bound(taken, reached, confidence) if reached else 1.0
    out = {"reach_bound": reach_bound, "taken_bound": taken_bound, "dead_needs": None, "passed_over_needs": None}
    if groups and reach_bound >= DEAD_REACH:
        need = groups_needed(reached / groups, DEAD_REACH, groups, confidence)
        out["dead_needs"] = None if need is None else need - groups
    if reach_bound >= DEAD_REACH and taken_bound >= RARELY_TAKEN:
        share = taken / reached if reached else 0.0
        need = groups_needed(share, RARELY_TAKEN, max(reached, 1), confidence)
        out["passed_over_needs"] = None if need is None else need - reached
    return out


def min_reached(confidence: float = 0.95) -> int:
    """The fewest groups within reach with which passed over can be read at all (none of them taking it)."""
    return groups_needed(0.0, RARELY_TAKEN, 1, confidence) or 1


def read_verdict(verdict: str, rates: dict, confidence: float = 0.95) -> tuple[str, str]:
    """The verdict with the take rates: (verdict, reason). A favoured value stands; otherwise a noble surely dead or
    surely passed over (``take_bounds`` below ``DEAD_REACH`` or ``RARELY_TAKEN``, counted in groups, at the rows'
    confidence: a look's own level, so a verdict stopping a look stays inside the looks' error control, and a
    noble is not called passed over from the few groups of a strict first look) is overpriced (disfavoured)."""
    if verdict == "favoured":
        return verdict, "value"
    bounds = take_bounds(rates, confidence)
    if bounds["reach_bound"] < DEAD_REACH:
        return "disfavoured", "dead"
    if bounds["taken_bound"] < RARELY_TAKEN:
        return "disfavoured", "passed over"
    return verdict, "value" if verdict != "undecided" else ""


def reading(row: dict) -> str:
    """The verdict in a designer's words; a take-rate verdict with its bound (counted in groups, at the row's
    level), an undecided row with how many more groups each rule needs."""
    r = row["rates"]
    reach = "–" if r["within_reach"] is None else f"{100 * r['within_reach']:.0f}%"
    when = "–" if r["taken_when_within_reach"] is None else f"{100 * r['taken_when_within_reach']:.0f}%"
    at = render.level(row["confidence"])
    value = f"{render.pp(row['effect'])} pp ({at} interval {render.ci_text(row['ci'])})"
    bounds = row.get("take_bounds") or {}
    if row["reason"] == "dead":
        return (f"overpriced, dead: within reach in {r.get('groups_reached', 0)} of {r.get('groups_noted', 0)} "
                f"groups (upper {at} bound {_pct(bounds.get('reach_bound'))}), {reach} of games")  # fmt: skip
    if row["reason"] == "passed over":
        return (f"overpriced: within reach in {reach} of games but taken in only {when} of those (counted in the "
                f"{r.get('groups_reached', 0)} groups within reach: upper {at} bound "
                f"{_pct(bounds.get('taken_bound'))})")  # fmt: skip
    if row["verdict"] == "favoured":
        return f"underpriced: having it is worth {value} of win share"
    if row["verdict"] == "disfavoured":
        return f"overpriced: forbidding it helps, {value}"
    if row["verdict"] == "balanced":
        return f"fair: worth {value}, taken in {when} of the games within reach"
    needs = []
    value_needs = differing_needs(row)
    if value_needs:
        needs.append(f"the value needs about {value_needs:,} more groups at this share of differing groups")
    if bounds.get("dead_needs"):
        needs.append(f"dead needs {bounds['dead_needs']:,} more groups at this reach")
    if bounds.get("passed_over_needs"):
        needs.append(f"passed over needs {bounds['passed_over_needs']:,} more groups within reach at this take rate")
    more = f"; {'; '.join(needs)}" if needs else ""
    if row.get("evidence"):
        return f"undecided: {row['evidence']} (worth {value}){more}"
    return f"undecided: worth {value}; more groups would tell{more}"


def differing_needs(row: dict) -> int | None:
    """About how many more groups the value's evidence rule needs (``min_differing`` differing groups) at the share
    of groups that differed so far; None when it has enough, or when no group has differed yet (no share to go by)."""
    differ, need, groups = row.get("differing_groups", 0), row.get("min_differing", 0), row.get("n_groups", 0)
    if differ >= need or differ <= 0:
        return None
    return int(np.ceil(need * groups / differ)) - groups


def compute(
    plan: NoblesPlan, out: Path, ledger: Ledger | None = None, budget: Budget | None = None,
    before_repricing: Callable[[list[dict], list[str]], object] | None = None,
) -> tuple[list[dict], list[dict]]:  # fmt: skip
    """Play (or read) the arms, in rounds of looks up to ``plan.budget`` games; returns the verdict rows and the
    price lines (``budget``: what the study spent, for its page). ``before_repricing`` gets the rows and the nobles
    to reprice once the rows are final and before their variants play (the study writes its pages then: the
    repricing can take as long again, and a study stopped in it keeps its verdicts readable)."""
    spec = plan.spec
    comps = load_components(spec.base.components)
    plan.check(comps)
    ledger = ledger if ledger is not None else Ledger()
    budget = budget if budget is not None else Budget(plan.budget)
    budget.limit = plan.budget
    arms = [Arm(strategy, subject, key, comps, spec.base.components, "base")
            for strategy in spec.strategies for subject, key in plan.all_subjects(comps)]  # fmt: skip
    play_rounds(plan, ledger, out, arms, budget)
    rows = [arm.row for arm in arms]
    render.mark_robust(rows, by=("subject", "key"))
    pending = to_reprice(plan, rows)
    if pending and before_repricing is not None:
        before_repricing(rows, pending)
    lines = reprice(plan, comps, rows, out, ledger, budget)
    return rows, lines


def subject_row(
    plan: NoblesPlan, runs: list, subject: str, key: str, strategy: str, comps: ComponentSet,
    confidence: float | None = None,
) -> dict:  # fmt: skip
    """A subject's verdict row from the runs of its looks so far, its interval at ``confidence`` (the look's level;
    default the last look's)."""
    confidence = plan.look_confidence(len(plan.look_sizes()) - 1) if confidence is None else confidence
    values = group_values(runs, plan.players)
    est = mean_interval(values, confidence, value_range(plan.players))
    noble = comps.nobles[comps.noble_index[key]] if subject == "noble" else None
    rates = take_rates(runs)
    row = render.row(subject, key, strategy, est, plan.spec.margin, values, confidence, rates=rates,
                     gold=noble.gold if noble else None, seals=[noble.violet, noble.turquoise] if noble else None,
                     points=noble.points if noble else None)  # fmt: skip
    row["se"] = None if not np.isfinite(est.se) else round(100 * est.se, 6)  # pp: the price line's weights
    row["value_verdict"] = row["verdict"]
    row["verdict"], row["reason"] = read_verdict(row["verdict"], rates, confidence)
    row["take_bounds"] = {k: v if v is None or isinstance(v, int) else round(v, 4)
                          for k, v in take_bounds(rates, confidence).items()}  # fmt: skip
    row["reading"] = reading(row)
    return row


def to_reprice(plan: NoblesPlan, rows: list[dict]) -> list[str]:
    nobles = list(dict.fromkeys(r["key"] for r in rows if r["subject"] == "noble"))
    if plan.reprice == "none":
        return []
    if plan.reprice == "all":
        return nobles
    if plan.reprice == "decided":
        decided = {r["key"] for r in rows if r["subject"] == "noble" and r["verdict"] in ("favoured", "disfavoured")}
        return [n for n in nobles if n in decided]
    return [n for n in plan.reprice.split(",") if n]


def reprice_seed(plan: NoblesPlan, offset: int) -> int:
    """The root seed of the variant at gold + ``offset``: setups of its own, other than the base arm's (whose verdict
    selected the noble for repricing: a point on its setups would carry that selection into the line) and other
    than every other price's (the line's fit takes its points as independent)."""
    return plan.spec.seed + REPRICE_SEED_OFFSET * (1 + sorted(plan.offsets).index(offset))


def reprice(
    plan: NoblesPlan, comps: ComponentSet, rows: list[dict], out: Path, ledger: Ledger, budget: Budget | None = None
) -> list[dict]:  # fmt: skip
    """Play the repriced nobles' variants (in rounds of looks, from what is left of the budget) and fit their price
    lines, each price on setups of its own (``reprice_seed``)."""
    spec = plan.spec
    arms: dict[tuple[str, str, int], Arm] = {}
    for noble in to_reprice(plan, rows):
        gold = comps.nobles[comps.noble_index[noble]].gold
        for offset in sorted(plan.offsets):
            price = gold + offset
            if price < 0:
                continue
            path = out / "components" / f"{noble}-gold{price}.toml"
            note = f"{comps.name} with {noble} at {price} gold instead of {gold} (palais study nobles)"
            variant_path = str(write_variant(repriced(comps, noble, price), path, note))
            variant = load_components(variant_path)
            for strategy in spec.strategies:
                arms[(noble, strategy, price)] = Arm(strategy, "noble", noble, variant, variant_path,
                                                     f"{noble}-gold{price}", seed=reprice_seed(plan, offset),
                                                     stops=False)  # fmt: skip
    play_rounds(plan, ledger, out, list(arms.values()), budget)
    lines = []
    for noble in dict.fromkeys(n for n, _s, _p in arms):
        gold = comps.nobles[comps.noble_index[noble]].gold
        for strategy in spec.strategies:
            variants = {p: arm.row for (n, s, p), arm in arms.items() if (n, s) == (noble, strategy)}
            lines.append(price_line(noble, strategy, gold, variants))
    return lines


def price_line(noble: str, strategy: str, gold: int, variants: dict[int, dict]) -> dict:
    """A noble's price line at one skill level from its variants' rows by price. The base row (the printed price on
    the study's setups) is not a point: it selected the noble for repricing (``--reprice decided``), so its value
    is biased away from 0 among the nobles repriced, and the line's interval would cover the fair price in 77-93% of
    studies instead of 95%. The variants play every look (an arm stopped at its first decided look has a value
    biased away from 0 too) on setups of their own (``reprice_seed``): their points are independent of the
    selection and of each other, as the fit takes them (``tests/test_interval_coverage.py``)."""
    points = sorted((price_point(p, row) for p, row in variants.items()), key=lambda p: p["price"])
    return {"noble": noble, "strategy": strategy, "gold": gold, "points": points, **fit_line(points)}


def price_point(price: int, row: dict) -> dict:
    """One point of a price line from a verdict row: its value with the standard error of that value (carried as
    such: the row's interval is at the looks' confidence, so its width is not 2 x 1.96 se)."""
    keys = ("effect", "se", "ci", "n_groups", "verdict", "reason")
    return {"price": price, **{k: row.get(k) for k in keys}}


def fit_line(points: list[dict]) -> dict:
    """Weighted least squares of effect (pp) on price, weights 1/se^2 (each point's own standard error); the fair
    price is where the line crosses 0, with Fieller's 95% interval, given only when the slope's 95% interval lies
    below 0. Each point's se is the one its estimate was made with, whatever the confidence of its verdict."""
    ok = [p for p in points if p["effect"] is not None and p.get("se") is not None]
    none = {"slope": None, "slope_ci": [None, None], "intercept": None, "fair_price": None, "fair_price_ci": None}
    # a point of identical games (a noble nobody reaches: forbidding it changes nothing) has no spread and says
    # nothing about the slope: left out
    ok = [p for p in ok if p["se"] > 0]
    if len(ok) < 2:
        return none
    x = np.array([p["price"] for p in ok], dtype=float)
    y = np.array([p["effect"] for p in ok], dtype=float)
    se = np.array([p["se"] for p in ok], dtype=float)
    if np.ptp(x) == 0:
        return none
    line = weighted_line(x, y, se)
    fair = line.root if line.slope_ci[1] < 0 else None
    return {
        "slope": round(line.slope, 4), "slope_ci": [round(v, 4) for v in line.slope_ci],
        "intercept": round(line.intercept, 4), "fair_price": None if fair is None else round(fair, 3),
        "fair_price_ci": None if fair is None or line.root_ci is None else [round(v, 3) for v in line.root_ci],
    }  # fmt: skip


def price_words(line: dict) -> str:
    """The price line in a designer's words: how far the printed price is from the fair one, with its interval."""
    fair, ci, gold = line["fair_price"], line.get("fair_price_ci"), line["gold"]
    if fair is None or ci is None:
        return "no fair price: the value does not surely fall with the price over the prices tried"
    where = f"fair price {fair:.1f} gold, 95% interval [{ci[0]:.1f}, {ci[1]:.1f}]"
    if ci[0] > gold:
        return f"underpriced by about {fair - gold:.1f} gold ({where})"
    if ci[1] < gold:
        return f"overpriced by about {gold - fair:.1f} gold ({where})"
    return f"priced right within the interval ({where})"


def _by_price(line: dict) -> str:
    return "; ".join(f"{p['price']}: {render.pp(p['effect'])} ({p['verdict']})" for p in line["points"])


def _forest_label(row: dict) -> str:
    reason = f" - {row['reason']}" if row["reason"] in ("dead", "passed over") else ""
    return f"{row['key']}  ({row['strategy']}){reason}"


def _per_decided(rows: list[dict]) -> float | None:
    decided = sum(r["verdict"] != "undecided" for r in rows)
    return round(sum(r["games"] for r in rows) / decided, 1) if decided else None


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def design_text(plan: NoblesPlan, rows: list[dict], budget: Budget) -> str:
    """The page's account of the looks (the spending boundary and each look's level), the budget and the games per
    decided row."""
    text = ""
    if plan.looks > 1:
        sizes = plan.look_sizes()
        levels = ", ".join(f"{c:.2f} ({render.level(plan.look_confidence(k))})" for k, c in enumerate(plan.bounds()))
        shape = {"obf": "O'Brien-Fleming", "pocock": "Pocock"}[plan.spending]
        text += (
            f" Each subject's arm is played in up to {len(sizes)} looks of {sizes[0]} groups and stops at the first "
            "decided one. Each look's interval is the **repeated 95% confidence interval** of an alpha-spending "
            f"design (Lan-DeMets, {shape} shape: the 5% error spent over the looks by information fraction, "
            "computed from the joint normal of the looks' statistics): the value +- c standard errors, with "
            f"critical values c by look {levels}; the intervals of all looks hold the true values together 95% of "
            "the time, so a verdict read at any look keeps its 95%. A look decides only with the differing groups "
            f"its level needs ({', '.join(str(min_differing(plan.look_confidence(k))) for k in range(len(sizes)))})."
        )
    if plan.budget is not None:
        text += (
            f" The arms are played in rounds (every undecided subject's next look, then the next round) up to a "
            f"budget of {plan.budget:,} games: {budget.spent:,} spent"
            + ("; the budget stopped the study, and the rows it left undecided say so." if budget.exhausted else ".")
        )
    decided = sum(r["verdict"] != "undecided" for r in rows)
    per = _per_decided(rows)
    cost = "no row decided" if per is None else f"{per:,.0f} games per decided row"
    games = sum(r["games"] for r in rows)
    return text + f" The verdicts cost {games:,} games for {decided} decided rows of {len(rows)}: {cost}."


def run_study(plan: NoblesPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    budget = Budget(plan.budget)

    def interim(rows: list[dict], pending: list[str]) -> None:
        write_study(plan, out, ledger, budget, rows, [], pending)

    rows, lines = compute(plan, out, ledger, budget, interim)
    return write_study(plan, out, ledger, budget, rows, lines)


def write_study(
    plan: NoblesPlan, out: Path, ledger: Ledger, budget: Budget, rows: list[dict], lines: list[dict],
    repricing: list[str] | None = None,
) -> dict[str, Path]:  # fmt: skip
    """The study's page, charts and study.json; with ``repricing`` (the nobles whose variants are still to play),
    the page written before the price lines, which says so."""
    spec = plan.spec
    # the rungs' ratings first: the header's games table counts them
    rungs = ladder.strengths(spec, spec.strategies, plan.elo_groups, plan.players, out, ledger) if plan.ladder else []
    page = render.Page("Noble balance: what each noble is worth at its price")
    header(page, spec, ledger, (
        f"{plan.players} players. For each noble and each privilege kind, at each skill level: the focus player is "
        "forbidden it, against the skill level itself in the other seats, on the same setups in every seating. "
        "**Value** = what being forbidden it costs, in percentage points of win share (1/P - the focus's share): "
        f"what having the noble available is worth. Above +{spec.margin:g} pp it is **underpriced** (favoured); below "
        f"-{spec.margin:g} pp, forbidding it helps: **overpriced** (disfavoured). A noble worth less than it costs is "
        "one a good player leaves alone, so its value is about 0: the take rates of the unrestricted players tell "
        f"it apart. Within reach surely in fewer than {DEAD_REACH:.0%} of their games (the upper bound of its share, "
        "counted in setups): **dead**; taken in fewer than "
        f"{RARELY_TAKEN:.0%} of the games it was within reach: **passed over**. Both are overpriced."
        + design_text(plan, rows, budget)
    ), plan.confidence, MORE_LOOKS if plan.looks > 1 else MORE_GROUPS)  # fmt: skip
    for subject, title in (("privilege", "Privilege kinds (every noble of the kind)"), ("noble", "Nobles")):
        mine = [r for r in rows if r["subject"] == subject]
        if not mine:
            continue
        page.h(title)
        cols = render.verdict_columns(subject, confidence=plan.confidence, looks=plan.looks)
        if subject == "noble":
            cols.insert(1, ("price", lambda r: f"{r['gold']} gold, {r['seals'][0]}+{r['seals'][1]} seals, "
                                               f"{r['points']} pts"))  # fmt: skip
        cols[cols.index(next(c for c in cols if c[0] == "effect (pp)"))] = (
            "value (pp)",
            lambda r: render.pp(r["effect"]),
        )
        cols.insert(-2, ("within reach", lambda r: _pct(r["rates"]["within_reach"])))
        cols.insert(-2, ("taken when within reach", lambda r: _pct(r["rates"]["taken_when_within_reach"])))
        if plan.looks > 1:
            cols.insert(-2, ("games (looks)", lambda r: f"{r['games']:,} ({r['looks']})"))
        else:
            cols.insert(-2, ("games", lambda r: f"{r['games']:,}"))
        cols.append(("reading", lambda r: r["reading"]))
        level = render.level_order(spec.strategies)
        page.table(sorted(mine, key=lambda r: (r["key"], level(r["strategy"]))), cols)
        name = f"forest_{subject}"
        fig = charts.forest(mine, f"{title}: the value of having it (pp of win share)", spec.margin,
                            label=_forest_label, xlabel="value: 1/P - win share when forbidden it (pp)")  # fmt: skip
        caption = (
            f"{title}: value with its {interval_name(plan)}, every one labelled; band = "
            f"+-{spec.margin:g} pp. Colour: "
            "the verdict with the take rates (a dead or passed-over noble is overpriced at a value near 0)."
        )
        page.chart(name, charts.save(fig, out / "charts", name), caption)
    if repricing:
        page.h("Price lines")
        page.p(f"Still to play: the repriced variants of {', '.join(repricing)} (gold {_offsets(plan)}). This page "
               "has the final verdicts; the same command carries on with the variants and writes it again with "
               "their price lines.")  # fmt: skip
    if lines:
        page.h("Price lines")
        page.p("Each repriced noble played again at other gold costs (component-set variants in components/), each "
               "price on setups of its own and through every look; the base row that selected the noble is not a "
               "point of its line (its value is biased by that selection). Slope: pp of value per gold; the price "
               "at which having it stops being worth more than it costs is where the line crosses 0 (shown when the "
               "slope is surely negative), with its 95% interval. Decided verdicts by price must not rise with the "
               "price.")  # fmt: skip
        page.table(lines, [
            ("noble", lambda r: r["noble"]), ("skill level", lambda r: f"`{r['strategy']}`"),
            ("gold", lambda r: str(r["gold"])),
            ("value by price (pp)", _by_price),
            ("slope per gold [95%]", lambda r: f"{render.pp(r['slope'])} {render.ci_text(r['slope_ci'])}"),
            ("at its printed price", price_words),
        ])  # fmt: skip
        for noble in dict.fromkeys(line["noble"] for line in lines):
            series = {line["strategy"]: line for line in lines if line["noble"] == noble}
            name = f"price_{noble}"
            fig = charts.price_lines(
                series,
                f"{noble}: value of having it by gold cost",
                spec.margin,
                "gold cost (dotted: worth its cost there)",
            )
            caption = f"{noble}: value (pp) at each gold cost, per skill level, with the fitted line."
            page.chart(name, charts.save(fig, out / "charts", name), caption)
    ladder_doc = None
    if plan.ladder:
        keys = list(dict.fromkeys((r["subject"], r["key"]) for r in rows))
        settling = ladder.subject_settling(keys, forbidden_values(out, plan.players), spec)
        ladder_doc = ladder.subject_section(page, spec, rows, settling, plan.players, plan.elo_groups, out, rungs,
                                            "value", "value: 1/P - win share when forbidden it (pp)")  # fmt: skip
    page.h("Across skill levels")
    robust_rows = [r for r in rows if r["robust"]]
    split = {}
    for r in rows:
        split.setdefault((r["subject"], r["key"]), set()).add(r["verdict"])
    differ = sorted(k for (_s, k), v in split.items() if len(v) > 1)
    seen = sorted({(r["key"], r["verdict"]) for r in robust_rows})
    page.p(f"Robust verdicts (every skill level agrees): {', '.join(f'{k} {v}' for k, v in seen) or 'none'}. "
           f"Subjects whose verdicts differ between skill levels: {', '.join(differ) or 'none'}.")  # fmt: skip
    document = {
        "study": "nobles", "command": spec.command, "seed": spec.seed, "groups": spec.groups,
        "margin_pp": spec.margin, "players": plan.players, "strategies": list(spec.strategies),
        "rules": spec.rule_dict(), "components_hash": load_components(spec.base.components).hash,
        "games": ledger.to_dict(), "rows": rows, "price_lines": lines,
        "looks": plan.looks, "confidence": plan.confidence, "spending": plan.spending,
        "look_groups": list(plan.look_sizes()), "bounds": list(plan.bounds()),
        "look_confidences": [plan.look_confidence(k) for k in range(len(plan.look_sizes()))],
        "budget": plan.budget, "games_spent": budget.spent, "budget_exhausted": budget.exhausted,
        "games_per_decided_row": _per_decided(rows),
        "thresholds": {"dead_within_reach": DEAD_REACH, "rarely_taken": RARELY_TAKEN,
                       "min_reached_groups": min_reached(plan.confidence)},
    }  # fmt: skip
    if repricing:
        document["repricing_to_play"] = repricing
    if ladder_doc is not None:
        document["ladder"] = ladder_doc
    return render.write(out, page, document)


def interval_name(plan: NoblesPlan) -> str:
    """The rows' interval as the page's tables name it ("95% interval"; with looks, the repeated one, each at its
    look's level)."""
    return render.interval_column(plan.confidence, plan.looks)[0].replace(" (pp)", "")


def _offsets(plan: NoblesPlan) -> str:
    return " and ".join(f"{d:+d}" for d in sorted(plan.offsets))
