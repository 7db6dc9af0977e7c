"""``restricted``: any strategy, forbidden some nobles (restricted play, Jaffe et al. 2012) or made to take them.

``restricted:base=seals,forbid=N17/N18`` plays like ``seals`` but never recruits N17 or N18; ``forbid=king_plus1``
forbids every noble with that privilege. ``restricted:base=seals,eager=N17`` takes N17 (or a noble of the named
privilege) whenever it can recruit it, and plays like ``seals`` otherwise. A base with parameters writes them with
``;`` for ``,``: ``base=lookahead:budget=8;horizon=2``.

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

    def __init__(self, base: str = "greedy", forbid: str = "", eager: str = "") -> None:
        self.base = load_strategy(base.replace(";", ","))
        self.forbid = _names(forbid)
        self.eager = _names(eager)
        if not self.forbid and not self.eager:
            raise StrategySpecError("restricted needs forbid=... or eager=... (noble ids or privilege kinds)")
        if self.forbid & self.eager:
            raise StrategySpecError(f"nobles both forbidden and eagerly taken: {sorted(self.forbid & self.eager)}")
        self.forbidden_answers = 0  # answers of the base that named a forbidden noble (should stay 0)
        self._checked: ComponentSet | None = None

    def _check(self, components: ComponentSet) -> None:
        """Every name must be a noble of the game's component set or a privilege kind (a typo would restrict
        nothing and look like a balanced noble)."""
        known = {n.id for n in components.nobles} | set(PRIVILEGES)
        unknown = sorted((self.forbid | self.eager) - known)
        if unknown:
            raise StrategySpecError(f"restricted: {', '.join(unknown)} is neither a noble of the component set "
                                    f"nor a privilege kind ({', '.join(PRIVILEGES)})")  # fmt: skip
        self._checked = components

    def choose(self, view: PlayerView, decision: Decision) -> object:
        real = view.components
        if self._checked is not real:
            self._check(real)
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
