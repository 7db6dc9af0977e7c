"""Who plays whom, in which seat, with which seed: a deterministic function of the run settings.

Games are numbered 0..N-1. With seat rotation, game ``g * P + r`` is rotation ``r`` of group ``g``: the group's
matchup with the seats rotated ``r`` places (the first listed strategy sits in seat ``r + 1``), all rotations on
the same setup seed. The group is the statistical unit. Without rotation every game is its own group. A run with
``first_group = F`` numbers its groups from F (its games still from 0), so a sequential test can play its next batch
of groups as a run of its own, on the seeds an unbroken run would have used.

A group's seed is ``SeedSequence(root, spawn_key=(group,))``: it depends on the root seed and the group index
only, never on chunking or workers, so any game can be replayed from the tables alone.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from palais_sim.core.game import Game
from palais_sim.core.games import get_game
from palais_sim.core.rule_options import Rules, canonical_rules, rules_of

FORMATS = ("round-robin", "gauntlet", "fixed")


class ScheduleError(ValueError):
    """Settings that cannot make a schedule (too few strategies for the format, unknown format, ...)."""


@dataclass(frozen=True)
class Settings:
    """Everything that decides a run's results (not how it is executed: workers are not here).

    ``game`` is the game object (the command line resolved it; the manifest reader looks a stored name up; without
    one, the registry's default game); everything below reads ``settings.game``. ``rules`` holds the game's rule
    options by name (``GAME.rule_options``), checked and converted by the game's declarations and kept without the
    values that equal their default, so the same rules always make the same settings.
    """

    games: int = 1000
    players: int = 2
    strategies: tuple[str, ...] = ("greedy", "random")
    format: str = "round-robin"
    rotate_seats: bool = True
    seed: int = 1
    components: str | None = None  # a component-set file, or None for the game's standard set
    max_rounds: int = 100
    first_group: int = 0  # the run plays groups first_group, first_group + 1, ... (a sequential test's next batch)
    game: Game = field(default_factory=get_game)  # which game the run plays (``palais games``)
    rules: Mapping[str, Any] = field(default_factory=Rules)  # the game's rule options given (``GAME.rule_options``)

    def __post_init__(self) -> None:
        if isinstance(self.game, str):
            raise TypeError(f"Settings take the game object, not its name {self.game!r} (palais_sim.core.games)")
        object.__setattr__(self, "strategies", tuple(self.strategies))
        rules = canonical_rules(self.game.rule_options, self.rules or {}, self.game.name)
        object.__setattr__(self, "rules", Rules(rules))

    @property
    def rule_values(self) -> dict[str, Any]:
        """Every rule option of the game with its value in this run (the defaults filled in)."""
        return {o.name: self.rules.get(o.name, o.default) for o in self.game.rule_options}

    def __repr__(self) -> str:
        shown = (f for f in fields(self) if f.name not in ("game", "rules"))
        values = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in shown)
        return f"Settings({values}, game={self.game.name!r}, rules={dict(self.rules)!r})"

    def to_dict(self) -> dict:
        """As the manifest stores it: the game by name, the rules as a mapping of the options given."""
        data: dict[str, Any] = {
            "games": self.games, "players": self.players, "strategies": list(self.strategies), "format": self.format,
            "rotate_seats": self.rotate_seats, "seed": self.seed, "components": self.components,
            "max_rounds": self.max_rounds,
        }  # fmt: skip
        if self.first_group:
            data["first_group"] = self.first_group
        if self.game is not get_game():  # the default game's runs name none (as before games were named)
            data["game"] = self.game.name
        data["rules"] = self.rules.to_json() if isinstance(self.rules, Rules) else dict(self.rules)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Settings from a manifest's: this format, or an earlier one with the rule options as flat fields (mapped
        into ``rules``, so a run directory of then still resumes)."""
        known = {f.name for f in fields(cls)} - {"rules", "game"}
        values = {k: v for k, v in data.items() if k in known}
        values["strategies"] = tuple(values.get("strategies", ()))
        game = get_game(data.get("game") or None)
        return cls(**values, game=game, rules=rules_of(data, game.rule_options))

    def __reduce__(self) -> tuple:
        """Pickled by its stored form (the game by name): a worker gets the game object its registry holds."""
        return (_from_dict, (self.to_dict(),))


def _from_dict(data: dict) -> Settings:
    return Settings.from_dict(data)


class GameSpec(NamedTuple):
    """One scheduled game."""

    game: int
    seed: int
    group: int
    rotation: int
    matchup: tuple[str, ...]  # strategy specs in seat order (seat 1 first)


def group_seed(root: int, group: int) -> int:
    """The setup seed of a rotation group (63 bits, so it fits any signed 64-bit column too)."""
    import numpy as np  # here, not at the top: the command line imports this module, and numpy takes a while

    return int(np.random.SeedSequence(root, spawn_key=(group,)).generate_state(1, np.uint64)[0]) >> 1


def rotate(matchup: tuple[str, ...], rotation: int) -> tuple[str, ...]:
    """The matchup with the seats rotated: the first listed strategy moves to seat ``rotation + 1``."""
    r = rotation % len(matchup)
    return matchup[len(matchup) - r :] + matchup[: len(matchup) - r]


class Schedule:
    """The games of a run, computed on demand (O(1) per game) so a million-game run holds nothing in memory."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        p = settings.players
        specs = tuple(settings.strategies)
        if not specs:
            raise ScheduleError("no strategies given")
        if settings.games < 1:
            raise ScheduleError(f"--games must be at least 1, got {settings.games}")
        game = settings.game
        if not game.min_players <= p <= game.max_players:
            raise ScheduleError(f"--players must be {game.min_players} to {game.max_players} for {game.title}, got {p}")
        if isinstance(settings.seed, bool) or not isinstance(settings.seed, int) or settings.seed < 0:
            raise ScheduleError(f"--seed must be a whole number >= 0, got {settings.seed!r}")
        if settings.first_group < 0:
            raise ScheduleError(f"first_group must be at least 0, got {settings.first_group}")
        self.group_size = p if settings.rotate_seats else 1
        self.groups = math.ceil(settings.games / self.group_size)
        self.total = self.groups * self.group_size
        self._matchups: tuple[tuple[str, ...], ...] = ()
        fmt = settings.format
        if fmt == "fixed":
            if len(specs) == 1:
                specs = specs * p
            if len(specs) != p:
                raise ScheduleError(
                    f"format fixed needs {p} strategies (one per seat) or one for all, got {len(specs)}"
                )
            self._matchups = (specs,)
        elif fmt == "round-robin":
            if len(specs) < p:
                raise ScheduleError(
                    f"format round-robin needs at least {p} strategies for {p} players, got {len(specs)} "
                    f"(use --format fixed or gauntlet, or list a strategy twice)"
                )
            self._matchups = tuple(itertools.combinations(specs, p))
        elif fmt == "gauntlet":
            if len(specs) < 2:
                raise ScheduleError("format gauntlet needs a focus strategy and at least one opponent")
            self._focus, self._opponents = specs[0], specs[1:]
        else:
            raise ScheduleError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")

    def matchup(self, group: int) -> tuple[str, ...]:
        """The group's matchup as listed (rotation 0)."""
        if self.settings.format != "gauntlet":
            return self._matchups[group % len(self._matchups)]
        # The focus in seat 1, opponents sampled for the group from their own seed stream (without replacement
        # when there are enough of them), independent of the setup seed.
        import numpy as np

        rng = np.random.default_rng(np.random.SeedSequence(self.settings.seed, spawn_key=(group, 0)))
        k = self.settings.players - 1
        replace = len(self._opponents) < k
        picks = rng.choice(len(self._opponents), size=k, replace=replace)
        return (self._focus, *(self._opponents[i] for i in picks))

    def game(self, index: int) -> GameSpec:
        if not 0 <= index < self.total:
            raise IndexError(index)
        group, rotation = divmod(index, self.group_size)
        group += self.settings.first_group
        return GameSpec(
            game=index,
            seed=group_seed(self.settings.seed, group),
            group=group,
            rotation=rotation,
            matchup=rotate(self.matchup(group), rotation),
        )

    def games(self, first: int, count: int) -> list[GameSpec]:
        return [self.game(i) for i in range(first, min(first + count, self.total))]

    def matchup_count(self) -> int | None:
        """Distinct matchups before rotation (None for gauntlet: sampled per group)."""
        return None if self.settings.format == "gauntlet" else len(self._matchups)
