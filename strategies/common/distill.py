"""Distilling a search into a policy over its candidates, for any game: the training table, the fit and the model.

A *student* is a strategy that can describe the candidates of a decision (``featurize(view, decision, rng)``: the
choices and one feature row each, or ``None`` where it leaves the decision to its base player) and score them with a
:class:`LinearPolicy`. A *teacher* is a search that can ``analyse`` a decision (every candidate with its visits, mean
reward and whether it plays it, as ``IsmctsStrategy.analyse`` gives them).

- :func:`generate` plays teacher self-play through the game interface (``GAME.context`` and ``GAME.play``, the
  tournament runner's own calls) and records, at every decision the student would decide, each candidate's features
  with the teacher's visits, mean reward and choice: a Parquet table, one row per candidate.
- :func:`fit` fits a conditional logit (a softmax over each decision's candidates of a linear score, one weight
  vector per decision kind) to the teacher's choices, its visits or a softmax of its mean rewards, L2-regularised,
  on the decisions of 80% of the games; the rest give the held-out figures (log-loss, agreement with the teacher).
- :class:`LinearPolicy` is the fitted model in plain Python (the same floating-point operations in the Python source
  and the compiled build): a score per candidate, the best one played.

``python -m strategies.common.distill`` (see ``main``) runs the two steps; the model file records its command, data
size, seed and held-out figures.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from operator import mul
from pathlib import Path
from typing import Any

from palais_sim.core.blas import one_blas_thread
from palais_sim.core.games import get_game
from palais_sim.registry import load_strategy
from strategies.common.mlp import KIND as MLP
from strategies.common.mlp import MlpPolicy, fit_mlp
from strategies.common.search import choice_key

# what the policy imitates: the teacher's choice, its visit distribution, or a softmax of its mean rewards
TARGETS = ("played", "visits", "value")
STUDENTS = ("linear", MLP)  # the policy's form: a linear score, or a small network (strategies/common/mlp.py)
COLUMNS = (
    "game", "decision", "seat", "round", "kind", "candidate", "features", "visits", "value", "played", "win_share",
)  # fmt: skip


Screen = tuple["LinearPolicy | MlpPolicy", int]  # a cheaper policy, and how many of its best candidates it keeps
_LOADED: dict[tuple, tuple[LinearPolicy | MlpPolicy, list[Screen]]] = {}  # read in this process, by path and features


def load_model(path: str | Path, features: Sequence[str], *others: Sequence[str]) -> LinearPolicy | MlpPolicy:
    """The fitted policy at ``path`` (linear, or a network where the file says ``"model": "mlp"``), fitted on
    ``features`` or one of the ``others`` lists; read once per process and path (every player of a game shares it),
    and again once the file changed (an iteration installs its model over the one it started from)."""
    return _read_model(path, features, *others)[0]


def load_screens(path: str | Path, features: Sequence[str], *others: Sequence[str]) -> list[Screen]:
    """The screens of the model at ``path`` (its ``"screens"``, none if absent), cheapest first: each a policy on the
    first features of the model's, and how many of the candidates it ranks best go on to the next (the last to the
    model). A candidate's longer features cost longer rollouts; the screens spend them on the few worth it."""
    return _read_model(path, features, *others)[1]


def _read_model(
    path: str | Path, features: Sequence[str], *others: Sequence[str]
) -> tuple[LinearPolicy | MlpPolicy, list[Screen]]:
    stat = Path(path).stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, tuple(features), *map(tuple, others))
    if key not in _LOADED:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        allowed = [tuple(f) for f in (features, *others)]
        if "value" in data:  # a value head of other features is refused as its policy would be
            ValueHead.from_json(data["value"], data["features"], path)
        _LOADED[key] = (_policy_from_data(data, path, allowed), _screens_from_data(data, path))
    return _LOADED[key]


def _policy_from_data(data: dict, path: str | Path, allowed: list[tuple[str, ...]]) -> LinearPolicy | MlpPolicy:
    if tuple(data.get("features", ())) not in allowed:
        raise ValueError(f"{path}: fitted on other features than today's {len(allowed[0])}: refit it")
    return MlpPolicy.from_json(data) if data.get("model") == MLP else LinearPolicy.from_json(data)


def _screens_from_data(data: dict, path: str | Path) -> list[Screen]:
    """A model file's screens, refused in one line unless each is a policy on fewer of the model's first features
    than the next (and than the model), keeping one candidate or more (whether the game's expert can describe a
    candidate by those features is its own check)."""
    screens: list[Screen] = []
    for i, screen in enumerate(data.get("screens", [])):
        if not isinstance(screen, dict) or not isinstance(screen.get("policy"), dict):
            raise ValueError(f"{path}: screen {i + 1} is not a policy with the candidates it keeps")
        keep = screen.get("keep")
        if not isinstance(keep, int) or isinstance(keep, bool) or keep < 1:
            raise ValueError(f"{path}: screen {i + 1} must keep a number of candidates (1 or more), not {keep!r}")
        policy = _policy_from_data(screen["policy"], path, [tuple(screen["policy"].get("features", ()))])
        longer = screens[-1][0].features if screens else ()
        if not len(longer) < len(policy.features) < len(data["features"]) or (
            tuple(data["features"][: len(policy.features)]) != policy.features
        ):
            raise ValueError(f"{path}: screen {i + 1} is not fitted on fewer of the model's first features than the "
                             "next")  # fmt: skip
        screens.append((policy, keep))
    return screens


def check_prior_search(budget: int, top: int) -> None:
    """The parameters every game's ``expert`` shares: the race's rollouts and how many of the policy's best it races."""
    if budget < 0:
        raise ValueError(f"budget must be 0 (the policy alone) or a number of rollouts, got {budget}")
    if top < 2:
        raise ValueError(f"top must be at least 2 candidates, got {top}")


class LinearPolicy:
    """A linear score per decision kind over a candidate's features (a kind without its own weights uses the
    shared ones, ``""``)."""

    def __init__(self, features: Sequence[str], weights: dict[str, list[float]], meta: dict | None = None) -> None:
        self.features = tuple(features)
        self.weights = weights
        self.meta = meta or {}
        for kind, w in weights.items():
            if len(w) != len(self.features):
                raise ValueError(f"kind {kind!r} has {len(w)} weights for {len(self.features)} features")

    @classmethod
    def from_json(cls, data: dict) -> LinearPolicy:
        weights = {kind: [float(x) for x in w] for kind, w in data["weights"].items()}
        return cls(data["features"], weights, {k: v for k, v in data.items() if k not in ("features", "weights")})

    @classmethod
    def load(cls, path: Path, features: Sequence[str], *others: Sequence[str]) -> LinearPolicy:
        """The model at ``path``, fitted on ``features`` or on one of the ``others`` feature lists."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if tuple(data["features"]) not in [tuple(f) for f in (features, *others)]:
            raise ValueError(f"{path}: fitted on other features than today's {len(features)}: refit it")
        return cls.from_json(data)

    @classmethod
    def cached(cls, path: str | Path, features: Sequence[str], *others: Sequence[str]) -> LinearPolicy:
        """:meth:`load`, read once per process and path (every player of a game shares the model)."""
        policy = load_model(path, features, *others)
        if not isinstance(policy, LinearPolicy):
            raise ValueError(f"{path}: not a linear model")
        return policy

    def to_json(self) -> dict:
        return {"features": list(self.features), "weights": self.weights, **self.meta}

    def scores(self, kind: str, rows: list[list[float]]) -> list[float]:
        w = self.weights.get(kind) or self.weights[""]
        return [sum(map(mul, w, row)) for row in rows]  # left to right from 0, as a loop would add them

    def best(self, kind: str, rows: list[list[float]]) -> int:
        """The index of the best-scored row (the first of equals)."""
        return best_index(self.scores(kind, rows))


def best_index(scores: list[float]) -> int:
    """The index of the highest score (the first of equals)."""
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best


class ValueHead:
    """The win share a seat can expect from a state: a logistic score over the after-state features of the move
    played (the policy's own candidate features), fitted on the same games (the seat's share of each game's win).
    Kept in the model file under ``"value"``; a strategy may read it (``value_head``), none has to."""

    def __init__(self, weights: Sequence[float], bias: float, meta: dict | None = None) -> None:
        self.weights = [float(w) for w in weights]
        self.bias = float(bias)
        self.meta = meta or {}

    @classmethod
    def from_json(cls, data: dict, features: Sequence[str], path: str | Path = "the model") -> ValueHead:
        """The head stored in a model file of ``features``, refused in one line where its weights do not fit them."""
        if list(data.get("features", [])) != list(features) or len(data.get("weights", [])) != len(features):
            raise ValueError(f"{path}: its value head is not fitted on the model's {len(features)} features: refit it")
        meta = {k: v for k, v in data.items() if k not in ("features", "weights", "bias")}
        return cls(data["weights"], data["bias"], meta)

    def to_json(self, features: Sequence[str]) -> dict:
        return {"features": list(features), "weights": self.weights, "bias": self.bias, **self.meta}

    def value(self, row: Sequence[float]) -> float:
        """The expected win share after the move ``row`` describes (0 to 1)."""
        z = self.bias + sum(map(mul, self.weights, row))
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def value_head(policy: LinearPolicy | MlpPolicy) -> ValueHead | None:
    """The value head a fitted policy's model file holds, or ``None``."""
    data = policy.meta.get("value")
    return None if data is None else ValueHead.from_json(data, policy.features)


@one_blas_thread
def fit_value(table: Any, features: Sequence[str], l2: float = 1e-3, seed: int = 1, holdout: float = 0.2) -> ValueHead:
    """A :class:`ValueHead` fitted on the played candidate of every decision of ``table`` (its ``win_share``
    column), on ``1 - holdout`` of the games (chosen from ``seed`` as :func:`fit` chooses); its held-out Brier score
    beside the constant's (the mean win share of the training games) in its ``meta``."""
    import numpy as np
    import polars as pl
    from scipy.optimize import minimize

    if "win_share" not in table.columns:
        raise ValueError("the table has no win_share column (recorded before the value head): generate it again")
    if "file" not in table.columns:
        table = table.with_columns(file=pl.lit(0))
    played = table.filter(pl.col("played")).sort("file", "game", "decision")
    games = sorted(set(zip(played["file"].to_list(), played["game"].to_list(), strict=True)))
    random.Random(seed).shuffle(games)
    held = set(games[: int(len(games) * holdout)])
    is_held = np.array([(f, g) in held for f, g in zip(played["file"].to_list(), played["game"].to_list(),
                                                       strict=True)], dtype=bool)  # fmt: skip
    x = np.array(played["features"].list.head(len(features)).to_list(), dtype=float)
    y = played["win_share"].to_numpy().astype(float)
    if not (~is_held).any():
        raise ValueError("no decisions to fit the value head on")
    xt, yt = x[~is_held], y[~is_held]
    mean, scale = xt.mean(axis=0), xt.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = (xt - mean) / scale
    n = len(yt)

    def loss(theta: Any) -> tuple[float, Any]:
        z = xs @ theta[1:] + theta[0]
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        value = -np.sum(yt * np.log(p + 1e-12) + (1 - yt) * np.log(1 - p + 1e-12)) / n
        value += l2 * np.sum(theta[1:] ** 2)
        grad = np.concatenate([[np.sum(p - yt) / n], xs.T @ (p - yt) / n + 2 * l2 * theta[1:]])
        return value, grad

    theta = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B", options={"maxiter": 2000}).x
    w = theta[1:] / scale  # the standardisation folded in
    head = ValueHead(w.tolist(), float(theta[0] - w @ mean))
    test = is_held
    predicted = np.array([head.value(row) for row in x[test].tolist()])
    brier = float(np.mean((predicted - y[test]) ** 2)) if test.any() else None
    constant = float(np.mean((yt.mean() - y[test]) ** 2)) if test.any() else None
    held_out = {"decisions": int(test.sum()), "brier": brier, "constant_brier": constant}
    head.meta = {"target": "win_share", "l2": l2, "seed": seed, "decisions": int(len(y)), "held_out": held_out}
    return head


# ---------------------------------------------------------------------------------------------- the training table


class Recorder:
    """A seat of teacher self-play: the teacher decides; where the student would decide, each candidate's features
    and the teacher's analysis of it are appended to ``rows``."""

    def __init__(
        self, teacher: Any, student: Any, rows: list[dict], game: int, rng: random.Random, play: str = "teacher"
    ) -> None:
        self.teacher, self.student, self.rows, self.game, self.rng = teacher, student, rows, game, rng
        self.play = play  # who plays the recorded decisions: the teacher, or the student (DAgger: its own positions)
        self.name = getattr(teacher, "name", "teacher")

    def choose(self, view: Any, decision: Any) -> object:
        described = self.student.featurize(view, decision, random.Random(self.rng.getrandbits(64)))
        if described is None:
            return self.teacher.choose(view, decision)
        choices, features = described
        analysis = {choice_key(c.choice): c for c in self.teacher.analyse(view, decision)}
        played = next((c.choice for c in analysis.values() if c.played), None)
        decision_id = self.rows[-1]["decision"] + 1 if self.rows else 0  # unique in the table
        for i, (choice, row) in enumerate(zip(choices, features, strict=True)):
            seen = analysis.get(choice_key(choice))
            self.rows.append({
                "game": self.game, "decision": decision_id, "seat": decision.seat, "round": int(view.round),
                "kind": decision.kind, "candidate": i, "features": row,
                "visits": seen.visits if seen else 0,
                "value": seen.value if seen and seen.visits else float("nan"),
                "played": bool(seen.played) if seen else False,
            })  # fmt: skip
        return self.student.choose(view, decision) if self.play == "student" else played


def generate(
    game_name: str, teacher: str, student: Callable[[], Any], games: int, seed: int, players: int = 2,
    progress: Callable[[int, list[dict]], None] | None = None, play: str = "teacher",
) -> list[dict]:  # fmt: skip
    """Self-play of ``games`` games from ``seed``, by the teacher (or with ``play="student"`` by the student, the
    teacher's analysis still recorded: the positions the student reaches); the training rows (``COLUMNS``).
    ``progress(games, rows)`` after every game (to report, or to write what there is so far)."""
    if play not in ("teacher", "student"):
        raise ValueError(f"play must be teacher or student, not {play!r}")
    game = get_game(game_name)
    context = game.context({"players": players})
    rng = random.Random(seed)
    rows: list[dict] = []
    pupil = student()
    for g in range(games):
        seats = [Recorder(load_strategy(teacher, game), pupil, rows, g, rng, play) for _ in range(players)]
        first = len(rows)
        result = game.play(context, rng.getrandbits(63), seats)
        for row in rows[first:]:  # the value head's target: the seat's share of the win (a tie shares it)
            row["win_share"] = win_share(result.winners, row["seat"])
        if progress is not None:
            progress(g + 1, rows)
    return rows


def win_share(winners: Sequence[int], seat: int) -> float:
    """A seat's share of a game's win: 1 alone, 1/k among k tied winners, else 0."""
    return 1.0 / len(winners) if seat in winners else 0.0


def write_table(rows: list[dict], path: Path) -> None:
    import polars as pl

    pl.DataFrame(rows, schema_overrides={"features": pl.List(pl.Float64)}).write_parquet(path)


# ---------------------------------------------------------------------------------------------- the fit


def _targets(table: Any, target: str, temperature: float) -> Any:
    """Per candidate row, the probability the policy should give it (each decision's rows sum to 1)."""
    import numpy as np

    if target == "played":
        return table["played"].to_numpy().astype(float)
    dec = table["uid"].to_numpy()
    if target == "visits":
        visits = table["visits"].to_numpy().astype(float)
        starts = np.flatnonzero(np.r_[True, dec[1:] != dec[:-1]])
        seg = np.cumsum(np.r_[True, dec[1:] != dec[:-1]]) - 1
        return visits / np.maximum(1.0, np.add.reduceat(visits, starts))[seg]
    value = np.nan_to_num(table["value"].to_numpy(), nan=-1.0)
    out = np.zeros(len(value))
    starts = np.flatnonzero(np.r_[True, dec[1:] != dec[:-1]])
    for a, b in zip(starts, [*starts[1:], len(dec)], strict=True):
        v = value[a:b]
        seen = v > -0.5
        z = np.where(seen, v / temperature, -np.inf)
        z = np.exp(z - z[seen].max())
        out[a:b] = z / z.sum()
    return out


@one_blas_thread
def fit(
    table: Any, features: Sequence[str], target: str = "played", l2: float = 1e-3, temperature: float = 0.02,
    seed: int = 1, holdout: float = 0.2, by_kind: bool = True, student: str = "linear", hidden: int = 32,
) -> tuple[LinearPolicy | MlpPolicy, dict]:  # fmt: skip
    """A conditional logit (or with ``student="mlp"`` a network of ``hidden`` tanh units, stopped early on 15% of the
    training games) fitted on the decisions of ``1 - holdout`` of the games (chosen from ``seed``); the policy and its
    held-out figures (per kind: decisions, log-loss, agreement with the teacher's choice, the base choice's agreement
    for comparison, and how often the teacher's choice is among the policy's best 2 and 3)."""
    import numpy as np
    import polars as pl
    from scipy.optimize import minimize

    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    if student not in STUDENTS:
        raise ValueError(f"student must be one of {', '.join(STUDENTS)}, not {student!r}")
    table = table.with_columns(uid=pl.struct("file", "game", "decision").rank("dense") if "file" in table.columns
                               else pl.struct("game", "decision").rank("dense")).sort("uid", "candidate")  # fmt: skip
    # decisions the teacher played a listed candidate at
    ok = table.group_by("uid").agg(pl.col("played").sum().alias("n"))
    table = table.join(ok.filter(pl.col("n") == 1).select("uid"), on="uid").sort("uid", "candidate")
    games = sorted(set(zip(table["file"].to_list() if "file" in table.columns else [0] * len(table),
                           table["game"].to_list(), strict=True)))  # fmt: skip
    rng = random.Random(seed)
    rng.shuffle(games)
    held = set(games[: int(len(games) * holdout)])
    file_col = table["file"].to_list() if "file" in table.columns else [0] * len(table)
    is_held = np.array([(f, g) in held for f, g in zip(file_col, table["game"].to_list(), strict=True)])
    x_all = np.array(table["features"].to_list(), dtype=float)
    if x_all.ndim != 2 or x_all.shape[1] != len(features):  # a model would be read with other features than fitted
        raise ValueError(f"the table's rows hold {x_all.shape[-1]} features, not the {len(features)} named (a subset: "
                         "cut the rows to their first features)")  # fmt: skip
    q_all = _targets(table, target, temperature)
    kinds = table["kind"].to_numpy()
    uid = table["uid"].to_numpy()
    played = table["played"].to_numpy()
    game_id = np.array(file_col) * 1_000_000 + table["game"].to_numpy()
    weights: dict[str, list[float]] = {}
    nets: dict[str, dict[str, Any]] = {}
    report: dict[str, dict] = {}
    groups = sorted(set(kinds.tolist())) if by_kind else [""]
    for kind in groups:
        mask = (kinds == kind) if kind else np.ones(len(kinds), bool)
        train, test = mask & ~is_held, mask & is_held
        if student == MLP:
            net, how = fit_mlp(x_all[train], q_all[train], uid[train], game_id[train], hidden, l2, seed)
            nets[kind] = net
            scores = MlpPolicy(features, {"": net}).scores("", x_all[test].tolist())
            report[kind or "all"] = {**_evaluate(np.array(scores), played[test], uid[test], q_all[test]), **how}
            continue
        w = _fit_logit(x_all[train], q_all[train], uid[train], l2, minimize)
        weights[kind] = [float(v) for v in w]
        report[kind or "all"] = _evaluate(x_all[test] @ w, played[test], uid[test], q_all[test])
    largest = max(groups, key=lambda k: int((kinds == k).sum()))
    meta = {"target": target, "l2": l2, "temperature": temperature, "seed": seed, "held_out": report,
            "decisions": int(len(set(uid.tolist()))), "candidates": int(len(uid))}  # fmt: skip
    if student == MLP:
        if by_kind:
            nets[""] = nets[largest]
        return MlpPolicy(features, nets, {**meta, "hidden": hidden}), report
    if by_kind:
        weights[""] = weights[largest]
    return LinearPolicy(features, weights, meta), report


def fit_screens(
    table: Any, screens: Sequence[tuple[Sequence[str], int]], features: Sequence[str], target: str = "played",
    l2: float = 1e-3, seed: int = 1, student: str = "linear", hidden: int = 32,
) -> list[dict]:  # fmt: skip
    """A model file's ``"screens"`` for a policy on ``features``: for each (features, keep) of ``screens`` (a game's
    expert's ``screen_sets``, cheapest first) on fewer features than the policy, a policy fitted as :func:`fit` fits
    the model, on the first features of the table's rows (the same decisions, the same held-out games), with how
    many of its best candidates it keeps."""
    import polars as pl

    out = []
    for features, keep in [(f, keep) for f, keep in screens if len(f) < len(features)]:
        cut = table.with_columns(pl.col("features").list.head(len(features)))
        policy, _ = fit(cut, features, target, l2, seed=seed, student=student, hidden=hidden)
        out.append({"keep": int(keep), "policy": policy.to_json()})
    return out


def _segments(uid: Any) -> tuple[Any, Any]:
    import numpy as np

    starts = np.flatnonzero(np.r_[True, uid[1:] != uid[:-1]])
    seg = np.cumsum(np.r_[True, uid[1:] != uid[:-1]]) - 1
    return starts, seg


def _softmax(z: Any, uid: Any) -> Any:
    import numpy as np

    starts, seg = _segments(uid)
    zmax = np.maximum.reduceat(z, starts)[seg]
    e = np.exp(z - zmax)
    return e / np.add.reduceat(e, starts)[seg]


def _fit_logit(x: Any, q: Any, uid: Any, l2: float, minimize: Any) -> Any:
    import numpy as np

    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = x / scale
    n_dec = max(1, len(_segments(uid)[0]))

    def loss(w: Any) -> tuple[float, Any]:
        p = _softmax(xs @ w, uid)
        value = -np.sum(q * np.log(p + 1e-12)) / n_dec + l2 * np.sum(w * w)
        grad = xs.T @ (p - q) / n_dec + 2 * l2 * w
        return value, grad

    w = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 2000}).x
    return w / scale


def _evaluate(z: Any, played: Any, uid: Any, q: Any) -> dict:
    """Held-out figures of the scores ``z`` (one per candidate row) against the teacher's choice, and the
    cross-entropy to the fit's own target ``q`` (``target_loss``)."""
    import numpy as np

    if len(uid) == 0:
        return {"decisions": 0}
    p = _softmax(z, uid)
    starts, _ = _segments(uid)
    ends = [*starts[1:], len(uid)]
    hits = base_hits = top2 = top3 = 0
    for a, b in zip(starts, ends, strict=True):
        order = sorted(range(b - a), key=lambda i: (-z[a + i], i))  # as expert ranks them: the first of equals
        chosen = int(np.argmax(played[a:b]))
        hits += int(order[0] == chosen)
        top2 += int(chosen in order[:2])
        top3 += int(chosen in order[:3])
        base_hits += int(played[a])
    n = len(starts)
    return {"decisions": n, "log_loss": float(-np.sum(played * np.log(p + 1e-12)) / n),
            "target_loss": float(-np.sum(q * np.log(p + 1e-12)) / n),
            "agreement": hits / n, "base_agreement": base_hits / n, "top2": top2 / n, "top3": top3 / n}  # fmt: skip


# ---------------------------------------------------------------------------------------------- the command line


def train_main(
    argv: list[str] | None, prog: str, game: str, teacher: str, student: Callable[[], Any], features: Sequence[str],
    model: Path, players: int = 2, subsets: dict[str, tuple[Sequence[str], str]] | None = None,
) -> int:  # fmt: skip
    """A game's training command (``generate`` and ``fit``, see the game's ``expert_train``): ``teacher`` and
    ``players`` are the defaults of ``generate``, ``model`` the file ``fit --write`` stores the policy in.
    ``subsets``: ``fit`` flags (name -> (features, help)) that fit on the first features of every row only."""
    import argparse
    import sys
    import time

    parser = argparse.ArgumentParser(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="teacher self-play into a Parquet table of candidates")
    gen.add_argument("--games", type=int, default=100)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--players", type=int, default=players)
    gen.add_argument("--teacher", default=teacher)
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--play", choices=("teacher", "student"), default="teacher",
                     help="who plays: the teacher, or the student (the teacher's analysis recorded)")  # fmt: skip
    fitp = sub.add_parser("fit", help="fit the policy on one or more tables")
    fitp.add_argument("tables", nargs="+", type=Path)
    fitp.add_argument("--seed", type=int, default=1)
    fitp.add_argument("--target", choices=TARGETS, default="played")
    fitp.add_argument("--l2", type=float, default=1e-3)
    fitp.add_argument("--temperature", type=float, default=0.02)
    fitp.add_argument("--student", choices=STUDENTS, default="linear", help="a linear policy or a small network")
    fitp.add_argument("--hidden", type=int, default=32, help="the network's tanh units (--student mlp)")
    for flag, (_, text) in (subsets or {}).items():
        fitp.add_argument(f"--{flag}", action="store_true", help=text)
    fitp.add_argument("--write", action="store_true", help="store the model at --model (default: beside its strategy)")
    fitp.add_argument("--model", type=Path, default=model)
    args = parser.parse_args(argv)
    if args.command == "generate":
        start = time.process_time()
        args.out.parent.mkdir(parents=True, exist_ok=True)

        def progress(games: int, rows: list[dict]) -> None:
            if games % 10 == 0:  # the table so far: a long generation can be stopped and still used
                write_table(rows, args.out)
                print(f"{games} games, {time.process_time() - start:.0f} CPU-s", file=sys.stderr, flush=True)

        rows = generate(game, args.teacher, student, args.games, args.seed, args.players, progress, args.play)
        write_table(rows, args.out)
        print(f"{args.out}: {len(rows)} candidates, {args.games} games, {time.process_time() - start:.0f} CPU-s")
        return 0
    import polars as pl

    frames = []
    for i, path in enumerate(args.tables):
        if not path.is_file():
            print(f"error: no table at {path}", file=sys.stderr)
            return 1
        frames.append(pl.read_parquet(path).with_columns(file=pl.lit(i)))
    table = pl.concat(frames)
    chosen = [flag for flag in subsets or {} if getattr(args, flag.replace("-", "_"))]
    if chosen:  # the subset's features are the first of every row
        features = (subsets or {})[chosen[-1]][0]
        table = table.with_columns(pl.col("features").list.head(len(features)))
    policy, report = fit(table, features, args.target, args.l2, args.temperature, args.seed,
                         student=args.student, hidden=args.hidden)  # fmt: skip
    policy.meta["command"] = f"python -m {prog.removeprefix('python -m ')} fit " + " ".join(
        [*(p.name for p in args.tables), f"--seed {args.seed}", f"--target {args.target}", f"--l2 {args.l2}",
         f"--temperature {args.temperature}", *(f"--{flag}" for flag in chosen),
         *((f"--student {args.student}", f"--hidden {args.hidden}") if args.student != "linear" else ())])  # fmt: skip
    screen_sets = getattr(student(), "screen_sets", ())  # an instance's: a compiled class keeps them there
    screens = fit_screens(table, screen_sets, features, args.target, args.l2, args.seed, args.student, args.hidden)
    if screens:
        policy.meta["screens"] = screens
    policy.meta["games"] = int(table.select(pl.struct("file", "game").n_unique()).item())
    print(json.dumps(report, indent=1))
    if args.write:
        args.model.write_text(json.dumps(policy.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.model}")
    return 0
