"""A noble's whole price (gold, violet and turquoise seals, points) and the search for the cheapest change of it that
balances the noble (``palais balance nobles``).

**Cheapest** is an order, not a sum: a change of points is dearer than any change of seals, and a change of seals
dearer than any change of gold, within the limits; within one dimension, fewer units are cheaper. So the search
moves gold first, seals only when no gold price within ``--max-step`` balances, points only when no gold and seal
price does; and once a later dimension turns the verdict, it takes back as much of the earlier ones as it can.
(Gold is the lever a designer expects to move; seals decide who can afford the noble at all; points change what the
noble is.) Formally: the smallest (points moved, seal units moved, gold moved) in lexicographic order, each counted
from the given set's price.

**Balances** (what the search aims at, ``aim``): no skill level calls the noble under- or overpriced, and none
nearly does: its value lies within the margin at every level, it is within reach in at least ``DEAD_REACH`` of the
games, and it is surely taken often enough when within reach (the one-sided 95% lower bound of that rate is at least
``RARELY_TAKEN``). The second half keeps the search from stopping at the first price that only just escapes a
verdict (an interval that only just reaches into the margin, a take rate just above the line): the validation on
fresh seeds would give the same verdict there about half the time. A price the search reaches is **fair** only when
every level decides the noble balanced (its interval inside the margin); where a level leaves it undecided (too few
groups, or an interval reaching past the margin) the price is on aim but **undecided**, and the proposal says so:
undecided is not fair.

The search assumes what the nobles study measures moves one way with each dimension (dearer gold, more seals or
fewer points never make a noble more attractive). Along one dimension it steps 1, 2, 4, ... units from the price
until the noble is no longer on its old side, then bisects for the first price that is not (``first_off``):

1. gold, from the price toward the gold limit;
2. if gold alone cannot (still on the old side at the limit): seals, gold at its limit, one unit at a time (taken
   from the colour with more seals, or added to the one with fewer); at the first seal count that turns it, a
   bisection of gold from the price: the least gold that still turns it;
3. the same with points (gold and seals at their limits; then a bisection of the seals, then of the gold).

When one unit of a dimension steps over the whole band (one gold more and the noble goes from under- to
overpriced: no gold price balances it), the next dimension moves from the last price on the old side, as a finer
lever (a seal, then a point), and the earlier ones are taken back as before.

Of every price measured, the cheapest one that balances is proposed (a bisection whose last probe lands on the
reverse side keeps a balancing price it measured before). If none does, the nearest price on the old side is
proposed and the noble is named with why: still on its old side at the limits (with what each level says there), no
price between the old side and the reverse one, or the budget ran out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from scipy import stats as sstats

from palais_sim.games.palais_royal.components import ComponentSet
from palais_sim.games.palais_royal.studies import nobles

UNDER, OVER, FAIR, MIXED = "underpriced", "overpriced", "fair", "levels disagree"
UNDECIDED = "undecided"  # no level calls it under- or overpriced, but not every level calls it balanced either
GOLD, SEALS, POINTS = "gold", "seals", "points"
ONE_SIDED = 0.95  # the level of the take share's lower bound in ``aim``


def side(rows: list[dict]) -> str:
    """What the skill levels' verdicts together say of a noble's price: fair only when every level decides it is
    balanced (an undecided row, however near 0 its value, is no evidence of a fair price)."""
    verdicts = {r["verdict"] for r in rows}
    if "favoured" in verdicts and "disfavoured" in verdicts:
        return MIXED
    if "favoured" in verdicts:
        return UNDER
    if "disfavoured" in verdicts:
        return OVER
    return FAIR if rows and verdicts == {"balanced"} else UNDECIDED


def aim(rows: list[dict], margin: float) -> str:
    """What the search reads at a price: ``side``, and a price that only just escapes a verdict counts on its side
    too, since the validation on fresh seeds would give the verdict about half the time: a value outside the margin
    (its interval only just reaches into it), a within-reach share below the dead line, or a take rate when within
    reach whose one-sided 95% lower bound (Clopper-Pearson, counted in groups) lies below the passed-over line."""
    verdict = side(rows)
    if verdict not in (FAIR, UNDECIDED):
        return verdict
    high = any(r["effect"] is not None and r["effect"] > margin for r in rows)
    low = any(r["effect"] is not None and r["effect"] < -margin or _nearly_shunned(r) for r in rows)
    return MIXED if high and low else UNDER if high else OVER if low else verdict


def _nearly_shunned(row: dict) -> bool:
    """Within reach in fewer than ``DEAD_REACH`` of the groups, or not surely taken often enough when within reach:
    the one-sided 95% lower bound of the take share, counted in the groups within reach as the nobles study's
    bound is (``nobles.take_bounds``), below ``RARELY_TAKEN``."""
    rates = row.get("rates") or {}
    groups, reached = rates.get("groups_noted", 0), rates.get("groups_reached", 0)
    if groups and reached / groups < nobles.DEAD_REACH:
        return True
    if not reached:
        return False
    taken = rates.get("taken_in_groups", 0.0)
    low = 0.0 if taken <= 0 else float(sstats.beta.ppf(1 - ONE_SIDED, taken, reached - taken + 1))
    return low < nobles.RARELY_TAKEN


@dataclass(frozen=True, order=True)
class Price:
    gold: int
    violet: int
    turquoise: int
    points: int

    @classmethod
    def of(cls, comps: ComponentSet, noble: str) -> Price:
        if noble not in comps.noble_index:
            raise ValueError(f"no noble {noble!r} in component set {comps.name}")
        n = comps.nobles[comps.noble_index[noble]]
        return cls(n.gold, n.violet, n.turquoise, n.points)

    @property
    def seals(self) -> int:
        return self.violet + self.turquoise

    def apply(self, comps: ComponentSet, noble: str) -> ComponentSet:
        """The set with ``noble`` at this price (everything else as it was)."""
        if noble not in comps.noble_index:
            raise ValueError(f"no noble {noble!r} in component set {comps.name}")
        if min(self.gold, self.violet, self.turquoise, self.points) < 0:
            raise ValueError(f"a noble's price cannot be negative ({noble} at {self.text()})")
        values = {"gold": self.gold, "violet": self.violet, "turquoise": self.turquoise, "points": self.points}
        nobles = tuple(replace(n, **values) if n.id == noble else n for n in comps.nobles)
        return replace(comps, nobles=nobles, name=f"{comps.name}-{noble}-{self.tag()}")

    def tag(self) -> str:
        return f"g{self.gold}v{self.violet}t{self.turquoise}p{self.points}"

    def text(self) -> str:
        return f"{self.gold} gold, {self.violet}+{self.turquoise} seals, {self.points} point{'s' * (self.points != 1)}"

    def change(self, given: Price) -> str:
        """What differs from ``given``, in words ("4 -> 0 gold, 4+4 -> 2+2 seals"; "unchanged")."""
        parts = []
        if self.gold != given.gold:
            parts.append(f"{given.gold} -> {self.gold} gold")
        if (self.violet, self.turquoise) != (given.violet, given.turquoise):
            parts.append(f"{given.violet}+{given.turquoise} -> {self.violet}+{self.turquoise} seals")
        if self.points != given.points:
            parts.append(f"{given.points} -> {self.points} points")
        return ", ".join(parts) or "unchanged"

    def cost(self, given: Price) -> tuple[int, int, int]:
        """How dear the change from ``given`` is: (points moved, seal units moved, gold moved), compared in order."""
        seals = abs(self.violet - given.violet) + abs(self.turquoise - given.turquoise)
        return abs(self.points - given.points), seals, abs(self.gold - given.gold)

    def to_dict(self) -> dict:
        return {"gold": self.gold, "violet": self.violet, "turquoise": self.turquoise, "points": self.points}


@dataclass(frozen=True)
class Limits:
    """How far the search may move each dimension from the given set's price (0: the dimension stays)."""

    gold: int = 12
    seals: int = 0  # seal units, both colours together
    points: int = 0

    def dims(self) -> tuple[str, ...]:
        return (GOLD,) + ((SEALS,) if self.seals > 0 else ()) + ((POINTS,) if self.points > 0 else ())

    def text(self) -> str:
        seals = f"seals within {self.seals}" if self.seals else "seals fixed (--no-seals)"
        points = f"points within {self.points}" if self.points else "points fixed (--no-points)"
        return f"gold within {self.gold}, {seals}, {points}"

    def room(self, price: Price, given: Price, dim: str, dearer: bool) -> int:
        """How many units ``dim`` may still move from ``price`` in the direction that makes the noble dearer (or
        cheaper), within the limits around ``given`` and never below 0."""
        if dim == GOLD:
            top = given.gold + self.gold if dearer else max(0, given.gold - self.gold)
            return max(0, top - price.gold) if dearer else max(0, price.gold - top)
        if dim == SEALS:
            top = given.seals + self.seals if dearer else max(0, given.seals - self.seals)
            return max(0, top - price.seals) if dearer else max(0, price.seals - top)
        # points: a dearer noble is worth fewer points
        top = max(0, given.points - self.points) if dearer else given.points + self.points
        return max(0, price.points - top) if dearer else max(0, top - price.points)


def moved(price: Price, dim: str, dearer: bool, units: int) -> Price:
    """``price`` with ``dim`` moved ``units`` toward dearer (or cheaper). Seals move one at a time: added to the
    colour with fewer (violet on a tie), taken from the colour with more (violet on a tie), so a symmetric noble
    stays as symmetric as it can."""
    if dim == GOLD:
        return replace(price, gold=price.gold + (units if dearer else -units))
    if dim == POINTS:
        return replace(price, points=price.points + (-units if dearer else units))
    violet, turquoise = price.violet, price.turquoise
    for _ in range(units):
        if dearer:
            violet, turquoise = (violet + 1, turquoise) if violet <= turquoise else (violet, turquoise + 1)
        else:
            violet, turquoise = (violet - 1, turquoise) if violet >= turquoise else (violet, turquoise - 1)
    return replace(price, violet=violet, turquoise=turquoise)


def with_dim(price: Price, source: Price, dim: str) -> Price:
    """``price`` with ``dim`` as in ``source``."""
    if dim == GOLD:
        return replace(price, gold=source.gold)
    if dim == POINTS:
        return replace(price, points=source.points)
    return replace(price, violet=source.violet, turquoise=source.turquoise)


@dataclass
class Outcome:
    """What the search proposes for one noble: the price, what the levels say there (``aim``), its rows, every
    price tried (``{price, side, rows}``, in order) and, when no price balanced it, why."""

    price: Price
    side: str
    rows: list[dict]
    tried: list[dict] = field(default_factory=list)
    why: str | None = None

    @property
    def balanced(self) -> bool:
        """Every level decided the noble balanced at the price (an undecided one is not)."""
        return self.side == FAIR


class OutOfBudget(Exception):
    """The search may not play another price."""


@dataclass
class PriceSearch:
    """One noble's search (module docstring). ``probe(price)`` plays the noble at a price at every skill level and
    returns its rows; ``affordable()`` says whether another probe fits the budget."""

    probe: Callable[[Price], list[dict]]
    affordable: Callable[[], bool]
    given: Price  # the price in the given set: the limits and the cost count from it
    start: Price  # the price now (a later round starts from the proposal so far)
    was: str  # UNDER or OVER: what the study said at ``start``
    rows: list[dict]  # the study's rows at ``start``
    limits: Limits
    margin: float
    seen: dict[Price, str] = field(default_factory=dict)
    tried: list[dict] = field(default_factory=list)

    def at(self, price: Price) -> str:
        if price == self.start:
            return self.was
        if price not in self.seen:
            if not self.affordable():
                raise OutOfBudget
            rows = self.probe(price)
            self.seen[price] = aim(rows, self.margin)
            self.tried.append({"price": price, "side": self.seen[price], "rows": rows})
        return self.seen[price]

    def first_off(self, line: list[Price], start_known: bool) -> tuple[int | None, int]:
        """The first index of ``line`` (prices ordered from the least moved) that is off the old side, and the last
        index found on it (-1: none). ``start_known``: line[0] is on the old side, and the search steps 1, 2, 4, ...
        from it, then bisects (None: the whole line is on the old side); otherwise the line's last price is known to
        be off it (a later dimension turned it) and a bisection over the whole line finds the first."""
        inside, beyond, step = (0, None, 1) if start_known else (-1, len(line) - 1, 0)
        last = len(line) - 1
        while beyond is None and inside < last:
            index = min(step, last)
            if self.at(line[index]) != self.was:
                beyond = index
                break
            inside = index
            step *= 2
        while beyond is not None and beyond - inside > 1:
            middle = (inside + beyond) // 2
            if self.at(line[middle]) == self.was:
                inside = middle
            else:
                beyond = middle
        return beyond, inside

    def line(self, base: Price, dim: str) -> list[Price]:
        dearer = self.was == UNDER
        return [moved(base, dim, dearer, units) for units in range(self.limits.room(base, self.given, dim, dearer) + 1)]

    def run(self) -> Outcome:
        dims = self.limits.dims()
        origin, inside, beyond = self.start, self.start, None
        try:
            for k, dim in enumerate(dims):
                line = self.line(origin, dim)  # the earlier dimensions at their limits, or just short of the band
                off, last = self.first_off(line, start_known=True)
                inside = line[last]
                if off is None:
                    origin = line[-1]
                    continue  # still on the old side at this dimension's limit: the next dimension
                beyond, inside = self._take_back(line[off], inside, dims[:k])
                if self.seen.get(beyond) in (FAIR, UNDECIDED):  # on aim: every level's value within the margin
                    break
                # one unit of this dimension steps over the whole band: no price of it balances, so the next
                # dimension (a finer lever, dearer in the order) moves from the last price on the old side
                origin = inside
        except OutOfBudget:  # the most moved price measured on the old side
            old_side = [p for p, s in self.seen.items() if s == self.was]
            return self._outcome(max(old_side, key=lambda p: p.cost(self.given), default=self.start), None,
                                 "the budget ran out")  # fmt: skip
        return self._outcome(inside if beyond is not None else origin, beyond, None)

    def _take_back(self, found: Price, inside: Price, earlier: tuple[str, ...]) -> tuple[Price, Price]:
        """``found`` (off the old side) with each earlier dimension moved back as far as it stays off, the latest
        first; and the last price found on the old side."""
        for inner in reversed(earlier):
            line = self.line(with_dim(found, self.start, inner), inner)
            line = line[: line.index(found) + 1]  # up to ``found``: its last price is known off the old side
            off, last = self.first_off(line, start_known=False)
            assert off is not None
            found = line[off]
            inside = line[last] if last >= 0 else inside
        return found, inside

    def _outcome(self, inside: Price, beyond: Price | None, stopped: str | None) -> Outcome:
        rows_of = {t["price"]: t["rows"] for t in self.tried}
        rows_of[self.start] = self.rows
        fair = sorted((p.cost(self.given), p) for p, s in self.seen.items() if s == FAIR)
        if fair:
            best = fair[0][1]
            return Outcome(best, FAIR, rows_of[best], self.tried)
        on_aim = sorted((p.cost(self.given), p) for p, s in self.seen.items() if s == UNDECIDED)
        if on_aim:  # the cheapest price no level calls under- or overpriced, not shown balanced either
            best = on_aim[0][1]
            why = (f"undecided at {best.text()}: no level calls it under- or overpriced, not every level shows it "
                   f"balanced ({readings(rows_of[best])})")  # fmt: skip
            return Outcome(best, UNDECIDED, rows_of[best], self.tried, why)
        where = inside if inside in rows_of else self.start
        there = self.seen.get(where, self.was)
        if stopped:
            why = f"{stopped} with it still {self.was} at {where.text()}"
        elif beyond is None:
            why = (f"still {self.was} at {where.text()}, the farthest the limits allow ({self.limits.text()}): "
                   f"{readings(rows_of[where])}")  # fmt: skip
        else:
            why = (f"no price within the limits balances it: {where.text()} is still {self.was}, {beyond.text()} is "
                   f"{self.seen[beyond]} ({readings(rows_of[beyond])})")  # fmt: skip
        return Outcome(where, there, rows_of[where], self.tried, why)


def readings(rows: list[dict]) -> str:
    """Each level's reading of a noble, for a why."""
    return "; ".join(f"{r['strategy']}: {r.get('reading') or r['verdict']}" for r in rows) or "not measured"
