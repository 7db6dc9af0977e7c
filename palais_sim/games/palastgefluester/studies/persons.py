"""``palais study persons``: restricted play per person of Palastgeflüster (Jaffe et al. 2012).

For each person X and skill level S, two arms on the same setups and seatings, each with the focus player against
P-1 copies of S (seats rotated):

- *without*: the focus is S forbidden to play X while another card keeps the round going for it
  (``restricted:base=S,forbid=X``; X is played only to escape a repeat: every card is a way out of a repeat, and
  forbidding X outright would measure the worth of one more safe card, alike for every person);
- *with*: the focus is S made to play X whenever its hand holds one it can lay out without ending the round against
  itself (``restricted:base=S,eager=X``: not a person already in its display, not the Hofnarr under the Hofnarr king).

The verdict's effect is *with - without*, group by group: how much win share a player gains by playing X whenever
it can rather than never. A person whose action is worth more than the card slot it takes gives a positive effect
(**favoured**: strong), one worth less a negative one (**disfavoured**: weak), a fair one about 0. The *without* arm
alone (against 1/P) is the share lost when forbidden the person, shown beside the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from palais_sim.analytics.paired import Estimate, focus_groups, mean_interval, paired_difference
from palais_sim.analytics.runs import open_run
from palais_sim.games.palastgefluester.components import PERSON_IDS, load_pg_components
from palais_sim.study import charts, ladder, render
from palais_sim.study.common import Ledger, StudySpec, arm_dir, header


@dataclass(frozen=True)
class PersonsPlan:
    spec: StudySpec
    players: int = 4
    subjects: tuple[str, ...] | None = None  # person ids; None: all seven
    ladder: bool = False  # the skill levels are a strength ladder (``study.ladder``): rung strengths and settling
    elo_groups: int = 100  # setups of each rung's match against the first rung

    def check(self) -> None:
        self.spec.check()
        self.spec.require_game("persons")
        game = self.spec.base.game  # the study's own game (require_game refused any other)
        if not game.min_players <= self.players <= game.max_players:
            raise ValueError(f"--players must be {game.min_players} to {game.max_players}, got {self.players}")
        unknown = [s for s in self.subjects or () if s not in PERSON_IDS]
        if unknown:
            raise ValueError(f"--persons: {', '.join(unknown)} is not a person; persons: {', '.join(PERSON_IDS)}")

    def persons(self) -> list[str]:
        return [p for p in PERSON_IDS if self.subjects is None or p in self.subjects]


def arm_settings(plan: PersonsPlan, strategy: str, mode: str, person: str):
    focus = f"restricted:base={strategy.replace(',', ';')},{mode}={person}"
    spec = plan.spec
    return spec.settings(
        games=spec.groups * plan.players, players=plan.players, strategies=(focus,) + (strategy,) * (plan.players - 1),
        format="fixed", rotate_seats=True,
    )  # fmt: skip


def person_values(plan: PersonsPlan, out: Path):
    """A person's effect per setup at a rung (with - without, the focus's win share), for the ladder."""

    def values(rung: str, key: str) -> pl.DataFrame:
        arms = [focus_groups(open_run(arm_dir(out, rung, f"{plan.players}p", f"{label}-{key}"))).select(
            "group", pl.col("win").alias(label)) for label in ("with", "without")]  # fmt: skip
        both = arms[0].join(arms[1], on="group", how="inner")
        return both.select("group", (pl.col("with") - pl.col("without")).alias("value"))

    return values


def _shift(est: Estimate, by: float) -> dict:
    low, high = est.low - by, est.high - by
    return {"effect": round(100 * (est.mean - by), 4), "ci": [round(100 * low, 4), round(100 * high, 4)]}


def compute(plan: PersonsPlan, out: Path, ledger: Ledger | None = None) -> list[dict]:
    """Play (or read) the arms; returns the verdict rows."""
    plan.check()
    spec = plan.spec
    ledger = ledger if ledger is not None else Ledger()
    fair = 1.0 / plan.players
    rows: list[dict] = []
    for strategy in spec.strategies:
        for person in plan.persons():
            tables = {}
            for mode, label in (("forbid", "without"), ("eager", "with")):
                d = arm_dir(out, strategy, f"{plan.players}p", f"{label}-{person}")
                ledger.play(spec, strategy, arm_settings(plan, strategy, mode, person), d)
                tables[label] = focus_groups(open_run(d))
            est = paired_difference(tables["with"], tables["without"], within=(-1.0, 1.0))
            cells = {
                label: _shift(mean_interval(t["win"].to_numpy(), within=(0.0, 1.0)), fair)
                for label, t in tables.items()
            }
            rows.append(render.row("person", person, strategy, est, spec.margin, players=plan.players, **cells))
    render.mark_robust(rows, by=("subject", "key"))
    return rows


def run_study(plan: PersonsPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    rows = compute(plan, out, ledger)
    spec = plan.spec
    names = dict(zip(PERSON_IDS, load_pg_components(spec.base.components).person_names, strict=True))
    # the rungs' ratings first: the header's games table counts them
    rungs = ladder.strengths(spec, spec.strategies, plan.elo_groups, plan.players, out, ledger) if plan.ladder else []
    page = render.Page("Palastgeflüster: the value of each person by restricted play")
    header(page, spec, ledger, (
        f"{plan.players} players. For each person, at each skill level, two arms on the same setups and seatings "
        "against the same opponents (the skill level itself in the other seats): the focus player never plays it "
        "while another card keeps the round going (*without*: played only to escape a repeat), or plays it whenever "
        "it can without ending the round against itself (*with*). Effect = with - "
        "without, in percentage points of the focus's win share: **favoured** = a strong person (playing it gains "
        "more than the margin), **disfavoured** = a weak one. *Without* alone is the share lost when forbidden it "
        "(against 1/P)."
    ))  # fmt: skip
    cols = render.verdict_columns("person", lambda r: names.get(r["key"], r["key"]))
    cols.insert(-2, ("without vs 1/P (pp)", lambda r: f"{render.pp(r['without']['effect'])} "
                                                      f"{render.ci_text(r['without']['ci'])}"))  # fmt: skip
    cols.insert(-2, ("with vs 1/P (pp)", lambda r: f"{render.pp(r['with']['effect'])} "
                                                   f"{render.ci_text(r['with']['ci'])}"))  # fmt: skip
    page.h("Persons")
    level = render.level_order(spec.strategies)
    page.table(sorted(rows, key=lambda r: (PERSON_IDS.index(r["key"]), level(r["strategy"]))), cols)
    fig = charts.forest(rows, "Persons: playing it whenever possible vs never (pp)", spec.margin,
                        label=lambda r: f"{names.get(r['key'], r['key'])} ({r['strategy']})")  # fmt: skip
    page.chart("forest_persons", charts.save(fig, out / "charts", "forest_persons"),
               f"with - without, 95% intervals, every person labelled; band = +-{spec.margin:g} pp.")  # fmt: skip
    ladder_doc = None
    if plan.ladder:
        keys = [("person", p) for p in plan.persons()]
        settling = ladder.subject_settling(keys, person_values(plan, out), spec)
        ladder_doc = ladder.subject_section(page, spec, rows, settling, plan.players, plan.elo_groups, out, rungs,
                                            "effect", "with - without: the focus's win share (pp)")  # fmt: skip
    robust_rows = sorted({(names[r["key"]], r["verdict"]) for r in rows if r["robust"]})
    page.h("Across skill levels")
    page.p(f"Robust verdicts (every skill level agrees): {', '.join(f'{k} {v}' for k, v in robust_rows) or 'none'}.")
    document = {
        "study": "persons", "game": spec.base.game.name, "command": spec.command, "seed": spec.seed,
        "groups": spec.groups,
        "margin_pp": spec.margin, "players": plan.players, "strategies": list(spec.strategies),
        "rules": {"tiebreak": spec.base.rule_values["tiebreak"], "max_rounds": spec.base.max_rounds,
                  "components": spec.base.components},
        "games": ledger.to_dict(), "rows": rows,
    }  # fmt: skip
    if ladder_doc is not None:
        document["ladder"] = ladder_doc
    return render.write(out, page, document)
