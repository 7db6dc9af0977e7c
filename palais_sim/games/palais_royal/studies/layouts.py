"""``palais study layouts``: does the room layout favour a seat? Mirror play (the same strategy in every seat), so
what the layout does to the seats is the game's.

Two designs per skill level and player count, both on the setups 0..n-1 of the root seed:

- *random layouts*: ``groups`` games, each with its own random layout (the rulebook's rule). One joint least-squares
  model of the start player's win share on all the layout features at once (distances from the Gate, from the
  Stairway, neighbours of the Stairway, the room in the centre), so correlated features do not take each other's
  credit; exactly collinear features are left out and named; standard errors HC1 (every game is independent).
- *fixed layouts*: ``layouts`` random layouts (drawn from the root seed) and the first-game layout, each played on the
  same ``setups`` setups (a crossed, paired design). A two-way analysis of variance (layout x setup) gives the share
  of the variance of the start player's result that the layout explains at all (with an interval from the F
  distribution), and the first-game layout is compared with the random ones setup by setup.

The outcome is the start player's (seat 1's) win share minus 1/P, in percentage points.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics.paired import Estimate, mean_interval
from palais_sim.analytics.runs import collect, open_run
from palais_sim.games.palais_royal.analysis.setup_balance import feature_names, layout_features
from palais_sim.games.palais_royal.board import random_layout_code
from palais_sim.games.palais_royal.components import load_components
from palais_sim.study import charts, render
from palais_sim.study.common import Ledger, StudySpec, arm_dir, header


@dataclass(frozen=True)
class LayoutsPlan:
    spec: StudySpec
    players: tuple[int, ...] = (2,)
    layouts: int = 12  # fixed random layouts of the variance design
    setups: int = 100  # setups per fixed layout

    def check(self) -> None:
        self.spec.check()
        self.spec.require_game("layouts")
        if not self.players or any(p not in (2, 3, 4) for p in self.players):
            raise ValueError(f"--players must be 2, 3 or 4 (comma-separated), got {list(self.players)}")
        if self.layouts < 3:
            raise ValueError(f"--layouts must be at least 3, got {self.layouts}")
        if self.setups < 2:
            raise ValueError(f"--setups must be at least 2, got {self.setups}")

    def fixed_layouts(self) -> list[str]:
        """``layouts`` distinct random layout codes, drawn from the root seed (the same for every skill level)."""
        rng = random.Random(f"{self.spec.seed}:study-layouts")
        codes: list[str] = []
        while len(codes) < self.layouts:
            code = random_layout_code(rng)
            if code not in codes:
                codes.append(code)
        return codes


def _seat_one(run_dir: Path) -> pl.DataFrame:
    """Per played game: its index, layout and seat 1's win share."""
    run = open_run(run_dir)
    return collect(run.seats().filter(pl.col("seat") == 1).select("game", "layout", "win")).sort("game")


def joint_model(df: pl.DataFrame, players: int) -> tuple[list[dict], list[str], int]:
    """OLS of seat 1's win share on all layout features with HC1 errors: (feature rows, aliased features, n)."""
    names = feature_names()
    feats = layout_features(df.select("layout").unique().lazy()).collect()
    data = df.join(feats, on="layout", how="left")
    x_all = data.select(names).to_numpy().astype(float)
    y = data["win"].to_numpy().astype(float) - 1.0 / players
    n = len(y)
    keep: list[int] = []
    aliased: list[str] = []
    design = np.ones((n, 1))
    for j, name in enumerate(names):
        trial = np.column_stack([design, x_all[:, j]])
        if np.linalg.matrix_rank(trial) > design.shape[1]:
            design, keep = trial, keep + [j]
        else:
            aliased.append(name)
    k = design.shape[1]
    if n <= k + 1:
        return [], aliased, n
    xtx_inv = np.linalg.pinv(design.T @ design)
    beta = xtx_inv @ design.T @ y
    resid = y - design @ beta
    meat = (design * resid[:, None]).T @ (design * resid[:, None])
    cov = n / (n - k) * xtx_inv @ meat @ xtx_inv
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    q = float(sstats.t.ppf(0.975, n - k))
    rows = []
    for i, j in enumerate(keep, start=1):
        rows.append({"feature": names[j], "mean": float(beta[i]), "se": float(se[i]),
                     "low": float(beta[i] - q * se[i]), "high": float(beta[i] + q * se[i])})  # fmt: skip
    return rows, aliased, n


def variance_share(matrix: np.ndarray) -> dict:
    """Two-way ANOVA without replication (layouts x setups): the layout's share of the total variance of the
    outcome (layout + setup + residual components), its 95% interval and the F test of no layout effect.

    The interval comes from the F distribution (exact for the balanced random-effects model): the ratio of the layout
    to the residual variance component lies between (F / F_upper - 1) / setups and (F / F_lower - 1) / setups, each
    floored at 0, and is turned into a share with the setup and residual components as estimated."""
    n_l, n_s = matrix.shape
    grand = matrix.mean()
    row = matrix.mean(1) - grand
    col = matrix.mean(0) - grand
    resid = matrix - grand - row[:, None] - col[None, :]
    df1, df2 = n_l - 1, (n_l - 1) * (n_s - 1)
    ms_l = n_s * (row**2).sum() / df1
    ms_s = n_l * (col**2).sum() / (n_s - 1)
    ms_e = (resid**2).sum() / df2
    var_s = max(0.0, (ms_s - ms_e) / n_l)

    def share(var_l: float) -> float:
        total = var_l + var_s + ms_e
        return var_l / total if total > 0 else 0.0

    if ms_e <= 0:
        return {"share": 0.0, "ci": [0.0, 0.0], "f": float("nan"), "p": float("nan"), "layouts": n_l, "setups": n_s}
    f = ms_l / ms_e
    p = float(sstats.f.sf(f, df1, df2))
    theta_low = max(0.0, (f / sstats.f.ppf(0.975, df1, df2) - 1) / n_s)
    theta_high = max(0.0, (f / sstats.f.ppf(0.025, df1, df2) - 1) / n_s)
    value = share(max(0.0, (ms_l - ms_e) / n_s))
    return {"share": value, "ci": [share(theta_low * ms_e), share(theta_high * ms_e)], "f": float(f), "p": p,
            "layouts": n_l, "setups": n_s}  # fmt: skip


def compute(plan: LayoutsPlan, out: Path, ledger: Ledger | None = None) -> tuple[list[dict], list[dict], dict]:
    plan.check()
    spec = plan.spec
    ledger = ledger if ledger is not None else Ledger()
    first_game = load_components(spec.base.components).first_game_layout
    fixed = plan.fixed_layouts()
    rows: list[dict] = []
    variance: list[dict] = []
    aliased_by: dict = {}
    for strategy in spec.strategies:
        for p in plan.players:
            common = dict(players=p, strategies=(strategy,), format="fixed", rotate_seats=False)
            d = arm_dir(out, strategy, f"{p}p", "random-layouts")
            ledger.play(spec, strategy, spec.settings(games=spec.groups, layout="random", **common), d)
            feats, aliased, n = joint_model(_seat_one(d), p)
            aliased_by[f"{strategy} {p}p"] = aliased
            for f in feats:
                est = Estimate(f["mean"], f["se"], f["low"], f["high"], n)
                rows.append(render.row("layout_feature", f["feature"], strategy, est, spec.margin, players=p))
            results = {}
            for code in [first_game, *fixed]:
                d = arm_dir(out, strategy, f"{p}p", "layout-" + code.replace("/", ""))
                ledger.play(spec, strategy, spec.settings(games=plan.setups, layout=code, **common), d)
                results[code] = _seat_one(d).select("game", pl.col("win").alias(code.replace("/", "")))
            table = results[first_game]
            for code in fixed:
                table = table.join(results[code], on="game")
            fixed_cols = [c.replace("/", "") for c in fixed]
            matrix = table.select(fixed_cols).to_numpy().T.astype(float)  # layouts x setups
            variance.append({"strategy": strategy, "players": p, **variance_share(matrix)})
            diff = table[first_game.replace("/", "")].to_numpy() - matrix.mean(0)
            rows.append(render.row("layout", "first-game " + first_game, strategy, mean_interval(diff), spec.margin,
                                   diff, players=p))  # fmt: skip
    render.mark_robust(rows)
    return rows, variance, {"first_game": first_game, "fixed_layouts": fixed, "aliased": aliased_by}


def run_study(plan: LayoutsPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    rows, variance, info = compute(plan, out, ledger)
    spec = plan.spec
    page = render.Page("Layout balance: mirror play over room layouts")
    header(page, spec, ledger, (
        "The same strategy in every seat. Outcome: the start player's (seat 1's) win share minus 1/P, in "
        f"percentage points. Random-layout games: {spec.groups} per skill level and player count, one joint model "
        f"of every layout feature; fixed layouts: {plan.layouts} random ones and the first-game layout "
        f"{info['first_game']}, each on the same {plan.setups} setups."
    ))  # fmt: skip
    page.h("How much does the layout matter at all?")
    page.p("Share of the variance of the start player's result explained by the layout (two-way analysis of "
           "variance, layout x setup, on the fixed layouts; 95% interval from the F distribution; F test of no "
           "layout effect).")  # fmt: skip
    page.table(variance, [
        ("skill level", lambda r: f"`{r['strategy']}`"), ("players", lambda r: str(r["players"])),
        ("layout share of variance", lambda r: f"{100 * r['share']:.1f}%"),
        ("95% interval", lambda r: f"[{100 * r['ci'][0]:.1f}%, {100 * r['ci'][1]:.1f}%]"),
        ("F", lambda r: f"{r['f']:.2f}"), ("p", lambda r: f"{r['p']:.3g}"),
        ("layouts x setups", lambda r: f"{r['layouts']} x {r['setups']}"),
    ])  # fmt: skip
    page.h("The first-game layout against random layouts")
    fg = [r for r in rows if r["subject"] == "layout"]
    page.table(fg, [("players", lambda r: str(r["players"]))] + render.verdict_columns("layout"))
    page.h("Layout features (one joint model)")
    page.p("Effect per unit of the feature (a yes/no feature: with minus without), all features in one model. "
           "Left out as exactly collinear with the others: "
           + "; ".join(f"{k}: {', '.join(v) or 'none'}" for k, v in info["aliased"].items()) + ".")  # fmt: skip
    feats = [r for r in rows if r["subject"] == "layout_feature"]
    page.table(sorted(feats, key=lambda r: (r["players"], r["key"], r["strategy"])),
               [("players", lambda r: str(r["players"]))] + render.verdict_columns("feature"))  # fmt: skip
    for p in plan.players:
        mine = sorted((r for r in feats if r["players"] == p), key=lambda r: (r["key"], r["strategy"]))
        if mine:
            name = f"features_{p}p"
            fig = charts.forest(mine, f"Layout features, {p} players: start player's win share (pp per unit)",
                                spec.margin)  # fmt: skip
            page.chart(name, charts.save(fig, out / "charts", name),
                       f"Layout features ({p} players), joint model, 95% intervals; band = margin.")  # fmt: skip
    decided = sorted({f"{r['key']} ({r['players']}p) {r['verdict']}" for r in rows if r["robust"]})
    page.h("Across skill levels")
    page.p(f"Robust verdicts: {', '.join(decided) or 'none'}.")
    document = {
        "study": "layouts", "command": spec.command, "seed": spec.seed, "groups": spec.groups,
        "margin_pp": spec.margin, "strategies": list(spec.strategies), "players": list(plan.players),
        "rules": spec.rule_dict(), "layouts": plan.layouts, "setups": plan.setups, **info,
        "games": ledger.to_dict(), "variance": variance, "rows": rows,
    }  # fmt: skip
    return render.write(out, page, document)
