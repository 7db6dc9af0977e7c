"""``palais_sim.core.portable_math``: ``exp`` and ``log`` from IEEE operations alone, within an ulp or two of the C
library's, and the same bits in the Python source and the compiled build (the strategies' play uses them instead of
``math.exp`` and ``math.log``, whose bits are the C library's own and the CPU's)."""

from __future__ import annotations

import math
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from palais_sim import _build
from palais_sim.core.portable_math import ceil_log2, exp, log

ROOT = Path(__file__).resolve().parents[1]


def _ulps(a: float, b: float) -> int:
    return abs(struct.unpack("<q", struct.pack("<d", a))[0] - struct.unpack("<q", struct.pack("<d", b))[0])


def test_exp_is_within_two_ulps_of_the_c_librarys() -> None:
    rng = random.Random(1)
    xs = [rng.uniform(-745.0, 709.7) for _ in range(20_000)] + [rng.uniform(-40.0, 40.0) for _ in range(20_000)]
    assert max(_ulps(exp(x), math.exp(x)) for x in xs) <= 2
    assert exp(0.0) == 1.0 and exp(-0.0) == 1.0 and exp(1000.0) == math.inf and exp(-1000.0) == 0.0
    assert math.isnan(exp(math.nan)) and exp(-math.inf) == 0.0


def test_log_is_within_an_ulp_of_the_c_librarys() -> None:
    rng = random.Random(2)
    ys = [rng.uniform(1e-9, 1.0) for _ in range(20_000)] + [math.exp(rng.uniform(-700.0, 700.0)) for _ in range(20_000)]
    ys += [float(n) for n in range(1, 3000)] + [5e-324, 2.2250738585072014e-308]
    assert max(_ulps(log(y), math.log(y)) for y in ys) <= 1
    assert log(1.0) == 0.0 and log(0.0) == -math.inf and log(math.inf) == math.inf
    assert math.isnan(log(-1.0)) and math.isnan(log(math.nan))


def test_ceil_log2_is_exact() -> None:
    assert [ceil_log2(n) for n in range(1, 10)] == [0, 1, 2, 2, 3, 3, 3, 3, 4]
    assert all(ceil_log2(n) == math.ceil(math.log2(n)) for n in range(1, 70_000))


BITS = """
import hashlib, random, struct
from palais_sim import build_info
from palais_sim.core.portable_math import exp, log
rng, digest = random.Random(3), hashlib.sha256()
for _ in range(20000):
    x = rng.uniform(-50.0, 50.0)
    digest.update(struct.pack("<dd", exp(x), log(abs(x) + 1e-3)))
print(build_info()["compiled"], digest.hexdigest())
"""


def test_the_source_and_the_compiled_build_give_the_same_bits() -> None:
    if not all(_build._has_extension(p) for p in _build.COMPILED_SOURCES):
        pytest.skip("the engine is not compiled in this install: the comparison needs `make build`")
    runs = []
    for pure in (False, True):
        env = {k: v for k, v in os.environ.items() if k != "PALAIS_PURE"} | ({"PALAIS_PURE": "1"} if pure else {})
        done = subprocess.run([sys.executable, "-c", BITS], cwd=ROOT, env=env, capture_output=True, text=True,
                              check=True)  # fmt: skip
        runs.append(done.stdout.split())
    assert runs[0][0] == "True" and runs[1][0] == "False"
    assert runs[0][1] == runs[1][1]
