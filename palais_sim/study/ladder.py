"""A strength ladder for a study (as TAG's SkillLadder): one search strategy at a budget doubled per rung, each rung's
strength measured against the first, and whether a verdict settles as the players get stronger.

``rungs("ismcts:budget=8", 4)`` gives ismcts at budgets 8, 16, 32 and 64. Each rung above the first plays a
two-player match against the first rung on paired, seat-rotated games (``elo_groups`` setups), and its Elo against
the first rung comes from its score with a 95% interval. A study plays its arms at every rung (the rungs are its skill
levels) and asks of each subject whether the effect *settled*: the top two rungs' effects, compared on the same
setups (a paired difference), agree within the margin. A difference surely beyond the margin is *moving*; anything
else is *not settled* (more setups would tell).

That reading needs a ladder that *climbs*: the top rung surely stronger than the first, and no rung surely weaker than
the one below it (``climb``). More budget does not always buy strength (``expert`` at budget 8 scored 41.4%, -60 Elo
[-94, -28], against itself at budget 2), and on a ladder that does not climb every subject's state is *no climb*:
the top two rungs agreeing says nothing about stronger players.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from palais_sim.analytics import paired, sprt
from palais_sim.analytics.runs import open_run
from palais_sim.study import charts, render
from palais_sim.study.common import Ledger, StudySpec, arm_dir
from palais_sim.study.evidence import differing, shortfall

BUDGET = re.compile(r"(?<=[:,])budget=(\d+)")
MAX_RUNGS = 8
NO_CLIMB = "no climb"  # a subject's state on a ladder that does not climb (never settled, moving or not settled)
CLIMBING_EXAMPLE = "ismcts:budget=25,horizon=2"  # a strategy whose budget buys strength, for the advice
FEW_SETUPS = 200  # fewer setups than this give an Elo interval a hundred Elo or more wide: the page says so
SIGN_TEST_SETUPS = 5  # a rung that scored the same in every setup is surely ahead only from 5 setups on (0.5^5 < 5%)


def rungs(spec: str, count: int) -> tuple[str, ...]:
    """The ladder's strategy specs: ``spec`` with its ``budget=`` doubled ``count - 1`` times."""
    found = BUDGET.search(spec)
    if found is None:
        raise ValueError(f"--ladder needs a strategy with a budget, e.g. ismcts:budget=8; got {spec!r}")
    if not 2 <= count <= MAX_RUNGS:
        raise ValueError(f"--rungs must be 2 to {MAX_RUNGS}, got {count}")
    budget = int(found.group(1))
    if budget < 1:
        raise ValueError(f"--ladder: the budget must be at least 1, got {budget}")
    return tuple(spec[: found.start(1)] + str(budget * 2**k) + spec[found.end(1) :] for k in range(count))


@dataclass(frozen=True)
class RungStrength:
    """A rung's strength against the first rung: score share with its interval and the Elo it means."""

    strategy: str
    score: float
    ci: tuple[float, float]
    groups: int

    @property
    def elo(self) -> float:
        return sprt.score_to_elo(self.score)

    def to_dict(self) -> dict:
        low, high = self.ci
        elo_ci = [_round(sprt.score_to_elo(low), 1), _round(sprt.score_to_elo(high), 1)]
        why = sprt.unbounded_elo(self.score, "the rung", "the first rung") if self.groups else None
        if why is None and self.groups and not (low > 0.0 and high < 1.0):
            why = "its score interval reaches 0 or 1: that end of its Elo interval is unbounded"
        return {
            "strategy": self.strategy, "score": _round(self.score), "score_ci": [_round(low), _round(high)],
            "elo": _round(self.elo, 1), "elo_ci": elo_ci, "elo_reason": why, "groups": self.groups,
        }  # fmt: skip


def _round(x: float, digits: int = 4) -> float | None:
    return round(float(x), digits) if np.isfinite(x) else None


def strengths(
    spec: StudySpec, ladder: tuple[str, ...], groups: int, players: int, out: Path, ledger: Ledger
) -> list[RungStrength]:
    """Each rung's score against the first rung over ``groups`` setups in every seating, the rung against
    ``players - 1`` copies of the first (the first rung scores 0.5 against itself by definition)."""
    first = ladder[0]
    result = [RungStrength(first, 0.5, (0.5, 0.5), 0)]
    for rung in ladder[1:]:
        table = (rung,) + (first,) * (players - 1)
        settings = spec.settings(
            games=groups * players, players=players, strategies=table, format="fixed", rotate_seats=True
        )
        d = ledger.play(spec, rung, settings, arm_dir(out, rung, "ladder", "vs-first-rung"))
        est = paired.mean_interval(paired.focus_groups(open_run(d))["score"].to_numpy(), within=(0.0, 1.0))
        result.append(RungStrength(rung, est.mean, (est.low, est.high), est.n_groups))
    return result


@dataclass(frozen=True)
class Climb:
    """Whether a ladder climbs, and if not, why (in one clause naming the rungs' Elo)."""

    climbs: bool
    reason: str | None = None

    def to_dict(self) -> dict:
        return {"climbs": self.climbs, "climb_reason": self.reason}


def _surely_above(low: float, high: float, groups: int, level: float) -> bool:
    """A score interval wholly above ``level``; one of no width (every setup scored the same) only from
    ``SIGN_TEST_SETUPS`` setups on, where that is unlikely between equal players (a sign test)."""
    if not (np.isfinite(low) and low > level):
        return False
    return low < high or groups >= SIGN_TEST_SETUPS


def _surely_below(low: float, high: float, groups: int, level: float) -> bool:
    """A score interval wholly below ``level`` (the mirror image of :func:`_surely_above`)."""
    return _surely_above(-high, -low, groups, -level)


def _strength_text(s: RungStrength) -> str:
    d = s.to_dict()
    return f"`{s.strategy}` {_elo_text(d)}"


def climb(strengths_: list[RungStrength]) -> Climb:
    """Whether the rungs get stronger, read from each rung's score against the first (``strengths``): the top rung
    surely stronger than the first (its 95% score interval above 0.5, its Elo interval above 0), and no rung surely
    weaker than the rung below it (its interval wholly below that rung's; both are scores against the same first
    rung on the same setups, and two disjoint 95% intervals are a stricter test than one 95% interval of their
    difference, so a rung called weaker here is weaker)."""
    if len(strengths_) < 2:
        return Climb(False, "a ladder needs two rungs")
    elos = "; ".join(_strength_text(s) for s in strengths_[1:])
    top = strengths_[-1]
    if not (top.groups and _surely_above(*top.ci, top.groups, 0.5)):
        return Climb(False, f"the top rung `{top.strategy}` is not surely stronger than the first rung "
                            f"`{strengths_[0].strategy}` (Elo against the first rung: {elos})")  # fmt: skip
    for lower, upper in zip(strengths_, strengths_[1:], strict=False):
        if _surely_below(*upper.ci, upper.groups, lower.ci[0] if lower.groups else 0.5):
            return Climb(False, f"`{upper.strategy}` is surely weaker than `{lower.strategy}` below it "
                                f"(Elo against the first rung: {elos})")  # fmt: skip
    return Climb(True)


def judged(settling: list[dict], climb_: Climb) -> list[dict]:
    """The settling rows as the ladder allows them: unchanged on a ladder that climbs, else every state ``no climb``
    (the top two rungs' difference and its interval are kept: they were measured, they only mean less)."""
    if climb_.climbs:
        return settling
    return [{**r, "state": NO_CLIMB} for r in settling]


def advice(climb_: Climb) -> str | None:
    """One sentence for a page (and the warning line) when the ladder does not climb: why, and what to do."""
    if climb_.climbs:
        return None
    return (
        f"This ladder does not climb: {climb_.reason}, so no effect settles or moves on it (every state is "
        f"*{NO_CLIMB}*); for a ladder of stronger players use a strategy whose budget buys strength, e.g. "
        f"`--ladder {CLIMBING_EXAMPLE}`."
    )


def chart_tail(climb_: Climb) -> str:
    """The last sentence of a ladder chart's caption."""
    if climb_.climbs:
        return "Flat at the right: the verdict holds for stronger players."
    return "This ladder does not climb: the right is not the stronger players."


def settled(top: np.ndarray, second: np.ndarray, margin_pp: float) -> tuple[str, dict]:
    """Whether an effect settled between the top two rungs: their per-setup values (share scale, the same setups),
    paired. ``settled`` when the difference lies within the margin, ``moving`` when it lies surely beyond it; never
    either with fewer setups in which the rungs differ than a verdict needs (``study.evidence``): three setups of
    equal values are no evidence that the rungs agree."""
    differences = np.asarray(top) - np.asarray(second)
    est = paired.mean_interval(differences, within=(-1.0, 1.0))  # two win-share differences' difference
    low, high = 100 * est.low, 100 * est.high
    why = shortfall(differing(differences), est.n_groups, low, high, 0.95)
    word = paired.verdict(low, high, margin_pp) if why is None else "undecided"
    state = {"balanced": "settled", "favoured": "moving", "disfavoured": "moving"}.get(word, "not settled")
    return state, {"difference": _round(100 * est.mean), "ci": [_round(low), _round(high)], "evidence": why}


def strength_intro(
    page, spec: StudySpec, strengths_: list, elo_groups: int, what: str, tail: str = "", climb_: Climb | None = None
) -> None:
    """A study page's ladder heading: how the rungs were rated, what "settled" means for ``what`` (a seat edge, a
    value), each rung's strength, and (``climb_``) why nothing settles on a ladder that does not climb."""
    page.h("Strength ladder")
    page.p(
        "The skill levels are one search player at a budget doubled per rung. Each rung above the first played "
        f"{elo_groups} setups in every seating against the first rung: its strength is its score there, as Elo. "
        f"A {what} has **settled** when the top two rungs agree within the margin (+-{spec.margin:g} pp, their "
        "difference on the same setups with its 95% interval); **moving** when it surely differs by more; else not "
        f"settled yet.{tail}"
        + (
            f" From {elo_groups} setups a rung's Elo interval is wide: it says whether the rung is surely stronger "
            "than the first, not by how much."
            if elo_groups < FEW_SETUPS
            else ""
        )
    )
    page.table([s.to_dict() for s in strengths_], strength_columns())
    why = advice(climb_) if climb_ is not None else None
    if why is not None:
        page.p(f"**{why}**")


def settling_columns() -> list:
    """The columns that end a settling table (``settled`` rows): the top two rungs' difference and the state."""
    return [
        ("top two rungs differ by (pp)", lambda r: f"{render.pp(r['difference'])} {render.ci_text(r['ci'])}"),
        ("state", _state_text),
    ]


def _state_text(r: dict) -> str:
    if r["state"] != "not settled":
        return f"**{r['state']}**"
    return f"not settled ({r['evidence']})" if r.get("evidence") else "not settled"


def strength_columns() -> list:
    """The page's columns of the rungs' strengths (``RungStrength.to_dict`` rows)."""
    return [
        ("rung", lambda r: f"`{r['strategy']}`"),
        ("score against the first rung", _score_text),
        ("Elo [95%]", _elo_text),
        ("setups", lambda r: f"{r['groups']:,}" if r["groups"] else "–"),
    ]


def _no_spread(r: dict) -> bool:
    """Every setup scored the same (all won, all lost, all split): the groups give no interval, only a zero width."""
    low, high = r["score_ci"]
    return low is not None and low == high


def _score_text(r: dict) -> str:
    if not r["groups"]:
        return "–"
    if r["score"] in (0.0, 1.0):
        return f"{r['score']:.3f} (every game {'won' if r['score'] else 'lost'})"
    if _no_spread(r):
        return f"{r['score']:.3f} (every setup the same: no interval)"
    return f"{r['score']:.3f} [{r['score_ci'][0]:.3f}, {r['score_ci'][1]:.3f}]"


def _elo_text(r: dict) -> str:
    if not r["groups"]:
        return "0 (the reference)"
    if r["elo"] is None:  # a score of 0 or 1: no finite Elo
        return f"{'above' if r['score'] >= 0.5 else 'below'} the first rung, unbounded"
    if _no_spread(r):
        return f"{_elo(r['elo'])} (no interval)"
    low, high = r["elo_ci"]
    return f"{_elo(r['elo'])} [{_elo(low)}, {_elo(high)}]"


def _elo(x: float | None) -> str:
    return "unbounded" if x is None else f"{round(x):+d}"


def subject_settling(
    keys: list[tuple[str, str]], values: Callable[[str, str], pl.DataFrame], spec: StudySpec
) -> list[dict]:
    """Per (subject, key): does its effect settle between the top two rungs? ``values(rung, key)`` gives the
    effect per setup (columns ``group`` and ``value``, share scale); the two rungs are paired on their common
    setups."""
    top, second = spec.strategies[-1], spec.strategies[-2]
    found = []
    for subject, key in keys:
        both = values(top, key).join(values(second, key), on="group", how="inner", suffix="_second")
        state, diff = settled(both["value"].to_numpy(), both["value_second"].to_numpy(), spec.margin)
        found.append({"subject": subject, "key": key, "state": state, "setups": both.height, **diff})
    return found


def subject_section(
    page, spec: StudySpec, rows: list[dict], settling: list[dict], players: int, elo_groups: int, out: Path,
    strengths_: list[RungStrength], what: str, ylabel: str,
) -> dict:  # fmt: skip
    """A study page's strength ladder for subjects (a game's components): each rung's Elo against the first, each
    subject's effect by rung, whether it settled between the top two rungs, and the chart of effect against Elo.
    ``strengths_``: the rungs' ratings, played before the page's header so that its games table counts them."""
    climb_ = climb(strengths_)
    settling = judged(settling, climb_)
    elos = {s.strategy: s.elo for s in strengths_}
    strength_intro(page, spec, strengths_, elo_groups, what,
                   " A verdict that has not settled may not hold for a stronger player.", climb_)  # fmt: skip
    by_rung = {(r["strategy"], r["key"]): r for r in rows}

    def effect_at(rung: str):
        return lambda r: f"{render.pp(by_rung[(rung, r['key'])]['effect'])} ({by_rung[(rung, r['key'])]['verdict']})"

    page.table(settling, [
        ("subject", lambda r: r["key"]),
        *[(f"`{rung}` {what} (pp)", effect_at(rung)) for rung in spec.strategies],
        *settling_columns(),
    ])  # fmt: skip
    chart_rows = [{**r, "players": players} for r in rows]
    fig = charts.ladder_chart(chart_rows, elos, f"{what.capitalize()} against player strength", spec.margin,
                              label="{}", ylabel=ylabel)  # fmt: skip
    caption = (
        f"Each subject's {what} (pp of win share, 95% intervals) at each rung, placed at the rung's Elo against the "
        f"first rung; band = margin. {chart_tail(climb_)}"
    )
    page.chart("ladder", charts.save(fig, out / "charts", "ladder"), caption)
    return {"rungs": [s.to_dict() for s in strengths_], **climb_.to_dict(), "settling": settling}


def warning_line(document: dict) -> str | None:
    """The one line a study command prints (stderr) when its ladder does not climb (``document``: its study.json)."""
    found = document.get("ladder") or {}
    if found.get("climbs") is not False:
        return None
    return (
        f"warning: the strength ladder does not climb: {found.get('climb_reason')}; nothing settles on it "
        f"(every state {NO_CLIMB}); try a strategy whose budget buys strength, e.g. --ladder {CLIMBING_EXAMPLE}"
    )
