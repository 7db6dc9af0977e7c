"""Palastgeflüster's rule option: the tie-break (PALASTGEFLUESTER.md). Declared here (``GAME.rule_options``), read
from a run's ``Settings.rules`` by :class:`PgRules`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from palais_sim.core.rule_options import RuleOption, parse_rules
from palais_sim.games.palastgefluester.state import TIEBREAKS


# "variant" is the rulebook's name for the noted tie-break; it reads as "noted" (runs store "noted").
def _tiebreak(value: Any) -> str:
    return "noted" if value == "variant" else str(value)


OPTIONS: tuple[RuleOption, ...] = (
    RuleOption("tiebreak", "display", "a tie of points: display (the rules) or noted (the variant; 'variant' says the "
               "same)", _tiebreak, choices=(*TIEBREAKS, "variant"), metavar="|".join(TIEBREAKS), legacy=True),
)  # fmt: skip


@dataclass(frozen=True)
class PgRules:
    """A run's Palastgeflüster rule options, checked (the players and the round cap are the run's own)."""

    tiebreak: str = "display"

    @classmethod
    def parse(cls, rules: Mapping[str, Any]) -> PgRules:
        return cls(**parse_rules(OPTIONS, rules, "palastgefluester"))
