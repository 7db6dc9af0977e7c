"""``ismcts``: information-set Monte Carlo tree search over the engine's own ``rules.apply``.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012) over this seat's decisions:

- **Determinization per iteration.** Each iteration starts from ``view.sample_state(rng)``: the deck order, the other
  hands and the unseen nobles dealt anew, consistent with what the seat knows, and fresh chance for everything to
  come. The tree is shared by all of them: a node is this seat's sequence of choices, so it stands for every state the
  seat cannot tell apart.
- **The tree** covers this seat's decisions up to the end of its turn (which cards, reinforcement, movement, seals,
  each noble recruited, drawing, keeping). A child is an action; UCB1 picks among the children *available* in this
  iteration's determinization, counting each child's availability instead of its parent's visits. Then the game is
  played on for ``horizon`` rounds (2 by default; 0 plays to the end), where the fitted leaf value estimates what
  playing it out would be worth (``leaf_value.py``; or with ``settle`` above 0 to a round where the leaf value calls
  the game: ``lookahead.rollout_reward``) by a rollout strategy dealt to every seat from ``rollout``, a mixture
  of the heuristic styles (one deterministic rollout player gives one fixed continuation that the search learns to
  exploit: two such searchers declined the Office turn after turn and never ended their games), and the result is
  backed up.
- **Actions** are the real decisions, kept to a small set where the option space is large: every card combination
  (or, with a big hand, the styles' choices, each single card and none), every affordable noble (the best
  ``max_nobles`` by the heuristic's valuation) and stopping, the seals of the styles, and movement as a small
  set of target distributions: the five styles' plans, one plan per promising noble (its Office, King and Madame
  levels, brought by the heuristic's movement helper) and standing still.
- **Reward** in [0, 1] (``lookahead.rollout_reward``): a win (shared wins split) weighs 0.7, the score margin
  against the best other seat 0.3 (a logistic of margin / 10), so close games still teach the search something;
  times ``discount`` per round the game lasted (winning sooner is worth more: without it two searchers that each
  expect a longer game to favour them decline the Office turn after turn and never end the game).

**The root** (``root="halving"``, the default) is sequential halving (Karnin, Koren and Somekh, 2013) with common
random numbers: every sample (a determinization and a deal of rollout players) is played once through each
candidate still in the race, so candidates are compared on the same games, and after each of ``ceil(log2(n))``
rounds the worse half is dropped. The rollout strategy's own choice stays in the race to the end and is played
unless the best survivor beats it clearly on their paired rewards (by more than ``TIE`` and twice the standard error
of the differences, ``lookahead.clearly_better``): a search that deviates on noise plays worse. ``root="ucb"`` is
the earlier root, UCB1 over separate determinizations, playing the most visited child if clearly better (README,
"ismcts", compares the two). The seal decision is searched only where the styles disagree: taking no seal never won
a search, and searching it took a quarter of the time. The decision kinds in ``skip`` (``cards/draw/keep`` by default)
are not searched at all: the rollout strategy chooses. In 20 games against greedy at budget 30 and 20 at budget 120
(horizon 2) the search played another choice than the rollout strategy's in none of 557 card decisions and 2 of 163
draw and keep decisions, and these took 36-42% of its time (``benchmarks/search_profile.py kinds``).

``budget`` is in rollouts (reproducible; whole samples of the candidates in the race, at least one of each); with
``time_ms`` above 0 the search runs for that many milliseconds instead (split evenly between the rounds, at least
one sample per round). ``analyse`` returns every root child with its visits and mean reward (``palais analyse``).
From round ``base_after`` (40: twice a usual game's length) the base rollout strategy alone plays, which always
brings the end: a safety net against two searchers that each expect a longer game to favour them (1 of 60 games of
budget 300 against lookahead:budget=600 reached the round limit before it).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from palais_sim.core.portable_math import ceil_log2, exp, log
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.board import KING, MADAME, OFFICE
from palais_sim.games.palais_royal.options import card_options
from palais_sim.games.palais_royal.rules import Decision, IllegalChoice
from palais_sim.games.palais_royal.state import P_KING, P_MADAME, GameState
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import load_strategy
from strategies.common.search import TIE, choice_key, clearly_better
from strategies.palais_royal.lookahead import check_settle, deal_policies, rollout_reward

ROOTS = ("halving", "ucb")  # how the root's candidates are compared (see the module docstring)
MAX_CARD_OPTIONS = 12  # above this many card combinations: the styles' choices, each single card and none


class Node:
    """A node of the tree: the statistics of the action that leads to it, and its children by action key."""

    __slots__ = ("avail", "cache", "children", "choice", "squares", "total", "visits")

    def __init__(self, choice: object = None) -> None:
        self.choice = choice
        self.visits = 0
        self.total = 0.0
        self.squares = 0.0
        self.avail = 0
        self.children: dict[object, Node] = {}
        self.cache: dict[object, list[tuple[object, object]]] = {}


@dataclass(frozen=True)
class Candidate:
    """A root action as the search saw it (``analyse``)."""

    choice: Any  # not ``object``: a compiled dataclass resolves its field types by name in the module
    visits: int
    value: float  # mean reward in [0, 1]
    played: bool = False  # the choice the search plays


class IsmctsStrategy:
    """Information-set Monte Carlo tree search: the real decisions, re-sampled hidden information, rollouts."""

    name = "ismcts"

    def __init__(
        self,
        budget: int = 200,
        rollout: str = "greedy/seals/economy/park/cards",
        c: float = 0.7,
        styles: str = "greedy/seals/economy/park/cards",
        horizon: int = 2,
        time_ms: int = 0,
        max_nobles: int = 6,
        discount: float = 0.99,
        base_after: int = 40,
        root: str = "halving",
        settle: float = 0.0,
        skip: str = "cards/draw/keep",
        prior: str = "",
        cpuct: float = 1.0,
    ) -> None:
        if budget < 1:
            raise ValueError("budget must be at least 1 iteration per decision")
        if root not in ROOTS:
            raise ValueError(f"root must be one of {', '.join(ROOTS)}, not {root!r}")
        if c < 0:
            raise ValueError("the exploration constant c must not be negative")
        self.budget = budget
        self.c = c
        self.horizon = horizon
        self.settle = check_settle(settle)
        self.time_ms = time_ms
        self.max_nobles = max_nobles
        self.discount = discount
        self.base_after = base_after
        self.root = root
        self.rollout_spec = rollout
        # "/" separates several rollout strategies: each rollout deals one to every seat (the first is the base).
        self._rollouts = [load_strategy(r) for r in rollout.split("/") if r]
        if not self._rollouts:
            raise ValueError("rollout must name at least one strategy, e.g. greedy")
        self._rollout = self._rollouts[0]
        # "/" separates the styles: "," already separates a spec's parameters.
        self.styles = [load_strategy(s) for s in styles.split("/") if s]
        if not self.styles:
            raise ValueError("styles must name at least one strategy, e.g. greedy/seals")
        self._valuer = next((s for s in self.styles if hasattr(s, "noble_value")), None)
        # "/" separates the decision kinds left to the rollout strategy unsearched.
        self.skip = frozenset(k for k in skip.split("/") if k)
        unknown = sorted(self.skip - set(rules.DECISION_KINDS))
        if unknown:
            raise ValueError(f"skip names decision kinds: {', '.join(rules.DECISION_KINDS)}; not {', '.join(unknown)}")
        if cpuct < 0:
            raise ValueError("the prior's weight cpuct must not be negative")
        # a distilled policy's file ("expert": the shipped one) as the root's prior (PUCT); "" searches without one
        self.prior = prior
        self.cpuct = float(cpuct)
        self._prior: Any = None  # the policy, read at the first decision

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """The keyword parameters and their defaults, as ``__init__`` has them (the registry reads these: a compiled
        class has no inspectable signature)."""
        return {
            "budget": 200, "rollout": "greedy/seals/economy/park/cards", "c": 0.7,
            "styles": "greedy/seals/economy/park/cards", "horizon": 2, "time_ms": 0, "max_nobles": 6, "discount": 0.99,
            "base_after": 40, "root": "halving", "settle": 0.0, "skip": "cards/draw/keep", "prior": "", "cpuct": 1.0,
        }  # fmt: skip

    # ------------------------------------------------------------------ the strategy
    def choose(self, view: PlayerView, decision: Decision) -> object:
        if view.round >= self.base_after or decision.kind in self.skip:
            # a safety net, or a kind the search never changed (both in the module docstring)
            return self._rollout.choose(view, decision)
        if self.prior:
            votes: dict[object, int] = {}
            candidates = self.candidates(view, decision, votes)
            if len(candidates) == 1:
                return candidates[0][1]
            return self.puct(view, decision, Node(), candidates, votes)
        candidates = self.candidates(view, decision)
        if len(candidates) == 1:
            return candidates[0][1]
        return self.decide(view, decision, Node(), candidates)

    def analyse(self, view: PlayerView, decision: Decision) -> list[Candidate]:
        """Every candidate at the decision with its visits, mean reward and whether the search plays it, most
        visited first. With a prior it is the PUCT root that plays (``choose``): the same candidates, votes and
        rollouts."""
        root = Node()
        if self.prior:
            votes: dict[object, int] = {}
            candidates = self.candidates(view, decision, votes)
            played = choice_key(self.puct(view, decision, root, candidates, votes))
        else:
            candidates = self.candidates(view, decision)
            played = choice_key(self.decide(view, decision, root, candidates))
        out = []
        for key, choice in candidates:
            node = root.children.get(key)
            visits = node.visits if node else 0
            value = node.total / node.visits if node and node.visits else float("nan")
            out.append(Candidate(choice, visits, value, key == played))
        out.sort(key=lambda c: (-c.visits, -(c.value if c.value == c.value else -1.0)))
        return out

    def decide(
        self, view: PlayerView, decision: Decision, root: Node, candidates: list[tuple[object, object]]
    ) -> object:
        """Search ``candidates`` from ``root``; the choice to play."""
        root.cache[_cache_key(view, decision)] = candidates
        if self.root == "halving":
            return self.halving(view, root, candidates)
        self.search(view, root)
        if not root.children:
            return candidates[0][1]  # nothing was searched: the rollout strategy's own choice
        best = max(root.children.values(), key=lambda n: (n.visits, n.total))
        base = root.children.get(candidates[0][0])
        if base is None or base is best or not base.visits or _clearly_better(best, base):
            return best.choice
        return base.choice  # not better by a clear margin: the rollout strategy's own choice

    # ------------------------------------------------------------------ search
    def halving(self, view: PlayerView, root: Node, candidates: list[tuple[object, object]]) -> object:
        """Sequential halving over the root's candidates with common random numbers; the choice it plays.

        Every sample (a determinization and a rollout deal) is played once through each candidate still in the
        race, so the candidates are compared on the same games. After each of ``ceil(log2(n))`` rounds the worse half
        is dropped; the rollout strategy's own choice stays to the end, and the best survivor is played only if it
        beats it clearly on their paired rewards (``clearly_better``)."""
        rng = random.Random(view.rng.getrandbits(64))
        seat = view.seat
        base = candidates[0][0]
        alive = [key for key, _ in candidates]
        for key, choice in candidates:
            root.children[key] = Node(choice)
        rewards: dict[object, list[float]] = {key: [] for key in alive}
        rounds = max(1, ceil_log2(len(alive)))
        spent = 0
        start = time.perf_counter()
        for r in range(rounds):
            share = (self.budget - spent) // (rounds - r)
            samples = max(1, share // len(alive))
            deadline = start + self.time_ms * (r + 1) / rounds / 1000.0 if self.time_ms > 0 else 0.0
            done = 0
            while done < samples if not deadline else (done == 0 or time.perf_counter() < deadline):
                sample = view.sample_state(rng)
                deal = rng.getrandbits(64)
                for key in alive:
                    reward = self.iterate(sample.copy(), seat, root, random.Random(deal), root.children[key])
                    rewards[key].append(reward)
                spent += len(alive)
                done += 1
            if r < rounds - 1:
                others = sorted((k for k in alive if k != base), key=lambda k: -_mean(rewards[k]))
                alive = [base, *others[: max(1, math.ceil(len(alive) / 2) - 1)]]
        best = max(alive, key=lambda k: _mean(rewards[k]))
        if best != base and clearly_better([rewards[base], rewards[best]]) == 1:
            return root.children[best].choice
        return root.children[base].choice

    def prior_probabilities(
        self, view: PlayerView, decision: Decision, candidates: list[tuple[object, object]], votes: dict[object, int]
    ) -> list[float]:
        """The prior policy's probability of each candidate (a softmax of its scores over the candidates' features,
        ``expert_features``, on one determinization of the view)."""
        from strategies.common.distill import load_model
        from strategies.palais_royal.expert_features import FEATURE_SETS, ROUNDS, candidate_features

        if self._prior is None:
            if self.prior == "expert":
                from importlib import resources

                path = str(resources.files("strategies.palais_royal").joinpath("expert.json"))
            else:
                path = self.prior
            self._prior = load_model(path, *FEATURE_SETS)
        policy = self._prior
        choices = [choice for _, choice in candidates]
        counts = [votes.get(key, 0) for key, _ in candidates]
        rng = random.Random(view.rng.getrandbits(64))
        rows = candidate_features(
            view, choices, counts, len(self.styles), self._rollout, rng, ROUNDS[len(policy.features)]
        )
        scores = policy.scores(decision.kind, rows)
        top = max(scores)
        weights = [exp(z - top) for z in scores]
        total = math.fsum(weights)
        return [w / total for w in weights]

    def puct(
        self, view: PlayerView, decision: Decision, root: Node, candidates: list[tuple[object, object]],
        votes: dict[object, int],
    ) -> object:  # fmt: skip
        """The root with a prior (``prior``): each of ``budget`` rollouts goes through the candidate with the best
        mean reward plus ``cpuct`` times its prior probability times sqrt(rollouts so far) / (1 + its rollouts) (PUCT,
        AlphaZero's selection; an unvisited candidate counts the root's mean so far), on a fresh determinization. The
        prior's best is played unless the most visited beats it clearly (``_clearly_better``)."""
        probs = self.prior_probabilities(view, decision, candidates, votes)
        root.cache[_cache_key(view, decision)] = candidates
        rng = random.Random(view.rng.getrandbits(64))
        seat = view.seat
        children = []
        for key, choice in candidates:
            child = Node(choice)
            root.children[key] = child
            children.append(child)
        base = max(range(len(children)), key=lambda i: (probs[i], -i))
        for t in range(self.budget):
            mean = root.total / root.visits if root.visits else 0.5
            explore = self.cpuct * math.sqrt(t + 1)
            pick, best_u = 0, -math.inf
            for i, child in enumerate(children):
                q = child.total / child.visits if child.visits else mean
                u = q + explore * probs[i] / (1 + child.visits)
                if u > best_u:
                    pick, best_u = i, u
            self.iterate(view.sample_state(rng), seat, root, rng, children[pick])
        most = max(range(len(children)), key=lambda i: (children[i].visits, children[i].total, probs[i]))
        if most == base:
            return children[base].choice
        if not children[base].visits or (children[most].visits > 1 and _clearly_better(children[most], children[base])):
            return children[most].choice
        return children[base].choice

    def search(self, view: PlayerView, root: Node) -> None:
        rng = random.Random(view.rng.getrandbits(64))
        seat = view.seat
        deadline = time.perf_counter() + self.time_ms / 1000.0 if self.time_ms > 0 else 0.0
        iterations = 0
        while True:
            state = view.sample_state(rng)
            self.iterate(state, seat, root, rng)
            iterations += 1
            if deadline:
                if time.perf_counter() >= deadline:
                    break
            elif iterations >= self.budget:
                break

    def iterate(self, state: GameState, seat: int, root: Node, rng: random.Random, first: Node | None = None) -> float:
        """One iteration from ``root`` (through its child ``first`` if given): down the tree to the end of the seat's
        turn, a rollout, the reward backed up; the reward."""
        turn = state.turn_no
        start = state.round
        node = root
        path = [root]
        if first is not None:
            _apply(state, first.choice)
            first.avail += 1
            node = first
            path.append(first)
        # The seat's decisions up to the end of its turn (or of its setup: setup decisions are not in a turn of the
        # seat, so the pending decision's seat decides, not the seat whose turn it is).
        while not state.over and state.turn_no == turn:
            dec = rules.decision(state)
            if dec.seat != seat:
                break
            view = PlayerView(state, seat)
            key = _cache_key(view, dec)
            cands = node.cache.get(key)
            if cands is None:
                cands = self.candidates(view, dec)
                node.cache[key] = cands
            if len(cands) == 1:
                # Nothing to decide here: no node of its own.
                _apply(state, cands[0][1])
                continue
            fresh = None
            for action, choice in cands:
                child = node.children.get(action)
                if child is None:
                    if fresh is None:
                        fresh = (action, choice)
                else:
                    child.avail += 1
            if fresh is not None:
                child = Node(fresh[1])
                child.avail = 1
                node.children[fresh[0]] = child
                _apply(state, fresh[1])
                path.append(child)
                break
            node = self.select(node, cands)
            _apply(state, node.choice)
            path.append(node)
        policies = deal_policies(self._rollouts, state.n, rng)
        reward = rollout_reward(state, policies, seat, start, self.horizon, self.discount, self.settle)
        for n in path:
            n.visits += 1
            n.total += reward
            n.squares += reward * reward
        return reward

    def select(self, node: Node, cands: list[tuple[object, object]]) -> Node:
        best, best_u = None, -1.0
        for action, _choice in cands:
            child = node.children[action]
            u = child.total / child.visits + self.c * math.sqrt(log(child.avail) / child.visits)
            if u > best_u:
                best, best_u = child, u
        assert best is not None
        return best

    # ------------------------------------------------------------------ the actions
    def candidates(
        self, view: PlayerView, decision: Decision, votes: dict[object, int] | None = None
    ) -> list[tuple[object, object]]:
        """The actions searched at ``decision``, as ``(key, choice)``; the rollout strategy's choice first (the first
        one tried), duplicates removed. ``votes``, if given, counts how many styles chose each key (``expert``)."""
        seen: dict[object, object] = {}

        def add(choice: object) -> None:
            key = choice_key(choice)
            if key not in seen:
                seen[key] = choice

        add(self._rollout.choose(view, decision))
        for style in self.styles:
            choice = style.choose(view, decision)
            add(choice)
            if votes is not None:
                key = choice_key(choice)
                votes[key] = votes.get(key, 0) + 1
        kind = decision.kind
        if kind == "cards":
            options = card_options(view, decision)
            if len(options) <= MAX_CARD_OPTIONS:
                for option in options:
                    add(option)
            else:
                add(())
                legal = {choice_key(option) for option in options}
                for card in dict.fromkeys(decision.playable):
                    if (card,) in legal:  # playable may need another card first (a gold4 to pay for it)
                        add((card,))
        elif kind == "move":
            add([])
            for moves in self.noble_moves(view, decision):
                add(moves)
        elif kind == "recruit":
            for field in self.ranked_nobles(view, decision):
                add(field)
            add(None)
        elif kind == "draw":
            add(0)
        elif kind == "keep":
            add(())
        return list(seen.items())

    def ranked_nobles(self, view: PlayerView, decision: Decision) -> list[int]:
        """The affordable nobles now, best first by the heuristic's valuation (at most ``max_nobles``)."""
        fields = [f for f in view.noble_fields() if view.can_recruit(f, decision.wild_seals)]
        valuer = self._valuer
        if valuer is None or len(fields) <= self.max_nobles:
            return fields[: self.max_nobles]
        strengths = valuer.row_strengths(view)
        turns = valuer.turns_left(view)
        nobles = view.components.nobles

        def score(field: int) -> float:
            noble = nobles[view.park[field]]
            value = valuer.noble_value(view, field, strengths, turns)
            return valuer.noble_score(value, view.recruit_cost(field), noble.violet + noble.turquoise)

        return sorted(fields, key=score, reverse=True)[: self.max_nobles]

    def noble_moves(self, view: PlayerView, decision: Decision) -> list[list[tuple[int, int, int]]]:
        """Movement aimed at one noble each: the Office, King and Madame levels it needs after this turn's bonus
        servants, brought by the heuristic's movement helper from the servants above the standing levels."""
        valuer = self._valuer
        if valuer is None:
            return []
        from strategies.palais_royal.heuristic import _fill  # the heuristic's own movement helper

        seat = view.seat
        mine = view.my_rooms()
        target = valuer.standing_target(view, sum(mine))
        keep = valuer.standing_keep(view, mine, target)
        dist = view.layout.distances(decision.diagonal)
        gold = view.money() + view.mint_income()
        nobles = view.components.nobles
        strengths = valuer.row_strengths(view)
        turns = valuer.turns_left(view)
        scored = []
        for field in view.noble_fields():
            noble = nobles[view.park[field]]
            cost = view.recruit_cost(field)
            if cost > gold:
                continue
            value = valuer.noble_value(view, field, strengths, turns)
            scored.append((valuer.noble_score(value, cost, noble.violet + noble.turquoise), field))
        scored.sort(reverse=True)
        plans: list[list[tuple[int, int, int]]] = []
        priv = view.priv[seat]
        for _score, field in scored[: self.max_nobles]:
            noble = nobles[view.park[field]]
            need_k = valuer._seal_level(view, KING, noble.turquoise, mine, priv[P_KING])
            need_d = valuer._seal_level(view, MADAME, noble.violet, mine, priv[P_MADAME])
            wants = ((OFFICE, 1), (KING, need_k), (MADAME, need_d))
            work = mine[:]
            moves: list[tuple[int, int, int]] = []
            floor = keep[:]
            for room, level in wants:
                floor[room] = max(floor[room], min(work[room], level))
            _fill(work, wants, floor, dist, decision.points, moves)
            if moves and all(work[room] >= level for room, level in wants):
                plans.append(moves)
        return plans


# ---------------------------------------------------------------------------------------------- helpers


def _apply(state: GameState, choice: object) -> None:
    try:
        rules.apply(state, choice)
    except IllegalChoice as exc:  # a candidate is built from the state it is applied to: this is a bug
        raise RuntimeError(f"ismcts candidate {choice!r} is illegal here: {exc}") from None


def _mean(values: list[float]) -> float:
    """Correctly rounded (math.fsum): the same bits on every Python, whose sum() of floats changed in 3.12."""
    return math.fsum(values) / len(values)


def _clearly_better(best: Node, base: Node) -> bool:
    """Whether ``best`` beats ``base`` by more than ``TIE`` and by more than twice the standard error of the
    difference of their mean rewards."""
    diff = best.total / best.visits - base.total / base.visits
    var = 0.0
    for n in (best, base):
        mean = n.total / n.visits
        spread = max(0.0, n.squares / n.visits - mean * mean)
        var += spread / n.visits
    return diff > TIE and diff > 2.0 * math.sqrt(var)


def _cache_key(view: PlayerView, decision: Decision) -> object:
    """A decision of this node (its step in the turn) and what of the seat's own view can differ between
    determinizations there: the cards it drew."""
    return (view.step, decision.kind, decision.window, view.hand, view.drawn)
