"""Train ``expert``: teacher self-play into a Parquet table, then the policy fitted on it.

    python -m strategies.palais_royal.expert_train generate --games 400 --seed 1 --out runs/expert/data-1.parquet
    python -m strategies.palais_royal.expert_train fit runs/expert/data-*.parquet --seed 1 [--write]

``generate`` plays ``--teacher`` (``ismcts:budget=30,horizon=2``) against itself in 2-player games and records each
candidate of every searched decision (``strategies.common.distill.generate``); ``fit`` fits the policy
(``strategies.common.distill.fit``), prints its held-out figures and with ``--write`` stores it in
``strategies/palais_royal/expert.json`` (or ``--model PATH``) with the command, the data size and the seed.

The command line is the common one (``strategies.common.distill.train_main``). ``fit`` fits on every feature the
table records (two rounds of replies); ``--one-round`` on the after-turn features and one round of replies,
``--no-replies`` on the after-turn features only (``expert`` then plays that many rounds out).
"""

from __future__ import annotations

from strategies.common.distill import train_main
from strategies.palais_royal.expert import MODEL, ExpertStrategy
from strategies.palais_royal.expert_features import FEATURES, LONG_FEATURES, TURN_FEATURES

TEACHER = "ismcts:budget=30,horizon=2"
PROG = "python -m strategies.palais_royal.expert_train"
SUBSETS = {
    "one-round": (FEATURES, "fit on the after-turn features and one round of replies (expert then plays one out)"),
    "no-replies": (TURN_FEATURES, "fit on the after-turn features only (expert then plays no replies out)"),
}


def main(argv: list[str] | None = None) -> int:
    return train_main(argv, PROG, "palais-royal", TEACHER, ExpertStrategy, LONG_FEATURES, MODEL, subsets=SUBSETS)


if __name__ == "__main__":
    raise SystemExit(main())
