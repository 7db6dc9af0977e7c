"""``search`` for every game: determinized Monte Carlo search at the root, through the game's own rules.

It needs of a game only what every game gives: the seat contract of its view (``legal_options``, ``sample_option``,
``sample_state``, ``rng`` and ``game``, the game's name) and the game's :class:`~palais_sim.core.loop.Turns`
(``GAME.turns``: the pending decision, a seat's view, apply, and ``reward``, a played-out game's worth to a seat in
[0, 1]).

- **Candidates**: every legal choice, or, where the game does not list them (Palais Royal's movement) or they are
  more than ``width``, the rollout player's own choice and distinct random ones (``sample_option``) up to ``width``.
- **Samples**: a sample is a determinization (``view.sample_state``: the hidden information dealt anew, consistent
  with what the seat knows, and fresh chance) and a rollout player for every seat (drawn from ``rollout``, a
  ``/``-separated mixture of strategy specs). Every sample is played once through each candidate still in the race,
  so candidates are compared on the same games (common random numbers).
- **The root** is sequential halving (Karnin, Koren and Somekh, 2013): after each of ``ceil(log2(n))`` rounds the
  worse half is dropped. The rollout player's own choice stays in the race to the end and is played unless the best
  survivor beats it clearly on their paired rewards (by more than ``tie`` and twice the standard error of the
  differences): a search that deviates on noise plays worse than its rollout player.
- **Rollouts** play to the end, or ``horizon`` rounds (then the game's reward of the position reached).

``game`` is the game's name, which the registry passes (created by hand without it, the search learns the game from
its first view). ``budget`` counts rollouts per decision, in whole samples: every round plays at least one sample
of each candidate still in the race, so a small budget costs more than its number (reproducible: the view's own
random stream); a decision with one legal choice costs nothing. This is the search Palastgeflüster plays as
``search``; Palais Royal has it too, beside its own tree search (``ismcts``), whose movement and recruitment
candidates know the game.
"""

from __future__ import annotations

import math
import random
from typing import Any, NamedTuple

from palais_sim.core.errors import IllegalChoice, NotListed
from palais_sim.core.games import get_game
from palais_sim.core.loop import play_out
from palais_sim.core.portable_math import ceil_log2
from palais_sim.registry import load_strategy

TIE = 0.01  # mean reward by which another candidate must beat the base player's own choice


def choice_key(choice: object) -> object:
    """A choice as a hashable key (lists become tuples), to tell candidates apart."""
    if isinstance(choice, list | tuple):
        return tuple(choice_key(c) for c in choice)
    return choice


def clearly_better(rewards: list[list[float]], tie: float = TIE) -> int:
    """The candidate with the best mean reward if it beats candidate 0 (the base player's choice) by more than ``tie``
    and by more than twice the standard error of their paired differences (the same samples for every candidate;
    with one sample, by more than ``tie``); else 0. A search that deviates from its base on noise plays worse and,
    when it declines a recruitment on noise turn after turn, may never end a game."""
    # math.fsum throughout: correctly rounded, so the same bits on every Python (3.12's sum() of floats compensates)
    means = [math.fsum(r) / len(r) if r else -1.0 for r in rewards]
    best = max(range(len(rewards)), key=lambda i: means[i])
    if best == 0:
        return 0
    diffs = [b - a for a, b in zip(rewards[0], rewards[best], strict=True)]
    mean = math.fsum(diffs) / len(diffs)
    se = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs)) if len(diffs) > 1 else 0.0
    return best if mean > tie and mean > 2.0 * se else 0


class Candidate(NamedTuple):
    """One candidate as :meth:`SearchStrategy.analyse` rates it: the rollouts played through it and their mean
    reward (nan for none), and whether the search plays it."""

    choice: object
    visits: int
    value: float
    played: bool


class SearchStrategy:
    """Determinized Monte Carlo search with a sequential-halving root, for any game."""

    name = "search"

    def __init__(
        self, budget: int = 48, rollout: str = "", width: int = 8, horizon: int = 0, tie: float = TIE,
        game: str = "",
    ) -> None:  # fmt: skip
        self.budget = int(budget)
        if self.budget < 1:
            raise ValueError(f"budget must be at least 1 rollout per decision, got {self.budget}")
        self.width = int(width)
        if self.width < 2:
            raise ValueError(f"width must be at least 2 candidates, got {self.width}")
        self.horizon = int(horizon)
        if self.horizon < 0:
            raise ValueError(f"horizon must be 0 (play to the end) or a number of rounds, got {self.horizon}")
        self.tie = float(tie)
        self.rollout_spec = rollout
        self._game: str | None = None
        self._turns: Any = None
        self._rollouts: list[Any] = []
        if game:  # the registry names the game: a bad rollout spec is an error now, not at the first decision
            self._bind(game)

    def _bind(self, game_name: str) -> None:
        """The game's rules and rollout players, on the first decision (a strategy learns its game from its view)."""
        game = get_game(game_name)
        specs = [s for s in (self.rollout_spec or game.default_strategy).split("/") if s]
        self._rollouts = [load_strategy(spec, game) for spec in specs]
        self._turns = game.turns
        self._game = game_name

    def candidates(self, view: Any, decision: Any, base: object, rng: random.Random) -> list[object]:
        """The rollout player's choice first, then the others (every legal one, or distinct samples up to width)."""
        try:
            listed = view.legal_options(decision)
        except NotListed:
            listed = None
        base_key = choice_key(base)
        if listed is not None and len(listed) <= self.width:
            return [base, *(c for c in listed if choice_key(c) != base_key)]
        seen, out = {base_key}, [base]
        for _ in range(4 * self.width):
            if len(out) >= self.width:
                break
            choice = listed[rng.randrange(len(listed))] if listed is not None else view.sample_option(decision, rng)
            key = choice_key(choice)
            if key not in seen:
                seen.add(key)
                out.append(choice)
        return out

    def choose(self, view: Any, decision: Any) -> object:
        candidates, _, played = self._race(view, decision)
        return candidates[played]

    def analyse(self, view: Any, decision: Any) -> list[Candidate]:
        """Every candidate at the decision with its rollouts (visits), mean reward and whether the search plays it,
        most visited first (``palais analyse``); the same search and random stream as :meth:`choose`."""
        candidates, rewards, played = self._race(view, decision)
        out = [
            Candidate(choice, len(r), math.fsum(r) / len(r) if r else math.nan, i == played)
            for i, (choice, r) in enumerate(zip(candidates, rewards, strict=True))
        ]
        out.sort(key=lambda c: (-c.visits, -(c.value if c.value == c.value else -1.0)))
        return out

    def _race(self, view: Any, decision: Any) -> tuple[list[object], list[list[float]], int]:
        """The candidates, each one's rewards, and the index of the one to play."""
        if self._game != view.game:
            self._bind(view.game)
        rng = view.rng
        base = self._rollouts[rng.randrange(len(self._rollouts))].choose(view, decision)
        candidates = self.candidates(view, decision, base, rng)
        rewards, played = self._halving(view, decision, candidates, rng)
        return candidates, rewards, played

    def race(self, view: Any, decision: Any, candidates: list[object]) -> int:
        """The index of the candidate to play among ``candidates`` (given, not drawn: a policy's best few), by the
        same sequential-halving root on the view's random stream; ``candidates[0]`` takes the place of the rollout
        player's choice: it stays in the race and is played unless another is clearly better."""
        if self._game != view.game:
            self._bind(view.game)
        return self._halving(view, decision, candidates, view.rng)[1]

    def _halving(
        self, view: Any, decision: Any, candidates: list[object], rng: random.Random
    ) -> tuple[list[list[float]], int]:
        """Each candidate's rewards and the index of the one to play (candidate 0 is the base choice)."""
        rewards: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        if len(candidates) == 1:
            return rewards, 0
        rounds = max(1, ceil_log2(len(candidates)))
        for r in range(rounds):
            samples = max(1, self.budget // (rounds * len(alive)))
            for _ in range(samples):
                self._sample(view, decision.seat, candidates, alive, rewards, rng)
            if r < rounds - 1 and len(alive) > 2:
                ranked = sorted(alive[1:], key=lambda i: -math.fsum(rewards[i]) / max(1, len(rewards[i])))
                alive = [0, *ranked[: max(1, (len(alive) - 1) // 2)]]
        # paired over the samples every survivor saw: the last rounds' samples are shared by all of them
        shared = min(len(rewards[i]) for i in alive)
        best = clearly_better([rewards[i][-shared:] for i in alive], self.tie)
        return rewards, alive[best]

    def _sample(
        self, view: Any, seat: int, candidates: list[object], alive: list[int], rewards: list[list[float]],
        rng: random.Random,
    ) -> None:  # fmt: skip
        """One determinization and one deal of rollout players, played through every candidate still alive."""
        sampled = view.sample_state(rng)
        players = [self._rollouts[rng.randrange(len(self._rollouts))] for _ in range(sampled.n)]
        for i in alive:
            state = sampled.copy()
            try:
                self._turns.apply(state, candidates[i])
            except IllegalChoice:  # a sampled choice the determinization does not allow (it never should)
                rewards[i].append(0.0)
                continue
            play_out(state, players, self._turns, state.round + self.horizon if self.horizon > 0 else 1 << 30)
            rewards[i].append(self._turns.reward(state, seat))
