"""Study: the games per decided verdict of the nobles study's looks, Bonferroni against the alpha-spending designs.

    .venv/bin/python benchmarks/spending_cost.py --out runs/spending-cost [--strategy greedy] [--groups 500]
        [--looks 5] [--seed 1] [--nobles N05,...] [--workers 1]

Plays the nobles study (2 players, no repricing) with --looks K three times into the same directory, so the looks
are shared runs (each design plays only the looks the earlier ones did not): with each look at 1 - 0.05/K
(Bonferroni, the design before 2026-11-26), with the O'Brien-Fleming spending boundary and with Pocock's. For each it
prints the rows decided, the games those rows cost (every subject's looks up to its stop) and the games per decided
row, and which rows the designs decide differently.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from palais_sim.games.palais_royal.studies.nobles import NoblesPlan, compute
from palais_sim.study.common import Ledger, StudySpec


@dataclass(frozen=True)
class BonferroniPlan(NoblesPlan):
    """Every look's interval at 1 - 0.05/K, as the study did before the spending boundary."""

    def look_confidence(self, look: int) -> float:
        return 1 - 0.05 / len(self.look_sizes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--groups", type=int, default=500)
    parser.add_argument("--looks", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nobles", default=None)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    spec = StudySpec(strategies=(args.strategy,), groups=args.groups, seed=args.seed, workers=args.workers)
    subjects = tuple(args.nobles.split(",")) if args.nobles else None
    designs = {
        "bonferroni": BonferroniPlan(spec, subjects=subjects, reprice="none", looks=args.looks),
        "obf": NoblesPlan(spec, subjects=subjects, reprice="none", looks=args.looks, spending="obf"),
        "pocock": NoblesPlan(spec, subjects=subjects, reprice="none", looks=args.looks, spending="pocock"),
    }
    verdicts = {}
    print(f"{args.strategy}, {args.groups} groups in {args.looks} looks, root seed {args.seed}")
    for name, plan in designs.items():
        ledger = Ledger()
        rows, _ = compute(plan, args.out, ledger)
        decided = [r for r in rows if r["verdict"] != "undecided"]
        games = sum(r["games"] for r in rows)
        per = games / len(decided) if decided else float("nan")
        by_look = [sum(1 for r in decided if r["looks"] == k + 1) for k in range(args.looks)]
        now = sum(ledger.played_now.values())
        print(f"{name:10s} decided {len(decided)} of {len(rows)} rows; {games:,} games; {per:,.0f} games per decided "
              f"row; decided at looks 1..{args.looks}: {by_look}; played now {now:,}")  # fmt: skip
        verdicts[name] = {r["key"]: (r["verdict"], r["looks"]) for r in rows}
    keys = list(verdicts["obf"])
    differ = [k for k in keys if len({verdicts[d][k][0] for d in designs}) > 1]
    for k in differ:
        print(f"  {k}: " + ", ".join(f"{d} {verdicts[d][k][0]} (look {verdicts[d][k][1]})" for d in designs))


if __name__ == "__main__":
    main()
