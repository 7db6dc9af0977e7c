"""``palais study layouts``: does the room layout favour a seat? Mirror play (the same strategy in every seat), so
what the layout does to the seats is the game's.

Three designs per skill level and player count, all on the setups 0..n-1 of the root seed:

- *random layouts*: ``groups`` games, each with its own random layout (the rulebook's rule). The **primary** rows are
  the features with a mechanism, chosen by design: the distances from the Gate to each room and from the Stairway to
  the Office and the Mint (``PRIMARY``), one least-squares model of them, HC1 errors (every game is independent).
  The rest come as two **blocks** (``BLOCKS``: the room in the centre, the rooms next to the Stairway), one row each
  from one model of the distances and both blocks: the block's *spread*, the root-mean-square over random layouts of
  its part of the predicted share, with an interval (``layout_models.spread_interval``). Balanced: beyond the
  distances, the block moves a random layout's share by less than the margin (root-mean-square).
- *the first-game layout*: ``first_game_setups`` games (as many as the random-layout arm unless given), its mean
  against the random-layout arm's (the average layout), a Welch interval.
- *fixed layouts*: ``layouts`` random layouts (drawn from the root seed), each played on the same ``setups`` setups
  (a crossed design). A two-way analysis of variance (layout x setup) gives the share of the variance of the start
  player's result that the layout explains at all (with an interval from the F distribution).

The outcome is the start player's (seat 1's) win share minus 1/P, in percentage points.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sstats

from palais_sim.analytics.paired import Estimate
from palais_sim.analytics.runs import collect, open_run
from palais_sim.games.palais_royal.analysis.setup_balance import feature_names, layout_features
from palais_sim.games.palais_royal.board import random_layout_code
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.studies.layout_models import contrasts, fit, layout_covariance, spread_interval
from palais_sim.study import charts, render
from palais_sim.study.common import MORE_GROUPS, Ledger, StudySpec, arm_dir, header


@dataclass(frozen=True)
class LayoutsPlan:
    spec: StudySpec
    players: tuple[int, ...] = (2,)
    layouts: int = 12  # fixed random layouts of the variance design
    setups: int = 100  # setups per fixed layout
    first_game_setups: int | None = None  # games of the first-game layout; None: as many as the random-layout arm

    @property
    def first_game_games(self) -> int:
        """The first-game layout's games: as given, else the random-layout arm's (``spec.groups``), so that a study
        sized by --groups plays no more of them than it asked for."""
        return self.spec.groups if self.first_game_setups is None else self.first_game_setups

    def check(self) -> None:
        self.spec.check()
        self.spec.require_game("layouts")
        if not self.players or any(p not in (2, 3, 4) for p in self.players):
            raise ValueError(f"--players must be 2, 3 or 4 (comma-separated), got {list(self.players)}")
        if self.layouts < 3:
            raise ValueError(f"--layouts must be at least 3, got {self.layouts}")
        if self.setups < 2:
            raise ValueError(f"--setups must be at least 2, got {self.setups}")
        if self.first_game_games < 2:
            raise ValueError(f"--first-game-setups must be at least 2, got {self.first_game_games}")

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


# The primary model, chosen by mechanism (not by which rows happened to decide): every new servant arrives on the
# Gate and every servant starts on the Stairway, and each step between rooms costs a movement point, so how far the
# rooms lie from the Gate (8) and the Office and the Mint from the Stairway (2) is what the layout changes first.
PRIMARY: tuple[str, ...] = tuple(n for n in feature_names() if n.startswith(("gate_to_", "stairway_to_")))
# The rest, a block each: asked together, "does this move the start player's share beyond the distances?"
BLOCKS: dict[str, tuple[str, ...]] = {
    "room in the centre": tuple(n for n in feature_names() if n.endswith("_in_centre")),
    "rooms next to the Stairway": tuple(n for n in feature_names() if n.endswith("_next_to_stairway")),
}


def _design(df: pl.DataFrame, players: int, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    feats = layout_features(df.select("layout").unique().lazy()).collect()
    data = df.join(feats, on="layout", how="left")
    return data.select(names).to_numpy().astype(float), data["win"].to_numpy().astype(float) - 1.0 / players


def joint_model(df: pl.DataFrame, players: int, names: list[str] | None = None) -> tuple[list[dict], list[str], int]:
    """OLS of seat 1's win share on the layout features ``names`` (default: the primary ones, the distances) with
    HC1 errors: (feature rows, aliased features, n). Each row is the feature's coefficient in the best linear
    predictor from these features over random layouts (HC1 keeps its interval honest even where the line is not
    the whole truth)."""
    names = list(PRIMARY if names is None else names)
    x, y = _design(df, players, names)
    f = fit(x, y, names)
    if not np.all(np.isfinite(f.beta)):
        return [], f.aliased, f.n
    se = np.sqrt(np.maximum(np.diag(f.cov), 0))
    q = float(sstats.t.ppf(0.975, f.dof))
    rows = [{"feature": name, "mean": float(b), "se": float(e), "low": float(b - q * e), "high": float(b + q * e)}
            for name, b, e in zip(f.names, f.beta, se, strict=True)]  # fmt: skip
    return rows, f.aliased, f.n


def block_spreads(df: pl.DataFrame, players: int, confidence: float = 0.95) -> tuple[list[dict], list[str], int]:
    """One model of the distances and every block; per block its spread over random layouts (``layout_models``):
    (block rows with value, low, high, features; aliased features; n)."""
    names = list(PRIMARY) + [n for block in BLOCKS.values() for n in block]
    x, y = _design(df, players, names)
    f = fit(x, y, names)
    rows = []
    for block, members in BLOCKS.items():
        idx = [f.names.index(n) for n in members if n in f.names]
        kept = tuple(f.names[i] for i in idx)
        spread = spread_interval(f.beta[idx], f.cov[np.ix_(idx, idx)], layout_covariance(kept), confidence)
        rows.append({"block": block, "value": spread.value, "low": spread.low, "high": spread.high,
                     "features": spread.features, "members": contrasts(f, members, confidence)})  # fmt: skip
    return rows, f.aliased, f.n


def first_game_difference(first: np.ndarray, random_layouts: np.ndarray, confidence: float = 0.95) -> Estimate:
    """The first-game layout's mean result minus the random-layout arm's (the average layout), two independent
    samples with a Welch t interval. (Both arms share their first setups, whose correlation would only narrow it.)"""
    a, b = np.asarray(first, dtype=float), np.asarray(random_layouts, dtype=float)
    if len(a) < 2 or len(b) < 2:
        return Estimate(np.nan, np.nan, np.nan, np.nan, len(a))
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = float(np.sqrt(va + vb))
    mean = float(a.mean() - b.mean())
    if se == 0:
        return Estimate(mean, 0.0, mean, mean, len(a))
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    q = float(sstats.t.ppf(0.5 + confidence / 2, dof))
    return Estimate(mean, se, mean - q * se, mean + q * se, len(a))


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
    leads: list[dict] = []  # the blocks' members, without verdicts
    for strategy in spec.strategies:
        for p in plan.players:
            common = dict(players=p, strategies=(strategy,), format="fixed", rotate_seats=False)
            d = arm_dir(out, strategy, f"{p}p", "random-layouts")
            ledger.play(spec, strategy, spec.settings(games=spec.groups, layout="random", **common), d)
            games = _seat_one(d)
            feats, aliased, n = joint_model(games, p)
            aliased_by[f"{strategy} {p}p"] = aliased
            for f in feats:
                est = Estimate(f["mean"], f["se"], f["low"], f["high"], n)
                rows.append(render.row("layout_feature", f["feature"], strategy, est, spec.margin, players=p))
            blocks, _, n = block_spreads(games, p)
            leads += [{"strategy": strategy, "players": p, "block": b["block"], **m} for b in blocks
                      for m in b["members"]]  # fmt: skip
            for b in blocks:
                est = Estimate(b["value"], np.nan, b["low"], b["high"], n)
                r = render.row("layout_block", b["block"], strategy, est, spec.margin, players=p,
                               features=b["features"])  # fmt: skip
                r["verdict"] = "unbalanced" if r["verdict"] == "favoured" else r["verdict"]  # a spread is >= 0
                rows.append(r)
            d = arm_dir(out, strategy, f"{p}p", "first-game-" + first_game.replace("/", ""))
            ledger.play(spec, strategy, spec.settings(games=plan.first_game_games, layout=first_game, **common), d)
            diff = first_game_difference(_seat_one(d)["win"].to_numpy(), games["win"].to_numpy())
            rows.append(render.row("layout", "first-game " + first_game, strategy, diff, spec.margin, players=p))
            results = {}
            for code in fixed:
                d = arm_dir(out, strategy, f"{p}p", "layout-" + code.replace("/", ""))
                ledger.play(spec, strategy, spec.settings(games=plan.setups, layout=code, **common), d)
                results[code] = _seat_one(d).select("game", pl.col("win").alias(code.replace("/", "")))
            table = results[fixed[0]]
            for code in fixed[1:]:
                table = table.join(results[code], on="game")
            fixed_cols = [c.replace("/", "") for c in fixed]
            matrix = table.select(fixed_cols).to_numpy().T.astype(float)  # layouts x setups
            variance.append({"strategy": strategy, "players": p, **variance_share(matrix)})
    render.mark_robust(rows)
    return rows, variance, {"first_game": first_game, "fixed_layouts": fixed, "aliased": aliased_by,
                            "primary": list(PRIMARY), "blocks": {k: list(v) for k, v in BLOCKS.items()},
                            "block_members": leads}  # fmt: skip


def run_study(plan: LayoutsPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    rows, variance, info = compute(plan, out, ledger)
    spec = plan.spec
    level = render.level_order(spec.strategies)
    page = render.Page("Layout balance: mirror play over room layouts")
    header(page, spec, ledger, (
        "The same strategy in every seat. Outcome: the start player's (seat 1's) win share minus 1/P, in "
        f"percentage points. Random-layout games: {spec.groups} per skill level and player count (the distances "
        f"and the blocks); the first-game layout {info['first_game']}: {plan.first_game_games} games; fixed "
        f"layouts: {plan.layouts} random ones, each on the same {plan.setups} setups (the share of variance)."
    ), more=MORE_GROUPS.replace("`--groups`", "`--groups` (or `--first-game-setups`)"))  # fmt: skip
    page.h("Distances (the primary rows)")
    page.p("Chosen by design, not by which rows decide: every new servant arrives on the Gate, every servant starts "
           "on the Stairway, and each step between rooms costs a movement point. Each row: how much the start "
           "player's win share changes per step farther (pp per step), from one least-squares model of these ten "
           "distances over random layouts (the best linear prediction from them, everything else about the layout "
           "averaged over as random layouts mix it); 95% t interval with HC1 errors (every game independent). "
           "Left out as exactly collinear: "
           + "; ".join(f"{k}: {', '.join(v) or 'none'}" for k, v in info["aliased"].items()) + ".")  # fmt: skip
    feats = [r for r in rows if r["subject"] == "layout_feature"]
    page.table(sorted(feats, key=lambda r: (r["players"], r["key"], level(r["strategy"]))),
               [("players", lambda r: str(r["players"]))] + render.verdict_columns("distance"))  # fmt: skip
    for p in plan.players:
        mine = sorted((r for r in feats if r["players"] == p), key=lambda r: (r["key"], level(r["strategy"])))
        if mine:
            name = f"features_{p}p"
            fig = charts.forest(mine, f"Distances, {p} players: start player's win share (pp per step)",
                                spec.margin)  # fmt: skip
            page.chart(name, charts.save(fig, out / "charts", name),
                       f"Distances ({p} players), one model, 95% intervals; band = margin.")  # fmt: skip
    page.h("Beyond the distances (one row per block)")
    page.p("One model of the distances and both blocks (the room in the centre: nine yes/no features, one left out; "
           "the rooms next to the Stairway: eight). A block's row is its **spread**: the root-mean-square, over "
           "uniformly random layouts, of the block's part of the predicted share (pp), so it does not depend on "
           "which room is left out, and its single coefficients, each nearly collinear with the distances, need "
           "not be precise for it to be. The estimate removes the part the noise adds on average; the 95% interval "
           "inverts the test of each spread with the noise's distribution drawn by Monte Carlo, the effect put "
           "where it makes the interval widest. **balanced**: the whole interval below the margin, so beyond the "
           "distances the block moves a random layout's share by less than the margin, root-mean-square (single "
           "layouts may be moved more); **unbalanced**: the whole interval above it; else undecided.")  # fmt: skip
    blocks = [r for r in rows if r["subject"] == "layout_block"]
    page.table(sorted(blocks, key=lambda r: (r["players"], r["key"], level(r["strategy"]))),
               [("players", lambda r: str(r["players"]))] + render.verdict_columns("block")
               + [("features", lambda r: str(r["features"]))])  # fmt: skip
    page.p("Leads, not verdicts: each member of a block from the same model, the room in the centre against the "
           "average layout (so no rare room is the yardstick), a room next to the Stairway against not, each with a "
           "95% interval simultaneous over its block (all of a block's intervals hold together 95% of the time, so "
           "the member that stands out is not one picked from many by luck). Each is nearly collinear with the "
           "distances, hence wide; the block's row above is the question they answer together.")  # fmt: skip
    page.table(sorted(info["block_members"], key=lambda r: (r["players"], r["block"], r["feature"], r["strategy"])), [
        ("players", lambda r: str(r["players"])), ("block", lambda r: r["block"]),
        ("feature", lambda r: f"{r['feature']} (against {r['against']})"),
        ("skill level", lambda r: f"`{r['strategy']}`"),
        ("effect (pp)", lambda r: render.pp(100 * r["effect"])),
        ("simultaneous 95% interval (pp)", lambda r: render.ci_text([100 * r["low"], 100 * r["high"]])),
    ])  # fmt: skip
    page.h("The first-game layout against random layouts")
    page.p("The first-game layout's mean result minus the random-layout games' mean (the average layout), two "
           "independent samples; 95% Welch interval.")  # fmt: skip
    fg = [r for r in rows if r["subject"] == "layout"]
    page.table(fg, [("players", lambda r: str(r["players"]))] + render.verdict_columns("layout"))
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
    decided = sorted({f"{r['key']} ({r['players']}p) {r['verdict']}" for r in rows if r["robust"]})
    page.h("Across skill levels")
    page.p(f"Robust verdicts: {', '.join(decided) or 'none'}.")
    document = {
        "study": "layouts", "command": spec.command, "seed": spec.seed, "groups": spec.groups,
        "margin_pp": spec.margin, "strategies": list(spec.strategies), "players": list(plan.players),
        "rules": spec.rule_dict(), "layouts": plan.layouts, "setups": plan.setups,
        "first_game_setups": plan.first_game_games, **info,
        "games": ledger.to_dict(), "variance": variance, "rows": rows,
    }  # fmt: skip
    return render.write(out, page, document)
