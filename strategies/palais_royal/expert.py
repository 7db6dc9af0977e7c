"""``expert``: a policy distilled from ``ismcts``, the prior of a small search.

At each decision of the kinds in ``search`` (movements and recruitments; the others, like the card, draw and keep
decisions ``ismcts`` leaves to its rollout strategy, go to the base style, greedy), ``expert`` takes the search's own
candidates (``IsmctsStrategy.candidates``), describes each by its after-state at the end of the seat's turn, the
other seats' replies and the move itself (``expert_features``), and scores it with a policy fitted on the choices of
``ismcts:budget=30,horizon=2`` in its self-play: a small network (``strategies/common/mlp.py``) or a linear score
(``python -m strategies.palais_royal.expert_train``; the model file ``expert.json`` beside this module
records its commands, data size, seed and held-out figures). A model on longer features (two rounds of replies)
may hold ``screens``: cheaper policies on the first features of its own, each keeping the candidates it ranks best
(every candidate is described after its turn, the best few after the replies, the best of those after the second
round), so the longer rollouts are played for the few candidates that can be chosen; ``screen=off`` reads every
candidate at the model's depth. Where a screen's best candidate leads its second by at least ``sure`` (a score gap:
``model``, the default, reads the model file's ``play.sure``, none declared: off; ``off``; a gap for every kind, or
gaps per decision kind, ``move:0.5/recruit:1.5``), that candidate is played without the longer rollouts, at the
player counts where the policy plays alone (where the race follows, it decides between the best two: a sure screen
there would skip it; docs/notes/2026-12-07-sure-screens.md).

Where the policy's best score leads its second by less than ``margin`` (3.0; 0 searches every decision), the ``top``
(2) candidates it scores best are searched by ``ismcts``' sequential-halving root with ``budget`` (2) rollouts of
``horizon`` (2) rounds, the policy's own choice played unless another is clearly better. ``budget=0`` plays the
policy's choice alone, and so does every game of a player count in ``alone``: ``model`` (the default) reads the counts
the model file declares (``play.alone_players``: where its policy alone was measured stronger than with the race; a
model that declares none races at every count), ``none`` races everywhere, ``2/3`` names them. After ``no_pass_after``
rounds in which no noble was recruited, ``expert`` never passes (neither an empty movement nor recruiting none, where
the search's candidates hold another): ``model`` (the default) reads the model file's ``play.no_pass_after`` (none
declared: off), ``off``, or a number of rounds; the guard against two seats of a value-trained policy passing to each
other for the rest of the game (``docs/notes/2026-11-29-no-pass.md``). From round ``base_after`` the base style alone
plays (``ismcts``' safety net). Strength and cost: ``docs/notes/2026-11-26-expert.md``,
``docs/notes/2026-11-28-value-target.md``.

Fair play: everything is read from the seat's view; the other hands are a determinization's.
"""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path
from typing import Any

from palais_sim.games.palais_royal.rules import DECISION_KINDS, Decision
from palais_sim.games.palais_royal.view import PlayerView
from strategies.common.distill import LinearPolicy, Screen, best_index, check_prior_search, load_model, load_screens
from strategies.common.mlp import MlpPolicy
from strategies.common.search import choice_key
from strategies.palais_royal.expert_features import (
    FEATURE_SETS,
    FEATURES,
    LONG_FEATURES,
    ROUNDS,
    TURN_FEATURES,
    CandidateRows,
)
from strategies.palais_royal.ismcts import IsmctsStrategy, Node

SCREEN_CHOICES = ("model", "off")
PASSES = TURN_FEATURES.index("passes")  # a candidate's row: 1.0 where it passes (no movement, no noble)

# found through the package (a compiled module's __file__ is the shared library's, elsewhere)
MODEL = Path(str(resources.files("strategies.palais_royal").joinpath("expert.json")))


def parse_player_counts(text: str) -> frozenset[int]:
    """``2/3`` as the player counts {2, 3}; ``none`` (or nothing) as none."""
    if text.strip() in ("", "none"):
        return frozenset()
    try:
        counts = frozenset(int(part) for part in text.split("/") if part.strip())
    except ValueError:
        raise ValueError(f"alone is model, none or player counts separated by '/' (e.g. 2/3), not {text!r}") from None
    if any(count < 2 for count in counts):
        raise ValueError(f"alone names player counts (2 or more), not {text!r}")
    return counts


def declared_alone_counts(meta: dict[str, Any], path: str | Path) -> frozenset[int]:
    """The player counts a model file declares its policy plays alone (``play.alone_players``; none if absent)."""
    declared = meta.get("play", {}).get("alone_players", [])
    if not isinstance(declared, list) or not all(isinstance(n, int) and n >= 2 for n in declared):
        raise ValueError(f"{path}: play.alone_players must be a list of player counts, not {declared!r}")
    return frozenset(declared)


def parse_no_pass_after(text: str) -> int:
    """``off`` (or nothing) as 0 (no guard), else a number of rounds (1 or more)."""
    if text.strip() in ("", "off"):
        return 0
    try:
        rounds = int(text)
    except ValueError:
        raise ValueError(f"no_pass_after is model, off or a number of rounds (e.g. 2), not {text!r}") from None
    if rounds < 1:
        raise ValueError(f"no_pass_after counts rounds (1 or more; off for none), not {text!r}")
    return rounds


def declared_no_pass_after(meta: dict[str, Any], path: str | Path) -> int:
    """The rounds without a recruitment after which a model file declares its movements never pass
    (``play.no_pass_after``; 0, no guard, if absent)."""
    declared = meta.get("play", {}).get("no_pass_after", 0)
    if not isinstance(declared, int) or isinstance(declared, bool) or declared < 0:
        raise ValueError(f"{path}: play.no_pass_after must be a number of rounds, not {declared!r}")
    return declared


def _gap(text: object, where: str) -> float:
    """A score gap: a number above 0 and finite."""
    try:
        gap = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{where}: a score gap is a number (e.g. 1.5), not {text!r}") from None
    if isinstance(text, bool) or not 0.0 < gap < float("inf"):
        raise ValueError(f"{where}: a score gap is a number above 0, not {text!r}")
    return gap


def _kind_gaps(items: dict[str, object], where: str) -> dict[str, float]:
    """Gaps per decision kind (a kind not named: never sure)."""
    unknown = sorted(set(items) - set(DECISION_KINDS))
    if unknown:
        raise ValueError(f"{where}: gaps are per decision kind ({', '.join(DECISION_KINDS)}), not {unknown[0]!r}")
    return {kind: _gap(gap, where) for kind, gap in items.items()}


def parse_sure(text: str) -> dict[str, float]:
    """``off`` (or nothing) as no gap (every screen keeps its few), a gap for every kind (``0.75``), or gaps per
    decision kind (``move:0.5/recruit:1.5``)."""
    if text.strip() in ("", "off"):
        return {}
    where = f"sure={text}"
    if ":" not in text:
        return dict.fromkeys(DECISION_KINDS, _gap(text, where))
    pairs = [part.split(":", 1) for part in text.split("/") if part.strip()]
    if any(len(pair) != 2 for pair in pairs):
        raise ValueError(f"{where}: gaps per kind are kind:gap separated by '/' (e.g. move:0.5/recruit:1.5)")
    return _kind_gaps({kind.strip(): gap.strip() for kind, gap in pairs}, where)


def declared_sure(meta: dict[str, Any], path: str | Path) -> dict[str, float]:
    """The score gaps, per decision kind, at which a model file declares a screen's best candidate is played at once
    (``play.sure``: a gap for every kind or ``{kind: gap}``; none, never, if absent)."""
    declared = meta.get("play", {}).get("sure", {})
    where = f"{path}: play.sure"
    gaps = declared if isinstance(declared, dict) else dict.fromkeys(DECISION_KINDS, declared)
    for gap in gaps.values():
        if isinstance(gap, bool) or not isinstance(gap, int | float):
            raise ValueError(f"{where}: a score gap is a number (e.g. 1.5), not {gap!r}")
    return _kind_gaps(gaps, where)


def load_policy(path: str | Path = MODEL) -> LinearPolicy | MlpPolicy:
    """The fitted policy at ``path`` (linear or a small network), read once per process."""
    return load_model(path, *FEATURE_SETS)


class ExpertStrategy:
    """A linear policy over the search's candidates, fitted on the search's choices (optionally the prior of a small
    search)."""

    name = "expert"
    # an expert iteration's defaults (``palais train``): its teacher (the strongest player a study knows), its players
    iteration_teacher = "ismcts:budget=100,horizon=2"
    iteration_players = 2
    data_features = LONG_FEATURES  # what ``featurize`` records by default: a model may be fitted on all of them
    # the screens a fit adds below a policy on more features (``distill.fit_screens``): every candidate scored on its
    # turn alone, the best 3 of them after the replies, the best 2 of those after a second round (the policy's); on
    # held-out decisions they keep most of what the second round adds at about the cost of one round for every
    # candidate (docs/notes/2026-12-02-screens.md)
    screen_sets = ((TURN_FEATURES, 3), (FEATURES, 2))

    def __init__(
        self, budget: int = 2, top: int = 2, margin: float = 3.0, horizon: int = 2, base_after: int = 40,
        model: str = "", search: str = "move/recruit", alone: str = "model", no_pass_after: str = "model",
        screen: str = "model", sure: str = "model",
    ) -> None:  # fmt: skip
        check_prior_search(budget, top)
        if margin < 0:
            raise ValueError(f"margin must be 0 (search every decision) or a policy score gap, got {margin}")
        self.budget = int(budget)
        self.margin = float(margin)
        self.top = int(top)
        self.base_after = int(base_after)
        # "/" separates the decision kinds expert decides (the policy, and the search over its best); the base style
        # decides the others, as it decides the card, draw and keep decisions (ismcts' own ``skip``)
        self.searched = frozenset(k for k in search.split("/") if k)
        unknown = sorted(self.searched - set(DECISION_KINDS))
        if unknown:
            raise ValueError(f"search names decision kinds: {', '.join(DECISION_KINDS)}; not {', '.join(unknown)}")
        self.alone = alone
        self._alone_counts: frozenset[int] | None = None if alone == "model" else parse_player_counts(alone)
        self.no_pass_after = no_pass_after
        self._no_pass_after: int | None = None if no_pass_after == "model" else parse_no_pass_after(no_pass_after)
        # per seat: the nobles left in the park when the seat last saw that number change, the round it saw it, and
        # the round of its latest decision (a round that goes back is a new game)
        self._park_seen: dict[int, tuple[int, int, int]] = {}
        self._search = IsmctsStrategy(budget=max(1, self.budget), horizon=horizon, base_after=base_after)
        self._base = self._search._rollout
        self._styles = len(self._search.styles)
        if screen not in SCREEN_CHOICES:
            raise ValueError(f"screen is one of {', '.join(SCREEN_CHOICES)} (the model file's screens, or none), "
                             f"not {screen!r}")  # fmt: skip
        self.screen = screen
        self.sure = sure
        self._sure: dict[str, float] | None = None if sure == "model" else parse_sure(sure)
        self._screens: list[Screen] | None = None  # read with the policy, once
        self.model = model or str(MODEL)
        # read at the first decision (data generation needs none); a model named is read now: one of other features
        # is refused where the strategy is made, in one line
        self._policy: LinearPolicy | MlpPolicy | None = load_policy(model) if model else None
        if self._policy is not None and self._alone_counts is None:
            self._alone_counts = declared_alone_counts(self._policy.meta, model)
        if self._policy is not None and self._no_pass_after is None:
            self._no_pass_after = declared_no_pass_after(self._policy.meta, model)
        if self._policy is not None and self._sure is None:
            self._sure = declared_sure(self._policy.meta, model)
        if self._policy is not None:
            self.screens  # noqa: B018 - a screen on features no round of replies gives is refused now, in one line

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """The keyword parameters and their defaults, as ``__init__`` has them (the registry reads these: a compiled
        class has no inspectable signature)."""
        return {
            "budget": 2, "top": 2, "margin": 3.0, "horizon": 2, "base_after": 40, "model": "",
            "search": "move/recruit", "alone": "model", "no_pass_after": "model", "screen": "model",
            "sure": "model",
        }  # fmt: skip

    @property
    def policy(self) -> LinearPolicy | MlpPolicy:
        if self._policy is None:
            self._policy = load_policy(self.model)
        return self._policy

    @property
    def screens(self) -> list[Screen]:
        """The cheaper policies that choose which candidates the policy reads (``screen=model``: the model file's)."""
        if self._screens is None:
            screens = [] if self.screen == "off" else load_screens(self.model, *FEATURE_SETS)
            for screen, _ in screens:
                if len(screen.features) not in ROUNDS:
                    raise ValueError(f"{self.model}: a screen on {len(screen.features)} features, which no round of "
                                     "replies describes")  # fmt: skip
            self._screens = screens
        return self._screens

    @property
    def alone_counts(self) -> frozenset[int]:
        """The player counts whose games the policy plays alone (``alone``, or what the model file declares)."""
        if self._alone_counts is None:
            self._alone_counts = declared_alone_counts(self.policy.meta, self.model)
        return self._alone_counts

    @property
    def no_pass_rounds(self) -> int:
        """The rounds without a recruitment after which expert never passes where it has another candidate (0: it
        may always pass)."""
        if self._no_pass_after is None:
            self._no_pass_after = declared_no_pass_after(self.policy.meta, self.model)
        return self._no_pass_after

    @property
    def sure_gaps(self) -> dict[str, float]:
        """Per decision kind, the score gap by which a screen's best candidate must lead its second to be played at
        once (a kind not there: never)."""
        if self._sure is None:
            self._sure = declared_sure(self.policy.meta, self.model)
        return self._sure

    def rounds_without_recruitment(self, view: PlayerView) -> int:
        """Rounds since the seat first saw the park's present number of nobles at one of its decisions (called at
        each of them; a seat's own count, so a player shared between seats counts as separate ones do)."""
        seen = self._park_seen.get(view.seat)
        if seen is None or view.round < seen[2] or view.nobles_left != seen[0]:
            seen = (view.nobles_left, view.round, view.round)
        self._park_seen[view.seat] = (seen[0], seen[1], view.round)
        return view.round - seen[1]

    def describe(
        self, view: PlayerView, decision: Decision, rng: random.Random
    ) -> tuple[list[object], CandidateRows] | None:
        """The candidates and their rows, no replies played yet (``CandidateRows.deepen`` plays them), or ``None``
        where the base style decides alone."""
        if view.round >= self.base_after or decision.kind in self._search.skip or decision.kind not in self.searched:
            return None
        votes: dict[object, int] = {}
        candidates = self._search.candidates(view, decision, votes)
        if len(candidates) == 1:
            return None
        choices = [choice for _, choice in candidates]
        counts = [votes.get(key, 0) for key, _ in candidates]
        return choices, CandidateRows(view, choices, counts, self._styles, self._base, rng)

    def featurize(
        self, view: PlayerView, decision: Decision, rng: random.Random, replies: int = 2
    ) -> tuple[list[object], list[list[float]]] | None:
        """The candidates and their features after ``replies`` rounds of replies (2: ``LONG_FEATURES``, what
        ``palais train``'s data records; 1: ``FEATURES``; 0: ``TURN_FEATURES``), or ``None`` where the base style
        decides alone."""
        described = self.describe(view, decision, rng)
        if described is None:
            return None
        choices, rows = described
        for _ in range(replies):
            rows.deepen(list(range(len(choices))))
        return choices, rows.rows

    def _screened(self, kind: str, rows: CandidateRows, alive: list[int], sure: float) -> list[int]:
        """The candidates of ``alive`` the model's screens keep, cheapest screen first, each candidate described as
        deep as the screen reads (``screen=off``: all of them); a screen's best alone where it leads the second by
        ``sure`` or more (0.0: never)."""
        for screen, keep in self.screens:
            if len(alive) <= keep:
                continue
            rows.deepen([i for i in alive if rows.rounds(i) < ROUNDS[len(screen.features)]])
            scores = screen.scores(kind, [rows.rows[i][: len(screen.features)] for i in alive])
            order = sorted(range(len(alive)), key=lambda j: (-scores[j], j))
            if sure > 0.0 and scores[order[0]] - scores[order[1]] >= sure:
                return [alive[order[0]]]
            alive = [alive[j] for j in order[:keep]]
        return alive

    def choose(self, view: PlayerView, decision: Decision) -> object:
        idle = self.rounds_without_recruitment(view)
        rng = random.Random(view.rng.getrandbits(64))
        policy = self.policy
        described = self.describe(view, decision, rng)
        if described is None:
            return self._base.choose(view, decision)
        choices, rows = described
        alive = list(range(len(choices)))
        if 0 < self.no_pass_rounds <= idle:  # neither an empty movement nor stopping where a noble can be taken
            moving = [i for i in alive if rows.rows[i][PASSES] < 0.5]
            if moving and len(moving) < len(alive):
                alive = moving
                if len(alive) == 1:
                    return choices[alive[0]]
        alone = self.budget == 0 or view.n in self.alone_counts  # the policy's choice is played: no race follows
        alive = self._screened(decision.kind, rows, alive, self.sure_gaps.get(decision.kind, 0.0) if alone else 0.0)
        if len(alive) == 1:  # a screen is sure of it: no longer rollouts
            return choices[alive[0]]
        depth = ROUNDS[len(policy.features)]
        while any(rows.rounds(i) < depth for i in alive):
            rows.deepen([i for i in alive if rows.rounds(i) < depth])
        scores = policy.scores(decision.kind, [rows.rows[i] for i in alive])
        if alone:
            return choices[alive[best_index(scores)]]
        order = sorted(range(len(alive)), key=lambda j: (-scores[j], j))[: self.top]
        if self.margin > 0.0 and scores[order[0]] - scores[order[1]] >= self.margin:
            return choices[alive[order[0]]]  # the policy is sure enough: no search
        ranked = [(choice_key(choices[alive[j]]), choices[alive[j]]) for j in order]
        return self._search.decide(view, decision, Node(), ranked)
