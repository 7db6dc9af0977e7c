"""Study: one noble's price swept from no cost at all to beyond any purse, through `palais study nobles` itself.

    .venv/bin/python benchmarks/price_sweep.py N17 --prices 0/0/0,2/2/2,5/2/2,8/3/3,12/3/3,60/4/4 --groups 300 \
        --out /tmp/sweep [--strategy greedy --strategy ...] [--workers 2]

Each price is ``gold/violet/turquoise``. For each, the standard component set with only this noble's price changed
is written to ``OUT/components/``, and the study runs exactly as a user would run it (``palais study nobles
--players 2 --groups G --nobles ID --components FILE --reprice none``, at the game's default skill levels unless
``--strategy`` is given). The table printed (markdown) has, per price and level, the value with its 95% interval,
the verdict and its reason, and the take rates. What must hold: favoured at no cost, overpriced far above the printed
price, and never rising with the price in between (beyond the noise). A study already played is read again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.studies.variants import to_toml


def price_file(noble: str, gold: int, violet: int, turquoise: int, folder: Path) -> Path:
    """The standard set with ``noble`` at this price."""
    comps = load_components(None)
    if noble not in {n.id for n in comps.nobles}:
        raise SystemExit(f"{noble} is not a noble of the standard set")
    nobles = tuple(
        replace(n, gold=gold, violet=violet, turquoise=turquoise) if n.id == noble else n for n in comps.nobles
    )
    path = folder / f"{noble}-{gold}g{violet}v{turquoise}t.toml"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(to_toml(replace(comps, nobles=nobles, name=path.stem)), encoding="utf-8")
    return path


def study(noble: str, components: Path, out: Path, groups: int, strategies: list[str], workers: int) -> list[dict]:
    """The study's rows for ``noble`` (played unless ``out`` holds it already)."""
    if not (out / "study.json").exists():
        command = [sys.executable, "-m", "palais_sim.cli", "study", "nobles", "--out", str(out), "--players", "2",
                   "--groups", str(groups), "--nobles", noble, "--components", str(components), "--reprice", "none",
                   "--workers", str(workers), *(a for s in strategies for a in ("--strategy", s))]  # fmt: skip
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        if done.returncode not in (0,):
            raise SystemExit(f"the study at {components.name} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    rows = json.loads((out / "study.json").read_text(encoding="utf-8"))["rows"]
    return [r for r in rows if r["key"] == noble]


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("noble")
    parser.add_argument("--prices", default="0/0/0,2/2/2,5/2/2,8/3/3,12/3/3,60/4/4")
    parser.add_argument("--groups", type=int, default=300)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--strategy", action="append", default=[])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print("| price (gold, violet+turquoise seals) | level | value (pp) [95%] | verdict | within reach | taken when"
          " within reach |\n|---|---|---|---|---|---|")  # fmt: skip
    for price in args.prices.split(","):
        gold, violet, turquoise = (int(x) for x in price.split("/"))
        components = price_file(args.noble, gold, violet, turquoise, args.out / "components")
        rows = study(args.noble, components, args.out / components.stem, args.groups, args.strategy, args.workers)
        for r in rows:
            low, high = r["ci"]
            verdict = r["verdict"] + (f" ({r['reason']})" if r.get("reason") else "")
            rates = r["rates"]
            reach, taken = pct(rates["within_reach"]), pct(rates["taken_when_within_reach"])
            print(f"| {gold}, {violet}+{turquoise} | {r['strategy']} | {r['effect']:+.1f} [{low:+.1f}, {high:+.1f}] "
                  f"| {verdict} | {reach} | {taken} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
