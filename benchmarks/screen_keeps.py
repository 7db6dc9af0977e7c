"""Study: what a model's screens cost in choices, for several numbers of candidates kept, on recorded decisions
(docs/notes/2026-12-02-screens.md).

    nice .venv/bin/python -m benchmarks.screen_keeps MODEL.json runs/it/chunk-0024.parquet ... --keeps 3/2 --keeps 3/3 \
        [--sure 0.75 ...]

(run as a module from the repository root, so that this checkout's ``strategies`` is imported).

The chunks are an iteration's data (``palais train``: every candidate of each decision with its features, recorded as
deep as the data goes, and the teacher's mean reward); use chunks the model was not fitted on. For each ``--keeps``
(one number per screen of the model, cheapest first) each decision's candidates are screened as ``expert`` screens
them (each screen reads the first features of a row and keeps its best, the first of equals) and the model chooses
among those left. The table gives, per decision kind: how often the choice is the unscreened model's, the teacher's
regret (its best candidate's mean reward minus the chosen one's, averaged over decisions) and how many candidates each
screen leaves, per decision (what the longer rollouts cost is played for: ``expert`` describes the candidates a
screen keeps as deep as the next one reads). With ``--sure GAP`` (repeatable) each keeps is also played as
``expert:sure=GAP`` plays it (a screen whose best leads its second by ``GAP`` or more chooses it at once: its
candidates left count 1 from there on), with how often a screen was that sure and how often the choice is still
the screened one's (docs/notes/2026-12-07-sure-screens.md). Chunks whose rows are shorter than the model's features
are refused.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import polars as pl

from strategies.common.distill import LinearPolicy, MlpPolicy, load_model, load_screens


def _ranked(scores: np.ndarray, alive: list[int]) -> list[int]:
    return sorted(alive, key=lambda i: (-scores[i], i))


def _screened(
    scores: list[np.ndarray], final: np.ndarray, keeps: list[int], sure: float
) -> tuple[int, list[int], bool]:
    """The candidate chosen, the candidates each screen leaves and whether a screen was sure (``sure`` 0: never)."""
    alive = list(range(len(final)))
    left = []
    for screen_scores, keep in zip(scores, keeps, strict=True):
        if len(alive) > keep:
            ranked = _ranked(screen_scores, alive)
            if sure > 0.0 and screen_scores[ranked[0]] - screen_scores[ranked[1]] >= sure:
                return ranked[0], left + [1] * (len(keeps) - len(left)), True
            alive = ranked[:keep]
        left.append(len(alive))
    return _ranked(final, alive)[0], left, False


def study(
    model: Path, chunks: list[Path], grids: list[list[int]], gaps: tuple[float, ...] = ()
) -> dict[tuple[str, str], dict]:
    """Per (decision kind, keeps, and ``sure GAP`` for each of ``gaps``): decisions, choices as the unscreened
    model's, summed regret, candidates left (and with a gap: decisions a screen was sure of, choices as the keeps'
    without it)."""
    data = json.loads(model.read_text(encoding="utf-8"))
    features = tuple(data["features"])
    policy = load_model(model, features)
    screens: list[LinearPolicy | MlpPolicy] = [screen for screen, _ in load_screens(model, features)]
    for keeps in grids:
        if len(keeps) != len(screens):
            raise SystemExit(f"--keeps {'/'.join(map(str, keeps))}: the model has {len(screens)} screens")
    table = pl.concat([pl.read_parquet(path).with_columns(file=pl.lit(k)) for k, path in enumerate(chunks)])
    table = table.sort("file", "game", "decision", "candidate")
    out: dict[tuple[str, str], dict[str, float]] = {}
    for _, group in table.group_by(["file", "game", "decision"], maintain_order=True):
        kind = group["kind"][0]
        rows = group["features"].to_list()
        if min(len(r) for r in rows) < len(features):
            raise SystemExit(f"the chunks record {min(len(r) for r in rows)} features, the model reads {len(features)}")
        value = group["value"].to_numpy()
        n = len(rows)
        scores = [np.array(s.scores(kind, [r[: len(s.features)] for r in rows])) for s in screens]
        final = np.array(policy.scores(kind, [r[: len(features)] for r in rows]))
        unscreened = _ranked(final, list(range(n)))[0]
        for name, keeps in [("unscreened", [n] * len(screens)), *(("/".join(map(str, k)), k) for k in grids)]:
            screened, left, _ = _screened(scores, final, keeps, 0.0)
            arms = [(name, screened, left, False)]
            for gap in gaps if name != "unscreened" else ():
                chosen, sure_left, sure = _screened(scores, final, keeps, gap)
                arms.append((f"{name} sure {gap:g}", chosen, sure_left, sure))
            for arm, chosen, left, sure in arms:
                counts = {"decisions": 0, "same": 0, "sure": 0, "as_screened": 0}
                row = out.setdefault((kind, arm), {**counts, "regret": 0.0, "left": [0] * len(screens)})
                row["decisions"] += 1
                row["same"] += chosen == unscreened
                row["regret"] += float(value.max() - value[chosen])
                row["left"] = [a + b for a, b in zip(row["left"], left, strict=True)]
                row["sure"] += sure
                row["as_screened"] += chosen == screened
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.screen_keeps")
    parser.add_argument("model", type=Path)
    parser.add_argument("chunks", type=Path, nargs="+")
    parser.add_argument("--keeps", action="append", default=[], help="candidates each screen keeps, e.g. 3/2")
    parser.add_argument("--sure", action="append", type=float, default=[], help="a sure screen's score gap, e.g. 0.75")
    args = parser.parse_args(argv)
    grids = [[int(k) for k in text.split("/")] for text in args.keeps]
    out = study(args.model, args.chunks, grids, tuple(args.sure))
    print("| kind | keeps | decisions | same as unscreened | teacher's regret | candidates left by each screen "
          "| a screen sure | same as the keeps alone |")  # fmt: skip
    print("|---|---|---:|---:|---:|---|---:|---:|")
    for (kind, name), row in sorted(out.items()):
        d = row["decisions"]
        left = " / ".join(f"{x / d:.2f}" for x in row["left"])
        print(f"| {kind} | {name} | {d} | {100 * row['same'] / d:.1f}% | {row['regret'] / d:.4f} | {left} "
              f"| {100 * row['sure'] / d:.1f}% | {100 * row['as_screened'] / d:.1f}% |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
