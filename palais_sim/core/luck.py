"""Luck out of a game's result: the chance-corrected outcome of AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling,
AAAI 2018), for any game that names its chance events.

At every chance event the observer sees the state just before it, asks the game's :class:`ChanceModel` for the
event's outcomes and their probabilities, evaluates a value function ``V(state, seat)`` (fixed in advance) on a copy
after each outcome and after the actual one, and adds ``V(actual) - sum(p * V(outcome))`` to the seat's luck. A seat's
corrected outcome is its win share minus its luck. Each term has mean zero given everything before the event, whatever
V is, so the corrected mean equals the raw mean in expectation; the better V, the smaller the corrected variance.

An event whose outcomes are too many to list (the whole start of a game) gives an unbiased sample of outcomes instead
(``ChanceEvent.sampled``): independent draws of the same distribution, each weighted equally. The term's mean stays
zero; only its variance grows a little. An event whose outcome stays hidden until later events reveal it (a
shuffle whose order shows one draw at a time) has one outcome and a term of exactly zero.

Decisions are not corrected here: a deterministic player's choice given the state has one outcome and a term of zero;
a player whose choice distribution is known (random play) could be corrected the same way later.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

SETUP = "setup"  # the kind of the first event: the whole start of a game, sampled
SETUP_SAMPLES = 16  # sampled outcomes of an event too large to list


@dataclass(frozen=True)
class ChanceEvent:
    """One chance event as the observer sees it: each outcome with its probability (summing to 1)."""

    kind: str
    outcomes: tuple[tuple[object, float], ...]
    sampled: bool = False  # the outcomes are an equally weighted random sample of the distribution, not all of it


class ValueFunction(Protocol):
    """V(state, seat): an estimate of the seat's win share from ``state``, fixed before any game it corrects."""

    def __call__(self, state: Any, seat: int) -> float: ...

    def digest(self) -> str:
        """A stable hash of everything the function's values depend on (recorded with every corrected result)."""
        ...


class ChanceModel(Protocol):
    """What a game tells the luck correction: how a game starts, its chance events and how to play it. The game's
    state has a ``chance`` attribute (None, or an observer its engine calls before each event with the state and the
    event's kind; a copy of the state never carries it)."""

    kinds: tuple[str, ...]  # every event kind, SETUP first

    def start(self, seed: int) -> Any:
        """A new game from ``seed`` (its setup is the first chance event)."""
        ...

    def event(self, state: Any, kind: str, rng: random.Random) -> ChanceEvent:
        """The event of ``kind`` about to happen in ``state``; ``rng`` draws the sample of a sampled event."""
        ...

    def actual(self, state: Any, kind: str) -> object:
        """The outcome the game is about to get (read from the engine's own streams; ``state`` is left as it is)."""
        ...

    def after(self, state: Any, kind: str, outcome: object) -> Any:
        """A copy of ``state`` just after the event with ``outcome``."""
        ...

    def play(self, state: Any, strategies: Sequence[Any]) -> tuple[Any, list[float]]:
        """Play ``state`` to its end; the game's result and each seat's win share."""
        ...


@dataclass
class LuckRecord:
    """One game's luck: per seat the raw win share and the correction, the events' count and the correction's sum per
    event kind. ``corrected[seat] = raw[seat] - correction[seat]``."""

    value_hash: str
    raw: list[float]
    correction: list[float]
    events: dict[str, int] = field(default_factory=dict)
    by_kind: list[dict[str, float]] = field(default_factory=list)  # per seat: kind -> summed correction

    @property
    def corrected(self) -> list[float]:
        return [r - c for r, c in zip(self.raw, self.correction, strict=True)]

    def add(self, kind: str, terms: Sequence[float]) -> None:
        self.events[kind] = self.events.get(kind, 0) + 1
        for seat, term in enumerate(terms):
            self.correction[seat] += term
            self.by_kind[seat][kind] = self.by_kind[seat].get(kind, 0.0) + term


def outcome_values(
    model: ChanceModel, value: ValueFunction, state: Any, event: ChanceEvent, seats: int
) -> list[list[float]]:
    """V per seat after each of the event's outcomes, in their order."""
    values = []
    for outcome, _p in event.outcomes:
        after = model.after(state, event.kind, outcome)
        values.append([value(after, s) for s in range(seats)])
    return values


def terms(event: ChanceEvent, values: list[list[float]], actual: list[float]) -> list[float]:
    """Per seat, V after the actual outcome minus V's probability-weighted mean over the outcomes, written as the
    weighted mean of the differences (so a V that no outcome moves gives exactly 0, whatever the rounding)."""
    weight = sum(p for _o, p in event.outcomes)
    return [
        sum(p * (a - row[s]) for (_o, p), row in zip(event.outcomes, values, strict=True)) / weight
        for s, a in enumerate(actual)
    ]


class LuckObserver:
    """The engine's chance observer for one game: adds each event's term to ``record``."""

    def __init__(self, model: ChanceModel, value: ValueFunction, record: LuckRecord, rng: random.Random) -> None:
        self.model = model
        self.value = value
        self.record = record
        self.rng = rng
        self.seats = len(record.raw)

    def __call__(self, state: Any, kind: str) -> None:
        event = self.model.event(state, kind, self.rng)
        if len(event.outcomes) == 1 and not event.sampled:
            self.record.add(kind, [0.0] * self.seats)  # nothing is revealed: the term is zero
            return
        values = outcome_values(self.model, self.value, state, event, self.seats)
        actual = self.model.actual(state, kind)
        if event.sampled:
            after = self.model.after(state, kind, actual)
            mine = [self.value(after, s) for s in range(self.seats)]
        else:
            listed = next((i for i, (o, _p) in enumerate(event.outcomes) if o == actual), None)
            if listed is None:
                raise ValueError(f"chance event {kind!r}: the actual outcome {actual!r} is not among its outcomes")
            mine = values[listed]
        self.record.add(kind, terms(event, values, mine))


def event_problems(model: ChanceModel, state: Any, kind: str, rng: random.Random) -> list[str]:
    """What is wrong with the event of ``kind`` about to happen in ``state``: probabilities that are not positive or
    do not sum to 1, or (for a listed event) an actual outcome that is not among the outcomes. Empty when sound."""
    event = model.event(state, kind, rng)
    problems = []
    total = sum(p for _o, p in event.outcomes)
    if abs(total - 1.0) > 1e-9:
        problems.append(f"{kind}: probabilities sum to {total}")
    if any(p <= 0 for _o, p in event.outcomes):
        problems.append(f"{kind}: an outcome with probability <= 0")
    if not event.sampled and model.actual(state, kind) not in [o for o, _p in event.outcomes]:
        problems.append(f"{kind}: the actual outcome {model.actual(state, kind)!r} is not listed")
    return problems


def uniform_event(kind: str, items: Sequence[Any]) -> ChanceEvent:
    """An event drawing one of ``items`` uniformly (a card from a shuffled pile): equal items are one outcome with
    their count."""
    counts = Counter(items)
    return ChanceEvent(kind, tuple((item, n / len(items)) for item, n in sorted(counts.items())))


def sampled_event(kind: str, rng: random.Random, count: int = SETUP_SAMPLES) -> ChanceEvent:
    """An event too large to list, as ``count`` independent seeds of equal weight: the model's ``after`` turns a seed
    into that outcome (a new start of the game, say)."""
    seeds = [rng.getrandbits(63) for _ in range(count)]
    return ChanceEvent(kind, tuple((seed, 1.0 / count) for seed in seeds), sampled=True)


def play_with_luck(
    model: ChanceModel, seed: int, strategies: Sequence[Any], value: ValueFunction
) -> tuple[Any, LuckRecord]:
    """Play the game of ``seed`` and measure its luck while it is played: the game's result (the same as without the
    measurement) and its :class:`LuckRecord`. The samples of sampled events come from a stream of their own, derived
    from the seed, so the record is the same on every run."""
    seats = len(strategies)
    rng = random.Random(f"{seed}:luck")
    record = LuckRecord(value.digest(), [0.0] * seats, [0.0] * seats, by_kind=[{} for _ in range(seats)])
    state = model.start(seed)
    setup = model.event(state, SETUP, rng)
    values = outcome_values(model, value, state, setup, seats)
    record.add(SETUP, terms(setup, values, [value(state, s) for s in range(seats)]))
    state.chance = LuckObserver(model, value, record, rng)
    try:
        result, shares = model.play(state, strategies)
    finally:
        state.chance = None
    record.raw = list(shares)
    return result, record


def digest_of(data: object) -> str:
    """A stable short hash of JSON-ready data (a value function's parameters)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
