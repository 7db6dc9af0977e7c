"""``palais study seats``: mirror play (the same strategy in every seat) measures the seat edge of the game itself.

Per skill level and player count, ``groups`` setups are played with the same strategy in every seat. Mirror games
need no seat rotation (every rotation is the same game), so each game is its own group and the setups are the groups
0..G-1 of the root seed in every arm. The seat edge is seat k's win share minus 1/P.

A game whose seats start with different values (``GAME.seat_values``, a :class:`~palais_sim.core.game.SeatValues`)
has them set by the study (its rule option, the first P values for P players) and, with the facet's factorial flag,
also permuted over the seats in a cyclic Latin square (P arms: arm r gives seat k the value of seat k - r), every arm
on the same setups. Seat and value are then crossed and balanced, so each has its own rows: the seat effect is seat
k's win share averaged over the arms (every value once), the value's effect the win share of whoever holds it,
averaged over the arms (every seat once). Both are computed per setup and the interval runs over setups (a paired
design). Without it, the value follows the seat (the rules' order) and the seat rows carry both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from palais_sim.analytics.paired import mean_interval
from palais_sim.analytics.runs import collect, open_run
from palais_sim.core.game import SeatValues
from palais_sim.study import charts, ladder, render
from palais_sim.study.common import Ledger, StudySpec, arm_dir, header


@dataclass(frozen=True)
class SeatsPlan:
    spec: StudySpec
    players: tuple[int, ...] = (2, 3, 4)
    values: tuple[int, ...] | None = None  # the seats' values, seat 1 first (the first P for P players); None: usual
    factorial: bool = False  # permute the values over the seats too
    ladder: bool = False  # the skill levels are a strength ladder (``study.ladder``): rung strengths and settling
    elo_groups: int = 100  # setups of each rung's match against the first rung

    @property
    def facet(self) -> SeatValues | None:
        """What the game's seats start with (``GAME.seat_values``): the arms are then assignments of it."""
        return getattr(self.spec.base.game, "seat_values", None)

    def check(self) -> None:
        self.spec.check()
        game = self.spec.base.game
        low, high = game.min_players, game.max_players
        if not self.players or any(not low <= p <= high for p in self.players):
            raise ValueError(f"--players must be {low} to {high} for {game.title} (comma-separated), "
                             f"got {list(self.players)}")  # fmt: skip
        facet = self.facet
        if facet is None and (self.values is not None or self.factorial):
            raise ValueError(f"{game.title}'s seats start alike: nothing to set or permute over them")
        if facet is not None and self.values is not None and len(self.values) < max(self.players):
            raise ValueError(
                f"{facet.flag} needs a value for every seat of the largest table ({max(self.players)} players), "
                f"got {list(self.values)}"
            )

    def seat_values(self, players: int) -> tuple[int, ...]:
        if self.values is not None:
            return tuple(self.values[:players])
        return self.facet.usual(players) if self.facet is not None else ()

    def arms(self, players: int) -> list[tuple[int, ...]]:
        if self.facet is None:
            return [()]  # one mirror arm
        values = self.seat_values(players)
        if not self.factorial:
            return [values]
        return [tuple(values[(k - r) % players] for k in range(players)) for r in range(players)]


def _wins(run_dir: Path, players: int, column: str | None) -> pl.DataFrame:
    """Per played game: its index, the win share of each seat (columns w1..wP) and each seat's value (v1..vP, from
    the seats table's ``column``)."""
    run = open_run(run_dir)
    has_value = column is not None and column in run.seats().collect_schema()
    values = ["win", column] if has_value else ["win"]
    seats = collect(run.seats().select("game", "seat", *values))
    wide = seats.pivot(on="seat", index="game", values=values, aggregate_function="first")
    rename = {}
    for k in range(1, players + 1):
        rename[f"win_{k}"] = f"w{k}"
        rename[f"{column}_{k}"] = f"v{k}"
    if values == ["win"]:  # one value: the pivot names the columns by seat alone
        rename = {str(k): f"w{k}" for k in range(1, players + 1)}
    return wide.rename({c: rename.get(c, c) for c in wide.columns}).sort("game")


def compute(plan: SeatsPlan, out: Path, ledger: Ledger | None = None) -> tuple[list[dict], dict]:
    """Play (or read) every arm and return the verdict rows and the per-arm tables."""
    plan.check()
    spec = plan.spec
    ledger = ledger if ledger is not None else Ledger()
    rows: list[dict] = []
    arms_info: dict = {}
    per_setup_of: dict[tuple[str, int, int], tuple[np.ndarray, np.ndarray]] = {}
    facet = plan.facet
    column = facet.option if facet is not None else None
    for strategy in spec.strategies:
        for p in plan.players:
            frames = []
            for values in plan.arms(p):
                given = (
                    {} if column is None else {column: values if plan.values is not None or plan.factorial else None}
                )
                settings = spec.settings(
                    games=spec.groups, players=p, strategies=(strategy,), format="fixed", rotate_seats=False, **given
                )  # fmt: skip
                arm = f"{facet.arm}-" + "-".join(map(str, values)) if facet is not None else "mirror"
                d = ledger.play(spec, strategy, settings, arm_dir(out, strategy, f"{p}p", arm))
                frames.append(_wins(d, p, column))
                arms_info.setdefault(strategy, {}).setdefault(str(p), []).append(list(values))
            # the setups every arm played (a failed game drops its setup from all arms)
            common = frames[0].select("game")
            for f in frames[1:]:
                common = common.join(f.select("game"), on="game")
            frames = [common.join(f, on="game").sort("game") for f in frames]
            n_arms = len(frames)
            fair = 1.0 / p
            span = (-fair, 1.0 - fair)  # where a seat's (or a value's) win share less 1/P lies
            for k in range(1, p + 1):
                per_setup = sum(f[f"w{k}"].to_numpy() for f in frames) / n_arms - fair
                per_setup_of[(strategy, p, k)] = (common["game"].to_numpy(), per_setup)
                known = column is not None and not plan.factorial and len(frames[0]) and f"v{k}" in frames[0].columns
                note = {column: int(frames[0][f"v{k}"][0]) if known else None} if column is not None else {}
                est = mean_interval(per_setup, within=span)
                rows.append(render.row("seat", k, strategy, est, spec.margin, per_setup, players=p, **note,
                                       arms=n_arms))  # fmt: skip
            if plan.factorial and column is not None:
                for v in sorted(set(plan.seat_values(p))):
                    per_setup = np.zeros(len(common))
                    for f in frames:
                        w = np.column_stack([f[f"w{k}"].to_numpy() for k in range(1, p + 1)])
                        held = np.column_stack([f[f"v{k}"].to_numpy() == v for k in range(1, p + 1)])
                        per_setup += (w * held).sum(1) / held.sum(1)
                    per_setup = per_setup / n_arms - fair
                    est = mean_interval(per_setup, within=span)
                    rows.append(render.row(column, v, strategy, est, spec.margin,
                                           per_setup, players=p, arms=n_arms))  # fmt: skip
    render.mark_robust(rows)
    if plan.ladder:
        arms_info["ladder"] = ladder_rows(plan, per_setup_of)
    return rows, arms_info


def ladder_rows(plan: SeatsPlan, per_setup_of: dict) -> list[dict]:
    """Per player count and seat: does the seat edge settle between the top two rungs (the same setups, paired)?"""
    top, second = plan.spec.strategies[-1], plan.spec.strategies[-2]
    out = []
    for p in plan.players:
        for k in range(1, p + 1):
            games_top, top_values = per_setup_of[(top, p, k)]
            games_second, second_values = per_setup_of[(second, p, k)]
            both, i_top, i_second = np.intersect1d(games_top, games_second, return_indices=True)
            state, diff = ladder.settled(top_values[i_top], second_values[i_second], plan.spec.margin)
            out.append({"players": p, "seat": k, "state": state, "setups": int(len(both)), **diff})
    return out


def run_study(plan: SeatsPlan, out: Path) -> dict[str, Path]:
    ledger = Ledger()
    rows, arms_info = compute(plan, out, ledger)
    spec = plan.spec
    # the rungs' ratings first: the header's games table counts them
    players = max(2, spec.base.game.min_players)
    rungs = ladder.strengths(spec, spec.strategies, plan.elo_groups, players, out, ledger) if plan.ladder else []
    page = render.Page("Seat balance: mirror play")
    header(page, spec, ledger, (
        "The same strategy in every seat, so any difference between seats is the game's, not the players'. "
        "Effect: the seat's win share minus the fair share 1/P, in percentage points (a shared win counts as a share)."
    ))  # fmt: skip
    facet = plan.facet
    if facet is not None and not plan.factorial:
        given = facet.usual_text if plan.values is None else f"{facet.flag} {list(plan.values)}"
        page.p(f"{facet.label.capitalize()} follows the seat here ({given}), so a seat row carries the seat order and "
               f"its {facet.label} together; {facet.factorial_flag} separates them.")  # fmt: skip
    elif facet is not None:
        page.p(f"{facet.label.capitalize()}s permuted over the seats in a cyclic Latin square (every {facet.label} "
               f"once in every seat, the same setups in every arm): the seat rows are the seat order alone, the "
               f"{facet.label.replace(' ', '-')} rows the {facet.label} alone.")  # fmt: skip
    for strategy in spec.strategies:
        mine = [r for r in rows if r["strategy"] == strategy]
        seat_rows = [r for r in mine if r["subject"] == "seat"]
        page.h(f"Seats, `{strategy}`")
        cols = [("players", lambda r: str(r["players"]))] + render.verdict_columns("seat")
        if facet is not None and not plan.factorial:
            cols.insert(2, (facet.label, lambda r: str(r[facet.option])))
        page.table(seat_rows, cols)
        name = f"seats_{len(page.charts)}"
        fig = charts.seat_chart(seat_rows, f"Seat edge in mirror play: {strategy}", spec.margin)
        caption = f"Seat edge per player count, {strategy}: win share above 1/P with 95% intervals; band = margin."
        page.chart(name, charts.save(fig, out / "charts", name), caption)
        value_rows = [r for r in mine if facet is not None and r["subject"] == facet.option]
        if facet is not None and value_rows:
            page.table(value_rows, [("players", lambda r: str(r["players"]))] + render.verdict_columns(facet.label))
    climbed = _ladder_section(page, plan, rows, arms_info, out, rungs) if plan.ladder else None
    held, changed = _agreement(rows)
    page.h("Across skill levels")
    page.p(f"Robust verdicts (every skill level agrees): {held or 'none'}. Verdicts that differ: {changed or 'none'}.")
    document = {
        "study": "seats", "game": spec.base.game.name, "command": spec.command, "seed": spec.seed,
        "groups": spec.groups, "margin_pp": spec.margin, "strategies": list(spec.strategies),
        "players": list(plan.players), "rules": spec.rule_dict(), "factorial": plan.factorial, "arms": arms_info,
        "games": ledger.to_dict(), "rows": rows,
    }  # fmt: skip
    if climbed is not None:
        strengths, climb = climbed
        document["ladder"] = {"rungs": [s.to_dict() for s in strengths], **climb.to_dict(),
                              "settling": arms_info.get("ladder", [])}  # fmt: skip
    return render.write(out, page, document)


def _ladder_section(
    page, plan: SeatsPlan, rows: list[dict], arms_info: dict, out: Path, strengths: list[ladder.RungStrength]
) -> tuple[list[ladder.RungStrength], ladder.Climb]:
    """The strength ladder (``strengths``: the rungs' ratings): each rung's Elo against the first, whether the rungs
    climb, each seat's edge by rung, and whether it settled (``arms_info["ladder"]`` rewritten to *no climb* on a
    ladder that does not climb)."""
    spec = plan.spec
    climb = ladder.climb(strengths)
    arms_info["ladder"] = ladder.judged(arms_info.get("ladder", []), climb)
    elos = {s.strategy: s.elo for s in strengths}
    ladder.strength_intro(page, spec, strengths, plan.elo_groups, "seat edge", climb_=climb)
    by_rung = {(r["strategy"], r["players"], r["key"]): r for r in rows if r["subject"] == "seat"}

    def effect_at(rung: str):
        return lambda r: render.pp(by_rung[(rung, r["players"], r["seat"])]["effect"])

    page.table(arms_info.get("ladder", []), [
        ("players", lambda r: str(r["players"])), ("seat", lambda r: str(r["seat"])),
        *[(f"`{rung}` (pp)", effect_at(rung)) for rung in spec.strategies],
        *ladder.settling_columns(),
    ])  # fmt: skip
    seat_rows = [r for r in rows if r["subject"] == "seat"]
    fig = charts.ladder_chart(seat_rows, elos, "Seat edge against player strength", spec.margin)
    caption = (
        "Each seat's edge (win share above 1/P, 95% intervals) at each rung, placed at the rung's Elo against "
        f"the first rung; band = margin. {ladder.chart_tail(climb)}"
    )
    page.chart("ladder", charts.save(fig, out / "charts", "ladder"), caption)
    return strengths, climb


def _agreement(rows: list[dict]) -> tuple[str, str]:
    by: dict[tuple, list[dict]] = {}
    for r in rows:
        by.setdefault((r["subject"], r.get("players"), r["key"]), []).append(r)
    held, changed = [], []
    for (subject, players, key), members in sorted(by.items(), key=lambda kv: str(kv[0])):
        name = f"{subject} {key} ({players}p): "
        if members[0]["robust"]:
            held.append(name + members[0]["verdict"])
        elif len({m["verdict"] for m in members}) > 1:
            changed.append(name + " / ".join(f"{m['verdict']} ({m['strategy']})" for m in members))
    return "; ".join(held), "; ".join(changed)
