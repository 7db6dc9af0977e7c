"""Train Palastgeflüster's ``expert``: teacher self-play into a Parquet table, then the policy fitted on it.

    python -m strategies.palastgefluester.expert_train generate --games 200 --seed 1 --out runs/pgexpert/data-1.parquet
    python -m strategies.palastgefluester.expert_train fit runs/pgexpert/data-*.parquet --seed 1 [--write]

``generate`` plays ``--teacher`` (``search:budget=16``) against itself in ``--players`` (3) player games and records
every candidate of each decision ``expert`` would decide (``strategies.common.distill.generate``); ``fit`` fits the
policy (``strategies.common.distill.fit``), prints its held-out figures and with ``--write`` stores it in
``strategies/palastgefluester/expert.json`` (or ``--model PATH``) with the command, the data size and the seed.
The command line is the common one (``strategies.common.distill.train_main``).
"""

from __future__ import annotations

from strategies.common.distill import train_main
from strategies.palastgefluester.expert import MODEL, ExpertStrategy
from strategies.palastgefluester.expert_features import FEATURES

TEACHER = "search:budget=16"
PROG = "python -m strategies.palastgefluester.expert_train"


def main(argv: list[str] | None = None) -> int:
    return train_main(argv, PROG, "palastgefluester", TEACHER, ExpertStrategy, FEATURES, MODEL, players=3)


if __name__ == "__main__":
    raise SystemExit(main())
