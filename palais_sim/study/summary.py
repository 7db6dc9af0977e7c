"""A study's verdicts in a few lines for the terminal, at its end: how many rows it decided and which, how many are
undecided, and what more groups would cost (the pages hold the rest). A study that printed only "study written to
..." left a newcomer to open its page to learn that it had decided nothing."""

from __future__ import annotations

import math
from collections import Counter

SHOWN = 4  # decided rows named on the terminal; the page lists them all


def _label(row: dict) -> str:
    subject, key, level = row.get("subject", ""), row.get("key", ""), row.get("strategy")
    name = f"{subject} {key}".strip() if str(key) not in str(subject) else str(subject)
    if row.get("players"):  # a study over player counts: the same subject and level at each count, told apart
        name += f" ({row['players']}p)"
    return f"{name} at {level}" if level else name


def _finite(row: dict) -> bool:
    """A row with an estimate and an interval (a spread row of a block of setups may have neither)."""
    values = [row.get("effect"), *(row.get("ci") or [None, None])]
    return all(isinstance(v, int | float) and math.isfinite(v) for v in values)


def groups_to_decide(row: dict, margin: float) -> float | None:
    """About how many groups the row needs for its interval to clear the margin, if its estimate stays where it
    is (an interval narrows as one over the root of the groups); None where it sits on the margin."""
    low, high = row["ci"]
    half, distance = (high - low) / 2, abs(abs(row["effect"]) - margin)
    if not (math.isfinite(half) and row.get("n_groups")) or distance < 0.05 * max(margin, 0.1):
        return None
    return row["n_groups"] * (half / distance) ** 2


def verdict_lines(study: dict, grow: str = "--groups") -> list[str]:
    """The end of a study on the terminal (``study.json`` as its argument); no lines for a study without rows.
    ``grow``: the option whose larger value plays more groups of these rows."""
    rows = [row for row in study.get("rows") or [] if row.get("verdict") and _finite(row)]
    if not rows:
        return []
    margin = float(study.get("margin_pp", 0.0))
    decided = [row for row in rows if row["verdict"] != "undecided"]
    counts = Counter(row["verdict"] for row in decided)
    kinds = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
    lines = [f"verdicts: {len(decided)} of {len(rows)} rows decided{f' ({kinds})' if kinds else ''}"]
    for row in decided[:SHOWN]:
        low, high = row["ci"]
        lines.append(f"  {_label(row)}: {row['verdict']} {row['effect']:+.1f} pp [{low:+.1f}, {high:+.1f}]")
    if len(decided) > SHOWN:
        lines.append(f"  and {len(decided) - SHOWN} more (study.md)")
    undecided = [row for row in rows if row["verdict"] == "undecided"]
    if undecided:
        needs = sorted(n for n in (groups_to_decide(row, margin) for row in undecided) if n is not None)
        have = max(row["n_groups"] for row in undecided)
        arms = study.get("games") if isinstance(study.get("games"), dict) else {}
        cpu = sum(arm.get("cpu_seconds") or 0.0 for arm in arms.values() if isinstance(arm, dict))
        line = f"  {len(undecided)} undecided"
        if needs:
            nearest, factor = needs[0], needs[0] / have
            more = (factor - 1) * cpu
            cost = "" if not cpu or factor <= 1 else (
                f", about {more / 60:,.0f} CPU-min more" if more >= 90 else f", about {more:,.0f} CPU-s more"
            )  # fmt: skip
            line += (f"; the nearest needs about {nearest:,.0f} groups ({factor:.1f}x these{cost}) if its estimate "
                     f"holds: a larger {grow}, same --out, plays only the new ones")  # fmt: skip
        else:
            line += "; their estimates sit on the margin: more groups would not tell soon"
        lines.append(line)
    return lines
