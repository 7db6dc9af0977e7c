"""The non-linear student (``strategies/common/mlp.py``): its forward pass, a fit that reproduces from a fixed seed,
a model file ``expert`` plays, identical games pure and compiled; and ``ismcts``' prior option."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from palais_sim import _build
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy
from strategies.common.distill import fit, generate, write_table
from strategies.common.mlp import FEATURE_BITS, ExactLayer, MlpPolicy, fit_mlp, interpolated_tanh, tanh
from strategies.palais_royal import expert_train
from strategies.palais_royal.expert import MODEL, ExpertStrategy, load_policy
from strategies.palais_royal.expert_features import LONG_FEATURES
from strategies.palais_royal.ismcts import IsmctsStrategy

ROOT = Path(__file__).resolve().parents[2]
COMPONENTS = standard_components()


def test_a_network_scores_each_candidate_through_its_tanh_units() -> None:
    net = {"hidden": [[1.0, 0.0], [0.5, -1.0]], "bias": [0.0, 0.25], "out": [2.0, -1.0]}
    policy = MlpPolicy(("a", "b"), {"": net, "move": {"hidden": [[1.0, 1.0]], "bias": [0.0], "out": [1.0]}})
    row = [0.3, 0.8]
    expected = 2.0 * math.tanh(0.3) - 1.0 * math.tanh(0.25 + 0.15 - 0.8)
    # features rounded to multiples of 2**-20 before the product: a millionth of a score at most
    assert policy.scores("recruit", [row]) == pytest.approx([expected], abs=1e-6)
    assert policy.best("recruit", [[0.0, 0.0], row]) == 1
    assert policy.scores("move", [row]) == pytest.approx([math.tanh(1.1)], abs=1e-6)
    exact = [0.25, 0.75]  # multiples of 2**-20, weights of the network's resolution: no rounding at all
    assert policy.scores("move", [exact]) == pytest.approx([math.tanh(1.0)], abs=1e-15)
    assert MlpPolicy.from_json(json.loads(json.dumps(policy.to_json()))).nets == policy.nets
    with pytest.raises(ValueError, match="shapes"):
        MlpPolicy(("a",), {"": net})


@pytest.mark.parametrize("scale", [1.0, 50.0, 1e4])
def test_the_hidden_layers_product_is_the_exact_sum_of_its_rounded_terms(scale: float) -> None:
    """Each hidden unit's sum is the exact sum of the rounded features times the rounded weights (Python's integers
    as the reference), scaled by a power of two: no order of additions could change it. Rows beyond the exact range
    (``1e4``) take numpy's sums along a row instead, within a rounding of the exact value."""
    rng = np.random.default_rng(int(scale))
    weights = (rng.normal(size=(32, 75)) * rng.choice([0.01, 1.0, 30.0], size=75)).tolist()
    layer = ExactLayer(weights, [0.0] * 32, [1.0] * 32)
    x = np.clip(rng.normal(size=(9, 75)) * scale * rng.choice([0.1, 1.0, 2.0], size=75), -127.0, 127.0)
    if scale > 100:
        x[4, 7] = 1e4  # one feature far beyond any of today's
    got = layer.hidden_sums(x)
    rounded = [[int(v) for v in np.rint(x[i] * 2.0**FEATURE_BITS)] for i in range(len(x))]
    units = [[int(w) for w in row] for row in layer.units]
    exact = np.array([[math.ldexp(sum(a * b for a, b in zip(row, unit, strict=True)), -(layer.shift + FEATURE_BITS))
                       for unit in units] for row in rounded])  # fmt: skip
    beyond = float(np.abs(np.rint(x * 2.0**FEATURE_BITS)).max()) >= layer.exact_below
    assert beyond == (scale > 100)
    if beyond:
        assert np.allclose(got, exact, rtol=1e-12, atol=1e-9)
    else:
        assert np.array_equal(got, exact)
    # and the rounding is what it says: half a feature's step times the weights, half a weight's step times the
    # features (a few millionths of a score on today's features)
    w = np.array(weights)
    bound = 2.0 ** -(FEATURE_BITS + 1) * np.abs(w).sum(axis=1) + 2.0 ** -(layer.shift + 1) * np.abs(x).sum(axis=1)[
        :, None] * (1 + 2.0 ** -(FEATURE_BITS + 1))  # fmt: skip
    assert np.all(np.abs(got - x @ w.T) <= bound + 1e-9 * np.abs(x @ w.T))


def test_tanh_from_ieee_operations_is_tanh() -> None:
    z = np.concatenate([np.linspace(-25.0, 25.0, 100_001), [0.0, -0.0, 1e-300, -1e-9, 19.99, 20.0, 40.0, np.inf]])
    got = tanh(z)
    assert np.max(np.abs(got - np.array([math.tanh(v) for v in z]))) <= 4e-16
    assert np.array_equal(tanh(-z), -got)  # odd, bit for bit
    assert got[-1] == 1.0 and got[-2] == 1.0 and np.signbit(tanh(np.array([-0.0])))[0]


def test_the_interpolated_tanh_a_network_scores_with_is_within_a_ten_millionth_of_tanh() -> None:
    z = np.concatenate([np.linspace(-25.0, 25.0, 200_001), [0.0, 1e-300, 15.9999, 16.0, 16.001, 1e6, np.inf]])
    got = interpolated_tanh(z)
    assert np.max(np.abs(got - np.array([math.tanh(v) for v in z]))) <= 1e-7
    assert np.array_equal(interpolated_tanh(-z), -got)  # odd, bit for bit
    assert np.all(
        np.diff(interpolated_tanh(np.sort(z))) >= 0
    )  # never turns back, so no unit's order of two inputs reverses
    assert np.signbit(interpolated_tanh(np.array([-0.0])))[0] and got[-1] == got[-2] == got[-4]


# The shipped model's scores on rows at the features' scales, hashed bit for bit, in a fresh interpreter.
SCORE_BITS = """
import hashlib, numpy as np
from strategies.palais_royal.expert import load_policy
policy, rng, digest = load_policy(), np.random.default_rng(1), hashlib.sha256()
for _ in range(400):
    scale = rng.choice([0.1, 1.0, 5.0], size=len(policy.features))
    rows = (rng.normal(size=(int(rng.integers(1, 12)), len(policy.features))) * scale).tolist()
    for kind in policy.nets:
        digest.update(np.array(policy.scores(kind, rows)).tobytes())
print(digest.hexdigest())
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86 kernels and CPU features")
def test_the_networks_scores_are_the_same_bits_whatever_kernel_the_machine_picks() -> None:
    """A matrix product's BLAS kernel and numpy's SIMD loops are chosen by the CPU, each with its own order of
    additions: through them an `expert` arm played 2 games of 600 otherwise under OpenBLAS' Prescott kernel than
    under Haswell's, so the standard reports' expert rows could not be replayed on another machine. Here each
    setting stands for another machine."""
    machines = [{}, {"OPENBLAS_CORETYPE": "Prescott"}, {"OPENBLAS_CORETYPE": "Sandybridge"},
                {"NPY_DISABLE_CPU_FEATURES": "AVX2 FMA3 AVX SSE42 SSE41 POPCNT SSSE3"}]  # fmt: skip
    digests = set()
    for extra in machines:
        env = {**os.environ, **extra, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", SCORE_BITS], env=env, capture_output=True, text=True)
        if done.returncode and "CPU feature" in done.stderr:
            continue  # numpy refuses to disable a feature this CPU lacks or builds in: that setting is this machine
        assert done.returncode == 0, done.stderr[-2000:]
        digests.add(done.stdout.strip())
    assert len(digests) == 1, f"the scores' bits differ between machines: {len(digests)} versions"


def test_a_fit_learns_a_non_linear_choice_and_reproduces_from_its_seed() -> None:
    """Decisions of 4 candidates where the teacher picks the one whose feature is nearest 0: no linear score can
    rank that, a network can."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4 * 600, 2))
    uid = np.repeat(np.arange(600), 4)
    q = np.zeros(len(x))
    for d in range(600):
        q[4 * d + int(np.argmin(np.abs(x[4 * d : 4 * d + 4, 0])))] = 1.0
    game = uid // 10
    net, how = fit_mlp(x, q, uid, game, hidden=8, l2=1e-4, seed=3)
    again, _ = fit_mlp(x, q, uid, game, hidden=8, l2=1e-4, seed=3)
    assert net == again and how["iteration"] > 0
    policy = MlpPolicy(("a", "b"), {"": net})
    hits = sum(
        policy.best("", x[4 * d : 4 * d + 4].tolist()) == int(np.argmax(q[4 * d : 4 * d + 4])) for d in range(600)
    )
    assert hits / 600 > 0.8  # a uniform pick gets 25%, the best linear score about as little


def _small_model(tmp_path: Path) -> Path:
    rows = generate("palais-royal", "ismcts:budget=2,horizon=1", ExpertStrategy, 2, seed=3)
    path = tmp_path / "data.parquet"
    write_table(rows, path)
    table = pl.read_parquet(path).with_columns(file=pl.lit(0))
    first, report = fit(table, LONG_FEATURES, "value", temperature=0.2, seed=5, holdout=0.5, by_kind=False,
                        student="mlp", hidden=4)  # fmt: skip
    second, _ = fit(table, LONG_FEATURES, "value", temperature=0.2, seed=5, holdout=0.5, by_kind=False,
                    student="mlp", hidden=4)  # fmt: skip
    assert isinstance(first, MlpPolicy) and first.to_json() == second.to_json()
    assert {"agreement", "top2", "top3", "log_loss"} <= set(report["all"])
    model = tmp_path / "mlp.json"
    args = ["fit", str(path), "--seed", "5", "--target", "value", "--student", "mlp", "--hidden", "4"]
    assert expert_train.main([*args, "--write", "--model", str(model)]) == 0
    written = json.loads(model.read_text(encoding="utf-8"))
    assert written["model"] == "mlp" and "--student mlp --hidden 4" in written["command"]
    return model


def test_expert_plays_a_network_model_and_pure_and_compiled_agree(tmp_path: Path) -> None:
    model = _small_model(tmp_path)
    policy = load_policy(model)
    assert isinstance(policy, MlpPolicy) and load_policy(str(model)) is policy  # read once per process
    seats = [ExpertStrategy(budget=0, model=str(model)), load_strategy("greedy")]
    assert play_game(COMPONENTS, RuleOptions(players=2), 5, seats).finished
    if not all(_build._has_extension(p) for p in _build.COMPILED_SOURCES):
        pytest.skip("the engine is not compiled in this install: the pure/compiled comparison needs `make build`")
    code = (
        "import json, sys\nfrom palais_sim.games.palais_royal.components import standard_components\n"
        "from palais_sim.games.palais_royal.play import play_game\n"
        "from palais_sim.games.palais_royal.state import RuleOptions\nfrom palais_sim.registry import load_strategies\n"
        "from palais_sim import build_info\nm = sys.argv[1]\nout = [build_info()['compiled']]\n"
        "for i, spec in enumerate([f'expert:budget=0,model={m}', f'expert:budget=4,top=2,model={m}',"
        " f'ismcts:budget=3,prior={m}']):\n"
        "    r = play_game(standard_components(), RuleOptions(players=2, max_rounds=60), 300 + i,"
        " load_strategies(spec + ',greedy', 2))\n"
        "    out.append([r.to_json(), r.decisions])\nprint(json.dumps(out))\n"
    )
    results = []
    for pure in (False, True):
        env = {k: v for k, v in os.environ.items() if k != "PALAIS_PURE"}
        if pure:
            env["PALAIS_PURE"] = "1"
        done = subprocess.run([sys.executable, "-c", code, str(model)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        results.append(json.loads(done.stdout))
    assert results[0][0] is True and results[1][0] is False
    assert results[0][1:] == results[1][1:]


def test_ismcts_with_a_prior_plays_and_without_one_is_unchanged() -> None:
    prior = load_strategy("ismcts:budget=4,prior=expert,horizon=1")
    assert isinstance(prior, IsmctsStrategy) and prior.prior == "expert"
    assert play_game(COMPONENTS, RuleOptions(players=2), 7, [prior, load_strategy("greedy")]).finished
    plain = [load_strategy("ismcts:budget=4,horizon=1"), load_strategy("greedy")]
    default = [load_strategy("ismcts:budget=4,horizon=1,prior=,cpuct=1.0"), load_strategy("greedy")]
    games = [play_game(COMPONENTS, RuleOptions(players=2), 8, seats).to_json() for seats in (plain, default)]
    for game in games:
        for seat in game["seats"]:
            seat.pop("strategy")  # the specs differ in their text only
    assert games[0] == games[1]
    with pytest.raises(ValueError, match="cpuct"):
        IsmctsStrategy(cpuct=-1.0)


def test_the_rounding_study_compares_every_scoring_of_a_game_with_the_unrounded_network() -> None:
    """``benchmarks/scorer_rounding.py`` on one game of the shipped expert: every scoring is compared, the unrounded
    scores lie within a ten-thousandth of the played ones, and the scorer is restored afterwards."""
    from benchmarks.scorer_rounding import study, unrounded_scores

    played = MlpPolicy.scores
    tally = study("", players=2, games=1, seed=3)
    assert MlpPolicy.scores is played
    assert tally["scorings"] > 20 and tally["first_differs"] <= tally["order_differs"] <= tally["scorings"]
    assert 0.0 < tally["largest_change"] < 1e-3
    policy = load_policy()
    rows = (np.random.default_rng(2).normal(size=(5, len(policy.features))) * 3).tolist()
    assert np.allclose(unrounded_scores(policy, "move", rows), policy.scores("move", rows), rtol=0, atol=1e-3)


def test_the_speed_benchmark_times_every_arm_on_the_same_setups_and_restores_the_scorer() -> None:
    from benchmarks.scorer_speed import measure

    played = MlpPolicy.scores
    spent = measure({"a": str(MODEL), "b": str(MODEL)}, unrounded=True, players=2, games=2, seed=1)
    assert MlpPolicy.scores is played
    assert list(spent) == ["a exact", "a unrounded", "b exact", "b unrounded"] and all(t > 0 for t in spent.values())
