"""The toy race's rule option, ``target`` (the position that ends the race): declared here (``GAME.rule_options``)
and read from a run's ``Settings.rules``, with nothing of palais_sim changed for it (the command line's
``--target`` comes from this declaration)."""

from __future__ import annotations

from typing import Any

from palais_sim.core.rule_options import RuleOption, parse_rules
from tests.toygame.rules import TARGET

LOWEST_TARGET = 5


def _target(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"a whole number of at least {LOWEST_TARGET} is needed, got {value!r}")
    try:
        target = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"a whole number of at least {LOWEST_TARGET} is needed, got {value!r}") from None
    if target < LOWEST_TARGET:
        raise ValueError(f"a whole number of at least {LOWEST_TARGET} is needed, got {target}")
    return target


OPTIONS: tuple[RuleOption, ...] = (
    RuleOption("target", TARGET, "the position that ends the race", _target, metavar="STEPS"),
)


def target_of(rules: dict[str, Any]) -> int:
    """The race's target under a run's rule options (its default, 15, when not given)."""
    return int(parse_rules(OPTIONS, rules, "toy")["target"])
