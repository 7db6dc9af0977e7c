"""``palais balance nobles``: propose the gold prices that bring every noble within the margin, validated on fresh
seeds.

A sequential search, one noble at a time, on the nobles study's own measure (``study.nobles``: the value of having a
noble available and the take rates), at every skill level:

1. **Before**: the nobles study of the given set (seed S).
2. **Search**, in ``rounds`` rounds (the first on the study before, each later one on the nobles study of the
   proposal so far at other seeds, which also catches what the changes did to the other nobles): the nobles called
   underpriced or overpriced at some level (the worst first, by their value; at most ``max_changes`` nobles in all;
   a noble one level calls underpriced and another overpriced is left alone, since no price pleases both) are
   repriced in turn, each on the set as proposed so far (so a later noble sees the earlier changes): from
   its price, steps of 1, 2, 4, ... gold in the direction its verdict asks for until no level calls it the same any
   more, then a bisection between the last price on the old side and the first past it, for the price nearest its
   own at which no level calls it that. A price where a level calls it the reverse is not taken: the search keeps
   the nearest price on the old side and says so. Gold never goes below 0 nor more than ``max_step`` away.
3. **Validation**: the nobles study of the proposal on fresh seeds (another root seed), every skill level, the same
   subjects: what a designer would run on the new file. The nobles it changed are studied again with the given set
   on the same fresh seeds: the before/after comparison is made there, not on the seeds that selected them (their
   values there are biased away from 0, a winner's curse).

Every arm is a run of its own under the output folder (resumable; a repeated command reuses them). Why sequential and
not a joint optimiser (optuna, CMA-ES): a noble's value moves one way with its price (a monotone, noisy line), so a
bracketing search finds its boundary in a handful of arms, and the validation on fresh seeds checks the joint effect
of all changes at once; a joint optimiser would spend its budget on the 40 nobles that are already within the margin.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from palais_sim.games.palais_royal.components import ComponentSet, load_components
from palais_sim.games.palais_royal.studies import nobles
from palais_sim.games.palais_royal.studies.variants import repriced, write_variant
from palais_sim.study import charts, render
from palais_sim.study.common import Ledger, StudySpec, header

VALIDATION_SEED_OFFSET = 1_000_003  # the validation's root seed: the search's plus this (fresh setups)
ROUND_SEED_OFFSET = 7_919  # round r > 1 studies the proposal so far at the search's seed plus r times this
UNDER, OVER, FAIR, MIXED = "underpriced", "overpriced", "fair", "levels disagree"


@dataclass(frozen=True)
class BalancePlan:
    spec: StudySpec
    players: int = 2
    subjects: tuple[str, ...] | None = None  # noble ids; None: every noble
    budget: int = 500_000  # games, search and validation together
    max_changes: int = 5
    max_step: int = 12  # gold: the farthest a price may move
    rounds: int = 2  # search rounds: round 2 studies the proposal again (other seeds) and reprices what is still off
    looks: int = 1  # the nobles study's sequential looks (``NoblesPlan.looks``)

    def nobles_plan(self, spec: StudySpec | None = None, subjects: tuple[str, ...] | None = None) -> nobles.NoblesPlan:
        return nobles.NoblesPlan(spec or self.spec, players=self.players, subjects=subjects or self.subjects,
                                 reprice="none", looks=self.looks)  # fmt: skip

    def arm_games(self) -> int:
        """Games of one subject's arms at every skill level."""
        return len(self.spec.strategies) * self.spec.groups * self.players

    def check(self, comps: ComponentSet) -> tuple[str, ...]:
        """The nobles to balance (one-line errors for bad input)."""
        self.nobles_plan().check(comps)
        ids = {n.id for n in comps.nobles}
        kinds = [s for s in self.subjects or () if s not in ids]
        if kinds:
            raise ValueError(f"--nobles: balance prices nobles, not privilege kinds ({', '.join(kinds)})")
        if self.max_changes < 1:
            raise ValueError(f"--max-changes must be at least 1, got {self.max_changes}")
        if self.max_step < 1:
            raise ValueError(f"--max-step must be at least 1, got {self.max_step}")
        if self.rounds < 1:
            raise ValueError(f"--rounds must be at least 1, got {self.rounds}")
        subjects = tuple(self.subjects) if self.subjects else tuple(n.id for n in comps.nobles)
        needed = 3 * len(subjects) * self.arm_games() + self.arm_games()
        if self.budget < needed:
            raise ValueError(
                f"--budget {self.budget:,} games is too small: the study before, one search step, the validation and "
                f"the study before again on its seeds of {len(subjects)} nobles need {needed:,} at "
                f"{len(self.spec.strategies)} skill level(s), {self.spec.groups} groups and {self.players} players"
            )
        return subjects


def side(rows: list[dict]) -> str:
    """What the skill levels together say of a noble's price."""
    verdicts = {r["verdict"] for r in rows}
    if "favoured" in verdicts and "disfavoured" in verdicts:
        return MIXED
    if "favoured" in verdicts:
        return UNDER
    if "disfavoured" in verdicts:
        return OVER
    return FAIR


def _worst(rows: list[dict]) -> float:
    return max(abs(r["effect"] or 0.0) for r in rows) + (100.0 if any(r["reason"] == "dead" for r in rows) else 0.0)


@dataclass
class Search:
    plan: BalancePlan
    out: Path
    ledger: Ledger
    spent: int = 0  # games so far (the study before included)
    reserve: int = 0  # games kept for the validation

    def evaluate(self, comps: ComponentSet, noble: str, price: int) -> list[dict]:
        """The noble's rows at every skill level, with the set ``comps`` and the noble at ``price``."""
        variant = repriced(comps, noble, price)
        path = write_variant(variant, self.out / "components" / f"{variant.hash[:12]}.toml",
                             f"{comps.name} with {noble} at {price} gold (palais balance nobles)")  # fmt: skip
        spec = replace(self.plan.spec, base=replace(self.plan.spec.base, components=str(path)))
        nplan = self.plan.nobles_plan(spec, (noble,))
        rows = []
        for strategy in spec.strategies:
            row = nobles.play_subject(nplan, self.ledger, self.out, strategy, "noble", noble, variant, str(path),
                                      variant.hash[:12])  # fmt: skip
            rows.append(row)
            self.spent += row["games"]
        return rows

    def affordable(self) -> bool:
        return self.spent + self.plan.arm_games() + self.reserve <= self.plan.budget

    def price(self, comps: ComponentSet, noble: str, start: str) -> tuple[int, str, list[dict], list[dict]]:
        """The price nearest the noble's own at which no level calls it ``start`` any more; returns it, what the
        levels say there, its rows and every price tried (``{price, side, rows}``)."""
        gold = comps.nobles[comps.noble_index[noble]].gold
        direction = 1 if start == UNDER else -1
        tried: list[dict] = []

        def at(price: int) -> str:
            rows = self.evaluate(comps, noble, price)
            tried.append({"price": price, "side": side(rows), "rows": rows})
            return side(rows)

        inside, beyond, step = gold, None, 1  # inside: the last price still on the old side
        while self.affordable():
            price = gold + direction * step
            if price < 0 or abs(price - gold) > self.plan.max_step:
                price = max(0, gold + direction * min(step, self.plan.max_step))
                if price == inside:
                    break
            if at(price) != start:
                beyond = price
                break
            inside = price
            if price == 0 or abs(price - gold) >= self.plan.max_step:
                break
            step *= 2
        while beyond is not None and abs(beyond - inside) > 1 and self.affordable():
            middle = (inside + beyond) // 2
            if at(middle) == start:
                inside = middle
            else:
                beyond = middle
        by_price = {t["price"]: t for t in tried}
        # the best price measured: the fair one nearest the noble's own (a bisection whose last probe overshot to the
        # reverse side must not throw away a fair price it measured before), else the nearest on the old side
        fair = sorted((abs(p - gold), p) for p, t in by_price.items() if t["side"] == FAIR)
        chosen = fair[0][1] if fair else inside
        if chosen == gold:
            return gold, start, [], tried
        found = by_price[chosen]
        return chosen, found["side"], found["rows"], tried


def run_balance(plan: BalancePlan, out: Path) -> dict[str, Path]:
    spec = plan.spec
    comps = load_components(spec.base.components)
    subjects = plan.check(comps)
    ledger = Ledger()
    study_games = len(subjects) * plan.arm_games()
    before, _ = nobles.compute(plan.nobles_plan(subjects=subjects), out / "before", ledger)
    # kept for the end: the validation, and the given set again on its fresh seeds for the nobles changed
    search = Search(plan, out / "search", ledger, spent=study_games, reserve=2 * study_games)
    current, rows, changes, skipped = comps, before, [], []
    for round_no in range(plan.rounds):
        if round_no:  # the proposal so far, studied again on other seeds: what the changes did to the others
            if search.spent + study_games + search.reserve > plan.budget:
                break
            path = write_variant(current, out / "components" / f"{current.hash[:12]}.toml")
            check = replace(spec, seed=spec.seed + round_no * ROUND_SEED_OFFSET,
                            base=replace(spec.base, components=str(path)))  # fmt: skip
            rows, _ = nobles.compute(plan.nobles_plan(check, subjects), out / f"check-{round_no}", ledger)
            search.spent += study_games
        by_noble: dict[str, list[dict]] = {}
        for r in rows:
            by_noble.setdefault(r["key"], []).append(r)
        skipped = sorted(n for n, group in by_noble.items() if side(group) == MIXED)
        changed = {c["noble"] for c in changes if c["new_gold"] != c["gold"]}
        off = [(n, side(group)) for n, group in by_noble.items() if side(group) in (UNDER, OVER)]
        off = [item for item in off if item[0] in changed or len(changed) < plan.max_changes]
        off.sort(key=lambda item: -_worst(by_noble[item[0]]))
        if not off:
            break
        for noble, start in off:
            if not search.affordable():
                break
            if noble not in changed and len(changed) >= plan.max_changes:
                continue  # no new noble any more, but those already changed may still be repriced
            gold = current.nobles[current.noble_index[noble]].gold
            if start == OVER and gold == 0:  # no cheaper gold price exists: its seals (or points) are the cost
                if not any(c["noble"] == noble and c["new_gold"] == 0 for c in changes):
                    changes.append({"round": round_no + 1, "noble": noble, "was": start, "gold": 0, "new_gold": 0,
                                    "now": start, "before": by_noble[noble], "at_new_price": [],
                                    "tried": []})  # fmt: skip
                continue
            price, now, found, tried = search.price(current, noble, start)
            changes.append({"round": round_no + 1, "noble": noble, "was": start, "gold": gold, "new_gold": price,
                            "now": now, "before": by_noble[noble], "at_new_price": found,
                            "tried": [{"price": t["price"], "side": t["side"]} for t in tried]})  # fmt: skip
            if price != gold:
                current = repriced(current, noble, price)
                changed.add(noble)
    proposal = replace(current, name=f"{comps.name}-balanced")
    balanced = write_variant(proposal, out / "balanced.toml", _toml_note(comps, changes, plan))
    fresh = replace(spec, seed=spec.seed + VALIDATION_SEED_OFFSET, base=replace(spec.base, components=str(balanced)))
    validation, _ = nobles.compute(plan.nobles_plan(fresh, subjects), out / "validation", ledger)
    # the before of the before/after comparison: the given set on the same fresh seeds (the search's own study
    # selected the nobles it changed, so its values are biased away from 0: a winner's curse)
    moved = tuple(n for n in subjects if n in {c["noble"] for c in changes})
    before_fresh: list[dict] = []
    if moved:
        given = replace(spec, seed=fresh.seed)  # the given set, the validation's seeds
        before_fresh, _ = nobles.compute(plan.nobles_plan(given, moved), out / "before-fresh", ledger)
    spent = search.spent + study_games + len(moved) * plan.arm_games()
    return _write(plan, out, ledger, before, validation, changes, skipped, spent, balanced, before_fresh)


def _proposed(change: dict) -> str:
    if change["new_gold"] != change["gold"]:
        return f"{change['new_gold']} gold"
    if change["was"] == OVER and change["gold"] == 0:
        return "unchanged: overpriced at no gold, its seals or points would have to change"
    return "unchanged"


def _toml_note(comps: ComponentSet, changes: list[dict], plan: BalancePlan) -> str:
    lines = [f"{comps.name}, balanced by palais balance nobles ({plan.players} players, skill levels "
             f"{', '.join(plan.spec.strategies)}, margin +-{plan.spec.margin:g} pp)."]  # fmt: skip
    for c in changes:
        if c["new_gold"] != c["gold"]:
            lines.append(f"{c['noble']}: {c['gold']} -> {c['new_gold']} gold (round {c['round']}: {c['was']} at "
                         f"{c['gold']}; {c['now']} at {c['new_gold']})")  # fmt: skip
        elif c["was"] == OVER and c["gold"] == 0:
            lines.append(f"{c['noble']}: left at 0 gold (overpriced already at no gold: its seals or points would "
                         "have to change)")  # fmt: skip
        else:
            lines.append(f"{c['noble']}: left at {c['gold']} gold ({c['was']}; no price within "
                         f"{plan.max_step} gold or the budget brought it within the margin)")  # fmt: skip
    return "\n".join(lines)


def _write(plan, out, ledger, before, validation, changes, skipped, spent, balanced, before_fresh) -> dict[str, Path]:
    spec = plan.spec
    confidence = plan.nobles_plan().confidence
    page = render.Page("Balancing the nobles' prices")
    header(page, spec, ledger, (
        f"{plan.players} players. A sequential search over the gold prices of the nobles the study calls under- or "
        "overpriced at some skill level (the worst first), each on the set as proposed so far, then the nobles "
        f"study of the proposal on fresh seeds (root seed {spec.seed + VALIDATION_SEED_OFFSET}). The proposal: "
        f"`{balanced.name}` (loads wherever --components is accepted)."
    ), confidence)  # fmt: skip
    page.p(f"Budget: {spent:,} of {plan.budget:,} games.")
    page.h("Changes")
    page.table(changes, [
        ("round", lambda c: str(c["round"])), ("noble", lambda c: c["noble"]),
        ("before", lambda c: f"{c['was']} at {c['gold']} gold"),
        ("proposed", _proposed),
        ("there", lambda c: c["now"]),
        ("prices tried", lambda c: ", ".join(f"{t['price']} ({t['side']})" for t in c["tried"]) or "–"),
    ])  # fmt: skip
    if skipped:
        page.p(f"Left alone (one skill level calls it underpriced, another overpriced): {', '.join(skipped)}.")
    changed = {c["noble"] for c in changes}
    rows = [dict(r, strategy=f"{r['strategy']} before") for r in before_fresh if r["key"] in changed]
    rows += [dict(r, strategy=f"{r['strategy']} after") for r in validation if r["key"] in changed]
    if rows:
        fig = charts.forest(rows, "Changed nobles: value before and after, on the same fresh seeds", spec.margin,
                            xlabel="value: 1/P - win share when forbidden it (pp)")  # fmt: skip
        caption = (
            "Each changed noble's value with the given set (before) and with the proposal (after), both on the "
            f"validation's fresh seeds (root seed {spec.seed + VALIDATION_SEED_OFFSET}), not on the seeds that "
            f"selected it; {render.level(confidence)} intervals."
        )
        page.chart("before_after", charts.save(fig, out / "charts", "before_after"), caption)
    page.h("Validation on fresh seeds")
    still = [r for r in validation if r["verdict"] in ("favoured", "disfavoured")]
    page.p(f"Nobles still called under- or overpriced at some skill level: "
           f"{', '.join(sorted({r['key'] for r in still})) or 'none'}.")  # fmt: skip
    columns = render.verdict_columns("noble", confidence=confidence) + [("reading", lambda r: r["reading"])]
    page.table(validation, columns)
    document = {
        "study": "balance-nobles", "command": spec.command, "seed": spec.seed,
        "validation_seed": spec.seed + VALIDATION_SEED_OFFSET, "groups": spec.groups, "margin_pp": spec.margin,
        "players": plan.players, "strategies": list(spec.strategies), "budget": plan.budget, "games_spent": spent,
        "max_changes": plan.max_changes, "rounds": plan.rounds, "balanced": str(balanced), "changes": changes,
        "skipped": skipped,
        "before": before, "before_fresh": before_fresh, "validation": validation, "games": ledger.to_dict(),
    }  # fmt: skip
    return render.write(out, page, document, stem="balance")
