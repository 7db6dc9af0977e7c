"""``palais study target``: does a longer race (the ``target`` rule option at two values) change seat 1's edge?

For each skill level and player count, two mirror arms (the skill level in every seat, no seat rotation) on the same
setups (the groups 0..G-1 of the root seed, one game each: the same deals in both arms): one at the run's target
(the rule option's value, 15 unless ``--target`` says otherwise), one at a longer target. Seat 1's win share per
setup gives, in each arm, its edge over the fair share 1/P, and, setup by setup, the change a longer race makes:
long - short. **favoured**: a longer race gives seat 1 more than the margin; **disfavoured**: less; **balanced**:
within the margin. Intervals and verdicts are the shared analytics' (``analytics.paired``, ``study.render``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from palais_sim.analytics.paired import focus_groups, mean_interval
from palais_sim.analytics.runs import open_run
from palais_sim.study import charts, render
from palais_sim.study.common import Ledger, StudySpec, arm_dir, header
from palais_sim.tournament.schedule import Settings

STUDY = "target"  # the study's name (`palais study target`)
OPTION = "target"  # the rule option it varies (options.py)
EDGE, LONGER = "seat 1", "longer race"  # the rows' subjects: seat 1's edge at a target, the change a longer one makes


@dataclass(frozen=True)
class TargetPlan:
    spec: StudySpec
    players: tuple[int, ...] = (2, 3, 4)
    longer: int | None = None  # the long arm's target; None: twice the run's

    @property
    def short(self) -> int:
        """The short arm's target: the run's rule option (its default unless given)."""
        return int(self.spec.base.rule_values[OPTION])

    @property
    def long(self) -> int:
        return self.longer if self.longer is not None else 2 * self.short

    def check(self) -> None:
        self.spec.check()
        self.spec.require_game(STUDY)
        game = self.spec.base.game
        if not self.players or any(not game.min_players <= p <= game.max_players for p in self.players):
            raise ValueError(f"--players must be {game.min_players} to {game.max_players} for {game.title} "
                             f"(comma-separated), got {list(self.players)}")  # fmt: skip
        if self.long <= self.short:
            raise ValueError(f"--longer must be above the target ({self.short}), got {self.long}")

    def arm_settings(self, strategy: str, players: int, target: int) -> Settings:
        """A mirror arm: ``strategy`` in every seat, one game per setup, the race to ``target``."""
        return self.spec.settings(games=self.spec.groups, players=players, strategies=(strategy,), format="fixed",
                                  rotate_seats=False, **{OPTION: target})  # fmt: skip


def compute(plan: TargetPlan, out: Path, ledger: Ledger | None = None) -> list[dict]:
    """Play (or read) the arms; returns the verdict rows: seat 1's edge at each target, and long - short."""
    plan.check()
    spec = plan.spec
    ledger = ledger if ledger is not None else Ledger()
    rows: list[dict] = []
    for strategy in spec.strategies:
        for p in plan.players:
            fair = 1.0 / p
            wins = {}
            for target in (plan.short, plan.long):
                d = ledger.play(spec, strategy, plan.arm_settings(strategy, p, target), arm_dir(out, strategy,
                                f"{p}p", f"target-{target}"))  # fmt: skip
                wins[target] = focus_groups(open_run(d)).select("group", pl.col("win").alias(str(target)))
            both = wins[plan.short].join(wins[plan.long], on="group")  # the setups both arms played
            for target in (plan.short, plan.long):
                edge = both[str(target)].to_numpy() - fair
                est = mean_interval(edge, within=(-fair, 1.0 - fair))
                rows.append(render.row(EDGE, target, strategy, est, spec.margin, edge, players=p))
            change = (both[str(plan.long)] - both[str(plan.short)]).to_numpy()
            est = mean_interval(change, within=(-1.0, 1.0))
            rows.append(render.row(LONGER, f"{plan.short} to {plan.long}", strategy, est, spec.margin, change,
                                   players=p))  # fmt: skip
    render.mark_robust(rows)
    return rows


def run_study(plan: TargetPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    rows = compute(plan, out, ledger)
    spec = plan.spec
    page = render.Page(f"{spec.base.game.title}: a longer race and the first seat's edge")
    header(page, spec, ledger, (
        f"Mirror play (the skill level in every seat, no seat rotation), two arms on the same deals: the race to "
        f"{plan.short} (the rule options' target below) and to {plan.long}. *Seat 1* rows: seat 1's win share minus "
        f"1/P in that arm. *Longer race* rows: seat 1's win share at {plan.long} minus at {plan.short}, setup by "
        "setup: **favoured** = a longer race helps seat 1 by more than the margin, **disfavoured** = it costs it."
    ))  # fmt: skip
    key_of = {EDGE: lambda r: f"target {r['key']}", LONGER: lambda r: str(r["key"])}
    for subject in (EDGE, LONGER):
        page.h(subject.capitalize())
        cols = [("players", lambda r: str(r["players"]))] + render.verdict_columns(subject, key_of[subject])
        page.table([r for r in rows if r["subject"] == subject], cols)
    change = [r for r in rows if r["subject"] == LONGER]
    fig = charts.forest(change, f"Seat 1's win share, target {plan.long} - {plan.short} (pp)", spec.margin,
                        label=lambda r: f"{r['players']}p ({r['strategy']})")  # fmt: skip
    caption = f"long - short, 95% intervals, per player count and skill level; band = +-{spec.margin:g} pp."
    page.chart("forest_target", charts.save(fig, out / "charts", "forest_target"), caption)
    robust_rows = sorted({(r["players"], r["verdict"]) for r in change if r["robust"]})
    page.h("Across skill levels")
    page.p("Robust verdicts of a longer race (every skill level agrees): "
           f"{', '.join(f'{p}p {v}' for p, v in robust_rows) or 'none'}.")  # fmt: skip
    document = {
        "study": STUDY, "game": spec.base.game.name, "command": spec.command, "seed": spec.seed,
        "groups": spec.groups, "margin_pp": spec.margin, "players": list(plan.players),
        "strategies": list(spec.strategies), "targets": [plan.short, plan.long], "rules": spec.rule_dict(),
        "games": ledger.to_dict(), "rows": rows,
    }  # fmt: skip
    return render.write(out, page, document)
