"""``restricted``: any strategy, forbidden some nobles (restricted play, Jaffe et al. 2012) or made to take them.

``restricted:base=seals,forbid=N17/N18`` plays like ``seals`` but never recruits N17 or N18; ``forbid=king_plus1``
forbids every noble with that privilege. ``restricted:base=seals,eager=N17`` takes N17 (or a noble of the named
privilege) whenever it can recruit it, and plays like ``seals`` otherwise. ``restricted:base=seals,watch=N17`` plays
exactly like ``seals`` and only notes whether N17 came within its reach and whether it took it. A base with
parameters writes them with ``;`` for ``,``: ``base=lookahead:budget=8;horizon=2``.

Every form reports ``notes()`` about the game just played (the run's ``strategy_notes`` column): ``reachable`` 1 if
a forbidden, eager or watched noble could have been recruited at one of its recruit decisions (on the real
component set, whatever the restriction hid), ``taken`` 1 if it recruited one, and ``forbidden_answers``. The noble
study reads them: a noble nobody can reach is dead, one rarely taken when within reach is not worth its price.

Forbidding works on what the base strategy sees, so it plans as if the noble were out of its reach (its moves, seals
and cards included), not only at the moment of recruiting: the view's component set is a copy in which the
forbidden nobles cost far more gold than there is, so every affordability query (``view.can_recruit``,
``legal_options``, a strategy's own cost arithmetic) leaves them out; their points, fields and neighbours (which
make the other nobles cheaper) stay as they are. A search strategy's rollouts then also treat them as out of
everyone's reach: a simplification on the side of caution, said here so no one mistakes it for the rules. As a last
guard, an answer naming a forbidden noble is replaced by stopping (counted in ``forbidden_answers``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from palais_sim.games.palais_royal.components import PRIVILEGES, ComponentSet
from palais_sim.games.palais_royal.rules import Decision
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import StrategySpecError, load_strategy

OUT_OF_REACH = 1_000_000  # gold: more than any game can hold


def _names(text: str) -> frozenset[str]:
    return frozenset(x.strip() for x in text.replace(",", "/").split("/") if x.strip())


def matches(components: ComponentSet, names: frozenset[str]) -> frozenset[int]:
    """Indices of the nobles named by id or by privilege kind."""
    return frozenset(i for i, n in enumerate(components.nobles) if n.id in names or (n.privilege or "") in names)


@lru_cache(maxsize=64)
def masked(components: ComponentSet, names: frozenset[str]) -> ComponentSet:
    """The component set with the named nobles out of reach (their gold cost beyond any purse)."""
    hit = matches(components, names)
    nobles = tuple(replace(n, gold=OUT_OF_REACH) if i in hit else n for i, n in enumerate(components.nobles))
    return replace(components, nobles=nobles)


class RestrictedStrategy:
    """Any strategy forbidden some nobles (forbid=) or made to take them when it can (eager=)."""

    name = "restricted"

    def __init__(self, base: str = "greedy", forbid: str = "", eager: str = "", watch: str = "") -> None:
        self.base = load_strategy(base.replace(";", ","))
        self.forbid = _names(forbid)
        self.eager = _names(eager)
        self.watch = _names(watch)
        if not self.forbid and not self.eager and not self.watch:
            raise StrategySpecError(
                "restricted needs forbid=..., eager=... or watch=... (noble ids or privilege kinds)"
            )
        if len([x for x in (self.forbid, self.eager, self.watch) if x]) > 1:
            raise StrategySpecError("restricted takes one of forbid=, eager= and watch=")
        self.forbidden_answers = 0  # answers of the base that named a forbidden noble (should stay 0)
        self.reachable = 0  # 1 once a named noble could be recruited at one of its recruit decisions
        self.taken = 0  # 1 once it recruited a named noble
        self._checked: ComponentSet | None = None

    def notes(self) -> dict[str, int]:
        """What it saw of the named nobles in the game it has just played (see the module docstring)."""
        return {"reachable": self.reachable, "taken": self.taken, "forbidden_answers": self.forbidden_answers}

    def _check(self, components: ComponentSet) -> None:
        """Every name must be a noble of the game's component set or a privilege kind (a typo would restrict
        nothing and look like a balanced noble)."""
        known = {n.id for n in components.nobles} | set(PRIVILEGES)
        unknown = sorted((self.forbid | self.eager | self.watch) - known)
        if unknown:
            raise StrategySpecError(f"restricted: {', '.join(unknown)} is neither a noble of the component set "
                                    f"nor a privilege kind ({', '.join(PRIVILEGES)})")  # fmt: skip
        self._checked = components

    def choose(self, view: PlayerView, decision: Decision) -> object:
        real = view.components
        if self._checked is not real:
            self._check(real)
        if decision.kind == "recruit":
            return self._recruit(view, decision, real)
        if self.forbid:
            view.components = masked(real, self.forbid)  # the view is this decision's own copy
        choice = self.base.choose(view, decision)
        view.components = real
        return choice

    def _recruit(self, view: PlayerView, decision: Decision, real: ComponentSet) -> object:
        """A recruit decision: note whether a named noble is within reach, then answer as the form says."""
        named = matches(real, self.forbid | self.eager | self.watch)
        if (
            not self.reachable
            and decision.recruits_left >= 1
            and any(
                code in named and view.can_recruit(field, decision.wild_seals) for field, code in enumerate(view.park)
            )
        ):
            self.reachable = 1
        choice = self._answer(view, decision, real)
        field = choice[0] if isinstance(choice, tuple | list) and choice else choice
        in_park = isinstance(field, int) and not isinstance(field, bool) and 0 <= field < len(view.park)
        if in_park and view.park[field] in named:
            self.taken = 1
        return choice

    def _answer(self, view: PlayerView, decision: Decision, real: ComponentSet) -> object:
        if self.forbid:
            view.components = masked(real, self.forbid)  # the view is this decision's own copy
        if self.eager and decision.kind == "recruit":
            pick = self._eager_pick(view, decision, real)
            if pick is not None:
                view.components = real
                return pick
        choice = self.base.choose(view, decision)
        view.components = real
        if self.forbid and decision.kind == "recruit" and choice is not None:
            field = choice[0] if isinstance(choice, tuple | list) else choice
            if (
                isinstance(field, int)
                and 0 <= field < len(view.park)
                and view.park[field] in matches(real, self.forbid)
            ):
                self.forbidden_answers += 1
                return None
        return choice

    def _eager_pick(self, view: PlayerView, decision: Decision, real: ComponentSet) -> int | None:
        """The wanted noble with the most points (then the cheapest) that can be recruited now, if any."""
        if decision.recruits_left < 1:
            return None
        wanted = matches(real, self.eager)
        best, best_key = None, None
        for field, code in enumerate(view.park):
            if code not in wanted or not view.can_recruit(field, decision.wild_seals):
                continue
            key = (real.nobles[code].points, -view.recruit_cost(field), -field)
            if best_key is None or key > best_key:
                best, best_key = field, key
        return best
