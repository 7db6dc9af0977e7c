"""Train ``expert``: teacher self-play into a Parquet table, then the policy fitted on it.

    python -m strategies.palais_royal.expert_train generate --games 400 --seed 1 --out runs/expert/data-1.parquet
    python -m strategies.palais_royal.expert_train fit runs/expert/data-*.parquet --seed 1 [--write]

``generate`` plays ``--teacher`` (``ismcts:budget=30,horizon=2``) against itself in 2-player games and records each
candidate of every searched decision (``strategies.common.distill.generate``); ``fit`` fits the policy
(``strategies.common.distill.fit``), prints its held-out figures and with ``--write`` stores it in
``palais_sim/data/palais_royal_expert.json`` (or ``--model PATH``) with the command, the data size and the seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from strategies.common.distill import TARGETS, fit, generate, write_table
from strategies.palais_royal.expert import MODEL, ExpertStrategy
from strategies.palais_royal.expert_features import FEATURES, TURN_FEATURES

TEACHER = "ismcts:budget=30,horizon=2"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m strategies.palais_royal.expert_train")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="teacher self-play into a Parquet table of candidates")
    gen.add_argument("--games", type=int, default=100)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--players", type=int, default=2)
    gen.add_argument("--teacher", default=TEACHER)
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--play", choices=("teacher", "student"), default="teacher",
                     help="who plays: the teacher, or expert itself (the teacher's analysis recorded)")  # fmt: skip
    fitp = sub.add_parser("fit", help="fit the policy on one or more tables")
    fitp.add_argument("tables", nargs="+", type=Path)
    fitp.add_argument("--seed", type=int, default=1)
    fitp.add_argument("--target", choices=TARGETS, default="played")
    fitp.add_argument("--l2", type=float, default=1e-3)
    fitp.add_argument("--temperature", type=float, default=0.02)
    fitp.add_argument("--no-replies", action="store_true",
                      help="fit on the after-turn features only (expert then plays no replies out)")  # fmt: skip
    fitp.add_argument("--write", action="store_true", help="store the model (palais_sim/data/ or --model)")
    fitp.add_argument("--model", type=Path, default=MODEL)
    args = parser.parse_args(argv)
    if args.command == "generate":
        start = time.process_time()
        args.out.parent.mkdir(parents=True, exist_ok=True)

        def progress(games: int, rows: list[dict]) -> None:
            if games % 20 == 0:  # the table so far: a long generation can be stopped and still used
                write_table(rows, args.out)
                print(f"{games} games, {time.process_time() - start:.0f} CPU-s", file=sys.stderr, flush=True)

        rows = generate(
            "palais-royal", args.teacher, ExpertStrategy, args.games, args.seed, args.players, progress, args.play
        )
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
    features = FEATURES
    if args.no_replies:  # the after-turn features are the first of every row
        features = TURN_FEATURES
        table = table.with_columns(pl.col("features").list.head(len(features)))
    policy, report = fit(table, features, args.target, args.l2, args.temperature, args.seed)
    policy.meta["command"] = "python -m strategies.palais_royal.expert_train fit " + " ".join(
        [*(p.name for p in args.tables), f"--seed {args.seed}", f"--target {args.target}", f"--l2 {args.l2}",
         f"--temperature {args.temperature}", *(["--no-replies"] if args.no_replies else [])])  # fmt: skip
    policy.meta["games"] = int(table.select(pl.struct("file", "game").n_unique()).item())
    print(json.dumps(report, indent=1))
    if args.write:
        args.model.write_text(json.dumps(policy.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.model}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
