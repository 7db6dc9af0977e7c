"""Rule options: what a game declares about the variants it plays, and the shared code that reads them.

A game lists its options as :class:`RuleOption` values (``GAME.rule_options``); a run's settings carry the values as
one mapping (``Settings.rules``), and the game's own options class turns that mapping into typed values with
:func:`parse_rules`. Everything generic (the command line's flags, refusing an option a game does not have, reading
a manifest written before the games declared their options) lives here or above, never in a game; no game names
another game's options.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class RuleOptionError(ValueError):
    """A rule option a game does not have, or a value it does not take (one line naming the option)."""


def _text(value: Any) -> str:
    return str(value)


@dataclass(frozen=True)
class RuleOption:
    """One rule option of a game: its name (the key in ``Settings.rules``; the flag is ``--name`` with hyphens), its
    default, a help line, and ``convert``, which takes the command line's text or a stored value (from JSON: lists
    for tuples) and returns the typed value, raising ValueError with what it takes."""

    name: str
    default: Any
    help: str
    convert: Callable[[Any], Any] = _text
    choices: tuple[str, ...] = ()  # the allowed values, when they are a short list (the help and the error say them)
    unset: str | None = None  # what the default means, in words, for the help and reports ("unlimited")
    metavar: str = "TEXT"
    # a flat field of a run's stored settings before the games declared their options (its value there is read as
    # the option's, unless it equals the default): a manifest of then still resumes (:func:`rules_of`)
    legacy: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def default_text(self) -> str:
        return self.unset if self.unset is not None else str(self.default)

    def value(self, raw: Any, owner: str) -> Any:
        """``raw`` (text or a stored value) as this option's value; a bad one is a one-line RuleOptionError."""
        if raw is None:
            return self.default
        if self.choices and str(raw) not in self.choices:
            raise RuleOptionError(f"{self.flag} of {owner} must be {_one_of(self.choices)}, got {raw!r}")
        try:
            return self.convert(raw)
        except (TypeError, ValueError) as exc:
            raise RuleOptionError(f"{self.flag} of {owner}: {exc}") from None


def _one_of(choices: Sequence[str]) -> str:
    return " or ".join(", ".join(choices).rsplit(", ", 1)) if len(choices) > 1 else choices[0]


def parse_rules(options: Sequence[RuleOption], rules: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """Every option's typed value: the given ones converted and checked, the others their defaults. A name the
    game does not declare is refused, naming the ones it does."""
    declared = {o.name: o for o in options}
    unknown = [name for name in rules if name not in declared]
    if unknown:
        have = ", ".join(o.flag for o in options) or "none"
        flags = ", ".join("--" + n.replace("_", "-") for n in unknown)
        raise RuleOptionError(f"{flags}: not a rule option of {owner} (its rule options: {have})")
    return {o.name: o.value(rules.get(o.name), owner) for o in options}


def canonical_rules(options: Sequence[RuleOption], rules: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """The given rules checked, converted, and without the values that equal their default: two runs of the same
    rules have the same mapping whether a default was spelt out or not."""
    values = parse_rules(options, rules, owner)
    return {o.name: values[o.name] for o in options if o.name in rules and values[o.name] != o.default}


class Rules(Mapping[str, Any]):
    """A run's rule options (name -> value): read-only and hashable, so settings holding it stay a frozen value."""

    __slots__ = ("_items",)

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._items = dict(sorted((values or {}).items()))

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __repr__(self) -> str:
        return f"Rules({self._items!r})"

    def __reduce__(self) -> tuple:
        return (Rules, (self._items,))

    def to_json(self) -> dict[str, Any]:
        """As JSON takes it (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self._items.items()}


def legacy_names(options: Sequence[RuleOption]) -> tuple[str, ...]:
    """The options that were flat fields of a run's settings before the games declared their options."""
    return tuple(o.name for o in options if o.legacy)


def rules_of(settings: Mapping[str, Any], options: Sequence[RuleOption]) -> dict[str, Any]:
    """The rule options in a run's stored settings: its ``rules`` mapping, or, in a manifest written before the games
    declared their options, the flat fields of then (the game's ``legacy`` options) that differ from their default."""
    if "rules" in settings:
        return dict(settings.get("rules") or {})
    return {
        o.name: settings[o.name] for o in options if o.legacy and o.name in settings and settings[o.name] != o.default
    }
