"""``palais study nobles``: restricted play (Jaffe et al. 2012) per noble and per privilege kind, and repricing.

For each subject X (a noble, or every noble of a privilege kind) and skill level S, two arms on the same setups and
seatings, each with the focus player against P-1 copies of S (seats rotated):

- *without*: the focus is S forbidden to take X (``restricted:base=S,forbid=X``);
- *with*: the focus is S made to take X whenever it can recruit it (``restricted:base=S,eager=X``).

The verdict's effect is *with - without*, group by group: how much win share a player gains by taking X whenever it
can rather than never. A noble worth more than it costs gives a positive effect (**favoured**: underpriced), one
worth less a negative one (**disfavoured**: overpriced), a fair one about 0. The *without* arm alone is the win share
a player loses when forbidden X (the question of the issue: against 1/P, which the mirror of S gives exactly, every
group, since all its rotations are the same game); it is shown beside the verdict but is not the verdict, since being
forbidden a noble nobody wants costs nothing, however overpriced the noble is.

Repricing: the nobles to reprice (``reprice``: those with a decided verdict, all, none, or a list) are played again
in component-set variants with the noble at gold + each offset (default -1 and +1), the same arms on the same
setups. The price-sensitivity line is a weighted least-squares fit of the effect on the gold cost; where it crosses 0
is the price at which the noble is worth what it costs (given only when the slope is significantly negative).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from palais_sim.analytics.paired import Estimate, focus_groups, mean_interval, paired_difference
from palais_sim.analytics.runs import open_run
from palais_sim.games.palais_royal.components import ComponentSet, load_components
from palais_sim.study import charts, render
from palais_sim.study.common import Ledger, StudySpec, arm_dir, header
from palais_sim.study.variants import repriced, write_variant

GAME_NAME = "palais-royal"  # nobles are Palais Royal's
REPRICE_MODES = ("decided", "all", "none")


@dataclass(frozen=True)
class NoblesPlan:
    spec: StudySpec
    players: int = 2
    subjects: tuple[str, ...] | None = None  # noble ids and privilege kinds; None: every noble and every kind
    reprice: str = "decided"  # decided | all | none | comma-separated noble ids
    offsets: tuple[int, ...] = (-1, 1)

    def check(self, comps: ComponentSet) -> None:
        self.spec.check()
        self.spec.require_game("nobles", GAME_NAME)
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
        if not self.offsets or 0 in self.offsets:
            raise ValueError(f"--prices must be non-zero gold offsets such as -1,1, got {list(self.offsets)}")

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


def arm_settings(plan: NoblesPlan, strategy: str, mode: str, key: str, components: str | None):
    focus = f"restricted:base={_spec_text(strategy)},{mode}={key}"
    spec = plan.spec
    return spec.settings(
        games=spec.groups * plan.players, players=plan.players, strategies=(focus,) + (strategy,) * (plan.players - 1),
        format="fixed", rotate_seats=True, components=components,
    )  # fmt: skip


def _pair(plan: NoblesPlan, ledger: Ledger, out: Path, strategy: str, key: str, components: str | None, tag: str):
    """Play (or read) the without and with arms of one subject; returns their focus tables."""
    tables = {}
    for mode, label in (("forbid", "without"), ("eager", "with")):
        d = arm_dir(out, strategy, tag, f"{label}-{key}")
        ledger.play(plan.spec, strategy, arm_settings(plan, strategy, mode, key, components), d)
        tables[label] = focus_groups(open_run(d))
    return tables


def _shift(est: Estimate, by: float) -> Estimate:
    return Estimate(est.mean - by, est.se, est.low - by, est.high - by, est.n_groups)


def _cell(est: Estimate) -> dict:
    return {"effect": round(100 * est.mean, 4) if np.isfinite(est.mean) else None,
            "ci": [round(100 * v, 4) if np.isfinite(v) else None for v in (est.low, est.high)]}  # fmt: skip


def compute(plan: NoblesPlan, out: Path, ledger: Ledger | None = None) -> tuple[list[dict], list[dict]]:
    """Play (or read) the arms; returns the verdict rows and the price-sensitivity lines."""
    spec = plan.spec
    comps = load_components(spec.base.components)
    plan.check(comps)
    ledger = ledger if ledger is not None else Ledger()
    fair = 1.0 / plan.players
    rows: list[dict] = []
    for strategy in spec.strategies:
        for subject, key in plan.all_subjects(comps):
            t = _pair(plan, ledger, out, strategy, key, spec.base.components, "base")
            est = paired_difference(t["with"], t["without"])
            without = _shift(mean_interval(t["without"]["win"].to_numpy()), fair)
            with_ = _shift(mean_interval(t["with"]["win"].to_numpy()), fair)
            gold = comps.nobles[comps.noble_index[key]].gold if subject == "noble" else None
            cells = {"without": _cell(without), "with": _cell(with_)}
            rows.append(render.row(subject, key, strategy, est, spec.margin, gold=gold, **cells))
    render.mark_robust(rows, by=("subject", "key"))
    lines = reprice(plan, comps, rows, out, ledger)
    return rows, lines


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


def reprice(plan: NoblesPlan, comps: ComponentSet, rows: list[dict], out: Path, ledger: Ledger) -> list[dict]:
    spec = plan.spec
    lines = []
    base_rows = {(r["key"], r["strategy"]): r for r in rows if r["subject"] == "noble"}
    for noble in to_reprice(plan, rows):
        gold = comps.nobles[comps.noble_index[noble]].gold
        prices = sorted({gold + d for d in plan.offsets if gold + d >= 0})
        variants = {}
        for price in prices:
            variant = repriced(comps, noble, price)
            path = out / "components" / f"{noble}-gold{price}.toml"
            note = f"{comps.name} with {noble} at {price} gold instead of {gold} (palais study nobles)"
            variants[price] = str(write_variant(variant, path, note))
        for strategy in spec.strategies:
            base = base_rows.get((noble, strategy))
            points = []
            if base is not None:
                points.append({"price": gold, "effect": base["effect"], "ci": base["ci"], "n_groups": base["n_groups"]})
            for price, path in variants.items():
                t = _pair(plan, ledger, out, strategy, noble, path, f"{noble}-gold{price}")
                est = paired_difference(t["with"], t["without"])
                points.append({"price": price, **_cell(est), "n_groups": est.n_groups})
            points.sort(key=lambda p: p["price"])
            lines.append({"noble": noble, "strategy": strategy, "gold": gold, "points": points, **fit_line(points)})
    return lines


def fit_line(points: list[dict]) -> dict:
    """Weighted least squares of effect (pp) on price, weights 1/se^2 (se from each interval); the fair price is
    where the line crosses 0, given only when the slope's 95% interval lies below 0."""
    ok = [p for p in points if p["effect"] is not None and None not in p["ci"]]
    none = {"slope": None, "slope_ci": [None, None], "intercept": None, "fair_price": None}
    if len(ok) < 2:
        return none
    x = np.array([p["price"] for p in ok], dtype=float)
    y = np.array([p["effect"] for p in ok], dtype=float)
    se = np.array([(p["ci"][1] - p["ci"][0]) / (2 * 1.96) for p in ok])
    if (se <= 0).any() or np.ptp(x) == 0:
        return none
    w = 1 / se**2
    xm = (w * x).sum() / w.sum()
    ym = (w * y).sum() / w.sum()
    sxx = (w * (x - xm) ** 2).sum()
    slope = float((w * (x - xm) * (y - ym)).sum() / sxx)
    slope_se = float(np.sqrt(1 / sxx))
    intercept = float(ym - slope * xm)
    low, high = slope - 1.96 * slope_se, slope + 1.96 * slope_se
    fair = -intercept / slope if high < 0 else None
    return {"slope": round(slope, 4), "slope_ci": [round(low, 4), round(high, 4)], "intercept": round(intercept, 4),
            "fair_price": round(fair, 3) if fair is not None else None}  # fmt: skip


def _by_price(line: dict) -> str:
    return "; ".join(f"{p['price']}: {render.pp(p['effect'])}" for p in line["points"])


def run_study(plan: NoblesPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    rows, lines = compute(plan, out, ledger)
    spec = plan.spec
    page = render.Page("Noble balance: restricted play and repricing")
    header(page, spec, ledger, (
        f"{plan.players} players. For each noble and each privilege kind, at each skill level, two arms on the same "
        "setups and seatings against the same opponents (the skill level itself in the other seats): the focus "
        "player never takes it (*without*), or takes it whenever it can (*with*). Effect = with - without, in "
        "percentage points of the focus's win share: **favoured** = underpriced (taking it gains more than the "
        "margin), **disfavoured** = overpriced. *Without* alone is the share lost when forbidden it (against 1/P)."
    ))  # fmt: skip
    for subject, title in (("privilege", "Privilege kinds (every noble of the kind)"), ("noble", "Nobles")):
        mine = [r for r in rows if r["subject"] == subject]
        if not mine:
            continue
        page.h(title)
        cols = render.verdict_columns(subject)
        if subject == "noble":
            cols.insert(1, ("gold", lambda r: str(r["gold"])))
        cols.insert(-2, ("without vs 1/P (pp)", lambda r: f"{render.pp(r['without']['effect'])} "
                                                          f"{render.ci_text(r['without']['ci'])}"))  # fmt: skip
        cols.insert(-2, ("with vs 1/P (pp)", lambda r: f"{render.pp(r['with']['effect'])} "
                                                       f"{render.ci_text(r['with']['ci'])}"))  # fmt: skip
        page.table(sorted(mine, key=lambda r: (r["key"], r["strategy"])), cols)
        name = f"forest_{subject}"
        fig = charts.forest(mine, f"{title}: taking it whenever possible vs never (pp)", spec.margin)
        caption = f"{title}: with - without, 95% intervals, every one labelled; band = +-{spec.margin:g} pp."
        page.chart(name, charts.save(fig, out / "charts", name), caption)
    if lines:
        page.h("Price sensitivity")
        page.p("Each repriced noble played again at other gold costs (component-set variants in components/, the "
               "same setups). Slope: pp of the effect per gold; the price at which it is worth its cost is where "
               "the line crosses 0 (shown when the slope is surely negative).")  # fmt: skip
        page.table(lines, [
            ("noble", lambda r: r["noble"]), ("skill level", lambda r: f"`{r['strategy']}`"),
            ("gold", lambda r: str(r["gold"])),
            ("effect by price (pp)", _by_price),
            ("slope per gold [95%]", lambda r: f"{render.pp(r['slope'])} {render.ci_text(r['slope_ci'])}"),
            ("worth its cost at", lambda r: "–" if r["fair_price"] is None else f"{r['fair_price']:.1f} gold"),
        ])  # fmt: skip
        for noble in dict.fromkeys(line["noble"] for line in lines):
            series = {line["strategy"]: line for line in lines if line["noble"] == noble}
            name = f"price_{noble}"
            fig = charts.price_lines(series, f"{noble}: effect of taking it by gold cost", spec.margin)
            caption = f"{noble}: with - without (pp) at each gold cost, per skill level, with the fitted line."
            page.chart(name, charts.save(fig, out / "charts", name), caption)
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
    }  # fmt: skip
    return render.write(out, page, document)
