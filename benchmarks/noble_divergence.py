"""Study: where the variance of a noble's value comes from (the nobles study's forbid arms; the 2026-11-26 note).

    .venv/bin/python benchmarks/noble_divergence.py [--strategy greedy] [--groups 200] [--seed 1] [--nobles N05,...]

For every subject (a noble or a privilege kind) and group of the nobles study at 2 players, replays the forbid arm's
games (``restricted:base=S,forbid=X`` in each seat against ``restricted:base=S,watch=X``, the study's seeds
``group_seed(seed, g)``) beside the unrestricted mirror game of the same setup (S in every seat: what the watchers
play, and what the forbidden player would have played), and compares their decisions one by one. Per subject it
prints the share of groups whose value is exactly 0 (forbidding changed nothing in the result), the share in which
the subject was not dealt into the park at all (6 of the 42 nobles stay in the box: such a group cannot differ), the
share whose games never left the mirror game, and the round of the first differing decision among the games that
did (its quartiles, against the rounds the mirror game lasted). ``--check DIR`` compares the replayed values with
those of a finished study in DIR (the same seeds and groups).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategy
from palais_sim.tournament.schedule import group_seed


def played(comps, options: RuleOptions, seed: int, specs: Sequence[str]) -> tuple[list[tuple[int, str]], list, int]:
    """The game's decisions as (round, choice) and its winners."""
    log: list[tuple[int, str]] = []

    def observe(state, _decision, choice) -> None:
        log.append((state.round, repr(choice)))

    result = play_game(comps, options, seed, [load_strategy(s) for s in specs], observer=observe)
    return log, list(result.winners), result.rounds


def first_difference(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> int | None:
    """The round of the first decision where two games part (None: the same game)."""
    for (round_a, choice_a), (_round_b, choice_b) in zip(a, b, strict=False):
        if choice_a != choice_b:
            return round_a
    return None if len(a) == len(b) else a[min(len(a), len(b)) - 1][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--groups", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nobles", default=None, help="subjects, e.g. N05,N17,king_plus1 (default: all)")
    parser.add_argument("--check", default=None, help="a finished study directory to compare the values with")
    parser.add_argument("--json", default=None, help="write the per-subject figures here")
    args = parser.parse_args()
    comps = load_components(None)
    options = RuleOptions(players=2)
    kinds = list(dict.fromkeys(n.privilege for n in comps.nobles if n.privilege))
    subjects = [n.id for n in comps.nobles] + kinds
    if args.nobles:
        subjects = [s for s in subjects if s in args.nobles.split(",")]
    base = args.strategy.replace(",", ";")
    seeds = [group_seed(args.seed, g) for g in range(args.groups)]
    mirror = [played(comps, options, seed, [args.strategy] * 2) for seed in seeds]
    from palais_sim.games.palais_royal.setup import new_game

    boxes = [{comps.nobles[i].id for i in new_game(comps, options, seed).box} for seed in seeds]
    members = {s: {n.id for n in comps.nobles if s in (n.id, n.privilege)} for s in subjects}
    study = json.loads(open(f"{args.check}/study.json").read()) if args.check else None  # noqa: SIM115
    out = []
    print("subject  zero  boxed  same-game  first-diff-round q1/median/q3  (game rounds median)")
    for subject in subjects:
        forbid, watch = f"restricted:base={base},forbid={subject}", f"restricted:base={base},watch={subject}"
        values, same, rounds, group_rounds = [], [], [], []
        for g, seed in enumerate(seeds):
            log0, _, _ = mirror[g]
            wins = []
            identical = True
            first = None
            for rotation in range(2):
                specs = [forbid, watch] if rotation == 0 else [watch, forbid]
                log, winners, _ = played(comps, options, seed, specs)
                focus = rotation  # winners are 0-based seats; rotation r seats the focus in seat r + 1
                wins.append((1.0 / len(winners)) if focus in winners else 0.0)
                where = first_difference(log, log0)
                if where is not None:
                    identical = False
                    rounds.append(where)
                    first = where if first is None else min(first, where)
            values.append(0.5 - float(np.mean(wins)))
            same.append(identical)
            group_rounds.append(first)
        v = np.array(values)
        boxed = np.mean([members[subject] <= box for box in boxes])
        q = np.percentile(rounds, [25, 50, 75]).tolist() if rounds else [None] * 3
        row = {
            "subject": subject, "zero": float(np.mean(np.abs(v) < 1e-9)), "boxed": float(boxed),
            "same_game": float(np.mean(same)), "first_difference_round_quartiles": q, "diverged_games": len(rounds),
            "mean": float(v.mean()), "sd": float(v.std(ddof=1)),
            "groups": {"value": values, "same_game": same, "boxed": [members[subject] <= box for box in boxes],
                       "first_difference_round": group_rounds},
        }  # fmt: skip
        if study is not None:
            mine = next(r for r in study["rows"] if r["key"] == subject)
            row["study_effect"] = mine["effect"]
        out.append(row)
        qs = "/".join("-" if x is None else f"{x:.0f}" for x in q)
        check = f"  study {row['study_effect']:+.2f} vs {100 * row['mean']:+.2f}" if study is not None else ""
        print(f"{subject:12s} {row['zero']:5.0%} {boxed:5.0%} {row['same_game']:6.0%}  {qs:>10s}{check}")
    game_rounds = [r for _, _, r in mirror]
    print(f"mirror games: rounds median {np.median(game_rounds):.0f} (q1 {np.percentile(game_rounds, 25):.0f}, "
          f"q3 {np.percentile(game_rounds, 75):.0f})")  # fmt: skip
    zero = np.mean([r["zero"] for r in out])
    print(f"all subjects: {zero:.1%} of groups exactly 0; {np.mean([r['boxed'] for r in out]):.1%} boxed; "
          f"{np.mean([r['same_game'] for r in out]):.1%} the mirror game in both seatings")  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"strategy": args.strategy, "groups": args.groups, "seed": args.seed, "rows": out,
                       "mirror_rounds": game_rounds}, fh, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()
