"""A study ends with its verdicts on the terminal: decided rows, undecided ones and what more groups would cost (it
printed only "study written to ...", so "0 of 6 decided" was learnt from the page)."""

from __future__ import annotations

import json
from pathlib import Path

from palais_sim.cli.studies import run_study_command
from palais_sim.study.summary import groups_to_decide, verdict_lines


def study(rows: list[dict]) -> dict:
    return {"margin_pp": 2.0, "rows": rows, "games": {"greedy": {"games": 400, "cpu_seconds": 120.0}}}


def row(key: str, effect: float, low: float, high: float, verdict: str, groups: int = 100) -> dict:
    return {"subject": "seat", "key": key, "strategy": "greedy", "effect": effect, "ci": [low, high],
            "n_groups": groups, "verdict": verdict}  # fmt: skip


def test_the_lines_name_the_decided_rows_and_price_the_undecided() -> None:
    lines = verdict_lines(study([row("1", -5.0, -6.0, -4.0, "disfavoured"), row("2", 3.0, 0.0, 6.0, "undecided")]))
    assert lines[0] == "verdicts: 1 of 2 rows decided (1 disfavoured)"
    assert lines[1] == "  seat 1 at greedy: disfavoured -5.0 pp [-6.0, -4.0]"
    # half-width 3 must shrink to 1 (the effect's distance from the margin): 9x the groups, 8x the CPU time more
    assert "1 undecided" in lines[2] and "about 900 groups (9.0x these, about 16 CPU-min more)" in lines[2]


def test_a_row_on_the_margin_is_not_priced_and_a_study_without_rows_says_nothing() -> None:
    assert groups_to_decide(row("1", 2.0, -1.0, 5.0, "undecided"), 2.0) is None
    assert "sit on the margin" in verdict_lines(study([row("1", 2.0, -1.0, 5.0, "undecided")]))[-1]
    assert verdict_lines({"rows": []}) == []


def test_the_study_command_prints_its_verdicts_before_where_it_wrote(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    (tmp_path / "study.json").write_text(json.dumps(study([row("1", -5.0, -6.0, -4.0, "disfavoured")])))
    paths = {"json": tmp_path / "study.json", "md": tmp_path / "study.md"}
    run_study_command(lambda: paths)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("verdicts: 1 of 1 rows decided") and out[-1].startswith("study written to")


def test_a_row_of_a_player_count_says_which_and_a_small_cost_is_in_cpu_seconds() -> None:
    """The seats study over 2-4 players printed "start_gold 0 at greedy" twice; a cost under a minute and a half
    read "about 0 CPU-min more"; a balance search grows its validation with another option."""
    rows = [dict(row("1", -5.0, -6.0, -4.0, "disfavoured"), players=3), row("2", 3.0, 0.0, 6.0, "undecided")]
    cheap = {"margin_pp": 2.0, "games": {"greedy": {"cpu_seconds": 4.0}}, "rows": rows}
    lines = verdict_lines(cheap, grow="--validation-groups")
    assert lines[1] == "  seat 1 (3p) at greedy: disfavoured -5.0 pp [-6.0, -4.0]"
    assert "(9.0x these, about 32 CPU-s more)" in lines[2] and "a larger --validation-groups, same --out" in lines[2]
