"""Palais Royal's rule options (RULES.md): the room layout, a finite bank of gold, the seats' start gold. Declared
here (``GAME.rule_options``), read from a run's ``Settings.rules`` by :class:`PrRules`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from palais_sim.core.rule_options import RuleOption, parse_rules


def _gold_limit(value: Any) -> int:
    if isinstance(value, bool) or (not isinstance(value, int | str)):
        raise ValueError(f"a whole number of gold is needed, got {value!r}")
    try:
        gold = int(value)
    except ValueError:
        raise ValueError(f"a whole number of gold is needed, got {value!r}") from None
    if gold < 0:
        raise ValueError(f"the bank cannot hold less than 0 gold, got {gold}")
    return gold


def _start_gold(value: Any) -> tuple[int, ...]:
    """``"0,1,2"`` (the command line) or ``[0, 1, 2]`` (a stored run) as a tuple of whole numbers >= 0."""
    items = [x.strip() for x in value.split(",") if x.strip()] if isinstance(value, str) else list(value)
    try:
        gold = tuple(int(x) for x in items if not isinstance(x, bool))
    except (TypeError, ValueError):
        gold = ()
    if not gold or len(gold) != len(items) or any(g < 0 for g in gold):
        raise ValueError(f"whole numbers >= 0 separated by commas are needed (one per seat), got {value!r}")
    return gold


def _layout(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'random', 'first-game' or a code like PMS/KGD/COB is needed, got {value!r}")
    return value


OPTIONS: tuple[RuleOption, ...] = (
    RuleOption("layout", "random", "the room layout: 'random' (per game), 'first-game', or a code like PMS/KGD/COB",
               _layout, metavar="LAYOUT", legacy=True),
    RuleOption("gold_limit", None, "a finite bank of gold (e.g. 57)", _gold_limit, unset="unlimited", metavar="GOLD",
               legacy=True),
    RuleOption("start_gold", None, "start gold of seat 1, 2, ... comma-separated, e.g. 0,1", _start_gold,
               unset="the rulebook's 0,1,2,3", metavar="G1,G2,...", legacy=True),
)  # fmt: skip


@dataclass(frozen=True)
class PrRules:
    """A run's Palais Royal rule options, typed and checked (the players and the round cap are the run's own)."""

    layout: str = "random"
    gold_limit: int | None = None
    start_gold: tuple[int, ...] | None = None

    @classmethod
    def parse(cls, rules: Mapping[str, Any]) -> PrRules:
        return cls(**parse_rules(OPTIONS, rules, "palais-royal"))
