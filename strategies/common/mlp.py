"""A small non-linear student: one hidden layer of tanh units scoring each candidate, a softmax over a decision's
candidates, one network per decision kind.

- :class:`MlpPolicy` is the fitted model, evaluated with numpy, a few array operations per decision (a forward pass
  in plain Python lists cost about 40 ms a game, half of what the policy alone costs). Its floats are the same on
  every machine. The hidden layer is one matrix product computed exactly: each feature is rounded to a multiple of
  2**-20 and each weight to an integer multiple of its network's own power of two, small enough that every product
  and every partial sum is an integer below 2**53, so a BLAS kernel's order of additions, or a fused multiply-add,
  cannot change a bit (a row outside that range takes the same rounded values through numpy's elementwise products
  and pairwise sums along a row). The rest is elementwise IEEE operations (each correctly rounded, one ufunc at a
  time, so none fuses into a multiply-add) and pairwise sums, and no numpy ``tanh`` or ``exp`` (their SIMD versions
  differ by CPU); ``tanh`` is built from those operations, and a unit's is read from a table of it, interpolated
  linearly (within 1e-7). Before the rounding, a product's kernel decided its
  bits: with OpenBLAS' Prescott kernel instead of Haswell's, 2 of 600 games of an `expert` arm went otherwise. The
  compiled build compiles none of this module. It has
  :class:`~strategies.common.distill.LinearPolicy`'s interface (``features``, ``meta``, ``scores``, ``best``,
  ``to_json``), so a student plays either.
- :func:`fit_mlp` fits one network to a decision kind's candidates (features standardised, the standardisation folded
  into the first layer's weights of the stored model), the cross-entropy to each decision's target distribution plus
  an L2 penalty, by scipy's L-BFGS from a seeded random start, stopped early on a validation part of the training
  games (the iterate with the lowest validation loss is kept).

A candidate's score is ``sum_j out[j] * tanh(bias[j] + sum_i hidden[j][i] * x[i])``, with ``x`` and ``hidden``
rounded as above and ``tanh`` interpolated: on today's models a score moves by 1e-4 at most (the weights of a
feature of small range are large). In self-play the shipped model's candidates kept their order in every scoring
(10,199 of them, 2 to 4 players), the iteration-3 candidate's changed twice in 29,546 and the best never
(``benchmarks/scorer_rounding.py``, docs/notes/2026-12-02-exact-scorer.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from palais_sim.core.portable_math import INV_LN2, LN2_HI, LN2_LO, PADE1, PADE2, PADE3, PADE4, PADE5, PADE6

KIND = "mlp"  # the model file's "model" entry


class MlpPolicy:
    """One tanh network per decision kind (a kind without its own uses the shared one, ``""``)."""

    def __init__(self, features: Sequence[str], nets: dict[str, dict[str, Any]], meta: dict | None = None) -> None:
        self.features = tuple(features)
        self.meta = meta or {}
        self.nets: dict[str, tuple[list[list[float]], list[float], list[float]]] = {}
        for kind, net in nets.items():
            hidden = [[float(x) for x in row] for row in net["hidden"]]
            bias = [float(x) for x in net["bias"]]
            out = [float(x) for x in net["out"]]
            if any(len(row) != len(self.features) for row in hidden) or not len(hidden) == len(bias) == len(out):
                raise ValueError(f"kind {kind!r}: the network's shapes do not fit {len(self.features)} features")
            self.nets[kind] = (hidden, bias, out)
        self._arrays = {kind: ExactLayer(h, b, o) for kind, (h, b, o) in self.nets.items()}

    @classmethod
    def from_json(cls, data: dict) -> MlpPolicy:
        nets = data["nets"]
        return cls(data["features"], nets, {k: v for k, v in data.items() if k not in ("features", "nets")})

    @classmethod
    def load(cls, path: Path) -> MlpPolicy:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def to_json(self) -> dict:
        nets = {kind: {"hidden": h, "bias": b, "out": o} for kind, (h, b, o) in self.nets.items()}
        return {"model": KIND, "features": list(self.features), "nets": nets, **self.meta}

    def scores(self, kind: str, rows: list[list[float]]) -> list[float]:
        if not rows:
            return []
        layer = self._arrays.get(kind) or self._arrays[""]
        return layer.scores(np.array(rows, dtype=float))

    def best(self, kind: str, rows: list[list[float]]) -> int:
        """The index of the best-scored row (the first of equals)."""
        scores = self.scores(kind, rows)
        best = 0
        for i in range(1, len(scores)):
            if scores[i] > scores[best]:
                best = i
        return best


# ------------------------------------------------------------------------ the hidden layer's exact product

FEATURE_BITS = 20  # a feature's resolution, 2**-20 (a millionth): the features are counts and a few ratios
PRODUCT_BITS = 53  # a double holds every integer below 2**53 exactly
WEIGHT_BITS = 26  # the largest sum of a unit's |weights| is rounded to about 2**26 units of its resolution


class ExactLayer:
    """One network's arrays for scoring: the hidden weights rounded to integer multiples of ``2**-shift`` (``shift``
    such that a unit's sum of |weights| is at most about ``2**WEIGHT_BITS`` of them), so that the product with
    features rounded to multiples of ``2**-FEATURE_BITS`` is a sum of integers, exact below ``2**PRODUCT_BITS``."""

    def __init__(self, hidden: list[list[float]], bias: list[float], out: list[float]) -> None:
        weights = np.array(hidden, dtype=float)
        largest = float(np.abs(weights).sum(axis=1).max()) if weights.size else 0.0
        self.shift = WEIGHT_BITS - math.frexp(largest)[1] if largest > 0.0 else 0
        self.units = np.rint(np.ldexp(weights, self.shift))  # integers, a row per unit
        self.columns = np.ascontiguousarray(self.units.T)  # features x units, for the product
        self.unit_sum = float(np.abs(self.units).sum(axis=1).max()) if weights.size else 0.0
        self.bias = np.array(bias, dtype=float)
        self.out = np.array(out, dtype=float)
        # a row of features whose largest |rounded value| stays below this keeps every partial sum below 2**53
        self.exact_below = math.ldexp(1.0, PRODUCT_BITS) / max(self.unit_sum, 1.0)

    def hidden_sums(self, x: np.ndarray) -> np.ndarray:
        """``sum_i hidden[j][i] * x[i]`` for each row of ``x`` and unit ``j``, the same bits on every machine."""
        rounded = np.rint(x * float(1 << FEATURE_BITS))
        if rounded.size and float(np.abs(rounded).max()) >= self.exact_below:
            # beyond the exact range (no feature of today's models comes near): numpy's own sums along a row
            products = (rounded[:, None, :] * self.units[None, :, :]).sum(axis=2)
        else:
            products = rounded @ self.columns  # integers below 2**53: any kernel's order of additions is exact
        return np.ldexp(products, -(self.shift + FEATURE_BITS))

    def scores(self, x: np.ndarray) -> list[float]:
        units = self.hidden_sums(x)
        units += self.bias
        scores: list[float] = (interpolated_tanh(units) * self.out).sum(axis=1).tolist()
        return scores


# ------------------------------------------------------------------------ tanh from IEEE operations alone

TWO_OVER_LN2 = 2.0 * INV_LN2
SATURATED = 20.0  # tanh(20) = 1 - 8e-18: 1.0 in a double


def tanh(z: np.ndarray) -> np.ndarray:
    """tanh with the same bits on every machine (within 3e-16 of the exact value), from elementwise IEEE operations
    alone: exp(-2a) = 2**-k * exp(r) with r = k ln 2 - 2a in [-ln2/2, ln2/2] (Cody and Waite's reduction), exp(r) by
    its (6, 6) Padé approximant N(r) / N(-r) (error below 1e-18 there), so tanh(a) = (2**k N(-r) - N(r)) /
    (2**k N(-r) + N(r))."""
    a = np.minimum(np.abs(z), SATURATED)
    k = np.rint(a * TWO_OVER_LN2)
    r = (k * LN2_HI - (a + a)) + k * LN2_LO
    r2 = r * r
    even = ((r2 * PADE6 + PADE4) * r2 + PADE2) * r2 + 1.0
    odd = r * ((r2 * PADE5 + PADE3) * r2 + PADE1)
    scaled = np.ldexp(even - odd, k.astype(np.int64))  # 2**k N(-r)
    plus = even + odd  # N(r)
    return np.copysign((scaled - plus) / (scaled + plus), z)


TANH_STEPS = 1024  # table points per unit of |z|: linear interpolation between them is within 1e-7 of tanh
TANH_END = 16.0  # tanh(16) = 1 - 2.5e-14: the table's last point, and the value of every |z| beyond it
_TANH_TABLE = tanh(np.arange(int(TANH_END * TANH_STEPS) + 2) / TANH_STEPS)
_TANH_SLOPES = np.append(np.diff(_TANH_TABLE), 0.0)


def interpolated_tanh(z: np.ndarray) -> np.ndarray:
    """tanh within 1e-7 (a step of 2**-10 between table points: h**2 / 8 * max|tanh''| = 9.2e-8), in 10 array
    operations instead of ``tanh``'s 25 (a network's scores are a few dozen microseconds of array operations, each
    with its fixed cost); the same bits on every machine, from the table of ``tanh`` and elementwise operations."""
    t = np.abs(z)
    t *= float(TANH_STEPS)
    np.minimum(t, TANH_END * TANH_STEPS, out=t)
    index = t.astype(np.intp)  # the point below (t >= 0: truncation is the floor)
    t -= index  # the fraction of the step past it, exact
    t *= _TANH_SLOPES.take(index)
    t += _TANH_TABLE.take(index)
    return np.copysign(t, z, out=t)


# ---------------------------------------------------------------------------------------------- the fit


def _segments(uid: Any) -> tuple[Any, Any]:
    change = np.r_[True, uid[1:] != uid[:-1]]
    return np.flatnonzero(change), np.cumsum(change) - 1


def _softmax(z: Any, starts: Any, seg: Any) -> Any:
    e = np.exp(z - np.maximum.reduceat(z, starts)[seg])
    return e / np.add.reduceat(e, starts)[seg]


def fit_mlp(
    x: Any, q: Any, uid: Any, game: Any, hidden: int = 32, l2: float = 1e-3, seed: int = 1, valid: float = 0.15,
    maxiter: int = 300,
) -> tuple[dict[str, Any], dict[str, float]]:  # fmt: skip
    """A network for rows ``x`` (one per candidate, sorted by decision ``uid``) and targets ``q`` (each decision's
    sum to 1), fitted on the decisions of ``1 - valid`` of the ``game`` ids and stopped early on the rest; the network
    (``hidden``, ``bias``, ``out`` as lists, the standardisation folded in) and its fit figures."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    ids = np.unique(game)
    rng.shuffle(ids)
    held = np.isin(game, ids[: max(1, int(len(ids) * valid))]) if len(ids) > 1 else np.zeros(len(game), bool)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = (x - mean) / scale
    d = x.shape[1]
    parts = {}
    for name, mask in (("train", ~held), ("valid", held)):
        starts, seg = _segments(uid[mask])
        parts[name] = (xs[mask], q[mask], starts, seg, max(1, len(starts)))

    def unpack(theta: Any) -> tuple[Any, Any, Any]:
        w1 = theta[: hidden * d].reshape(hidden, d)
        return w1, theta[hidden * d : hidden * d + hidden], theta[hidden * d + hidden :]

    def loss(theta: Any, part: str = "train", grad: bool = True) -> Any:
        xp, qp, starts, seg, n = parts[part]
        w1, b1, w2 = unpack(theta)
        h = np.tanh(xp @ w1.T + b1)
        p = _softmax(h @ w2, starts, seg)
        value = -np.sum(qp * np.log(p + 1e-12)) / n
        if not grad:
            return value
        value += l2 * (np.sum(w1 * w1) + np.sum(w2 * w2))
        ds = (p - qp) / n
        gw2 = h.T @ ds + 2 * l2 * w2
        dz = np.outer(ds, w2) * (1.0 - h * h)
        gw1 = dz.T @ xp + 2 * l2 * w1
        return value, np.concatenate([gw1.ravel(), dz.sum(axis=0), gw2])

    theta0 = np.concatenate([rng.normal(0.0, 1.0 / math.sqrt(d), hidden * d), np.zeros(hidden),
                             rng.normal(0.0, 1.0 / math.sqrt(hidden), hidden)])  # fmt: skip
    best: dict[str, Any] = {"loss": math.inf, "theta": theta0, "iteration": 0}
    count = [0]

    def watch(theta: Any) -> None:
        count[0] += 1
        if held.any() and count[0] % 5 == 0:
            v = loss(theta, "valid", grad=False)
            if v < best["loss"]:
                best.update(loss=v, theta=theta.copy(), iteration=count[0])

    result = minimize(loss, theta0, jac=True, method="L-BFGS-B", callback=watch, options={"maxiter": maxiter})
    if not held.any() or loss(result.x, "valid", grad=False) <= best["loss"]:
        best.update(loss=loss(result.x, "valid", grad=False) if held.any() else math.nan, theta=result.x,
                    iteration=count[0])  # fmt: skip
    w1, b1, w2 = unpack(best["theta"])
    # fold the standardisation in: w1 . (x - mean) / scale + b1 = (w1 / scale) . x + (b1 - (w1 / scale) . mean)
    w1s = w1 / scale
    net = {"hidden": w1s.tolist(), "bias": (b1 - w1s @ mean).tolist(), "out": w2.tolist()}
    return net, {"valid_loss": float(best["loss"]), "iteration": int(best["iteration"]), "iterations": count[0]}
