"""Compare two JSON reports (``palais report all RUN --format json``) number by number, to float noise.

    python benchmarks/compare_reports.py BEFORE.json AFTER.json [--rtol 1e-9] [--atol 1e-12]

For checking that a change to how the analytics compute leaves every printed number as it was: the same keys, the
same tables in the same row order, equal strings and integers, floats equal within the tolerances (sums taken in
another order differ in their last bits). Prints each difference and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def differences(a: object, b: object, rtol: float, atol: float, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}: key {k!r} only in {'before' if k in a else 'after'}" for k in sorted(set(a) ^ set(b))]
        for k in a.keys() & b.keys():
            out += differences(a[k], b[k], rtol, atol, f"{where}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items before, {len(b)} after"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, rtol, atol, f"{where}[{i}]")]
    numbers = all(isinstance(x, float | int) and not isinstance(x, bool) for x in (a, b))
    if numbers:
        if isinstance(a, int) and isinstance(b, int):
            return [] if a == b else [f"{where}: {a} before, {b} after"]
        if math.isclose(a, b, rel_tol=rtol, abs_tol=atol):
            return []
        return [f"{where}: {a!r} before, {b!r} after"]
    return [] if a == b else [f"{where}: {a!r} before, {b!r} after"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--atol", type=float, default=1e-12)
    args = parser.parse_args()
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    found = differences(before, after, args.rtol, args.atol)
    for line in found[:200]:
        print(line)
    print(f"{len(found)} difference(s) beyond rtol {args.rtol:g}, atol {args.atol:g}")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
