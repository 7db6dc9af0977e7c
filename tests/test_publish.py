"""The published index (``study.publish``, ``study.index_page``): every noble and privilege kind with its verdict at
each skill level, whether it settled and the balance proposal; the undecided shares per study and level against the
30% goal; the recorded time. Built from small fake study directories (only study.json and balance.json are read), and
tiny real studies of both games for Palastgeflüster's rows beside Palais Royal's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from palais_sim.core.games import get_game
from palais_sim.study.index_page import merged_levels
from palais_sim.study.publish import main, publish


def _row(key: str, strategy: str, verdict: str, effect: float, ci: list[float], groups: int, **extra) -> dict:
    subject = extra.pop("subject", "privilege" if "_" in key else "noble")
    return {"subject": subject, "key": key, "strategy": strategy, "effect": effect, "ci": ci, "n_groups": groups,
            "verdict": verdict, "robust": False, **extra}  # fmt: skip


def _study(path: Path, strategies: list[str], rows: list[dict], games: dict, **extra) -> None:
    path.mkdir(parents=True)
    doc = {"format": "palais-study/1", "study": "nobles", "command": f"palais study nobles --out {path.name}",
           "seed": 1, "groups": 300, "margin_pp": 2.0, "players": 2, "strategies": strategies,
           "rules": {"components": None}, "games": games, "rows": rows, **extra}  # fmt: skip
    (path / "study.json").write_text(json.dumps(doc))
    (path / "study.md").write_text(f"# {path.name}\n")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "studies"
    # "a-search": greedy then lookahead, 100 groups; "b-expert": greedy, expert, lookahead (its order must win),
    # 300 groups at greedy, and a ladder that reads N01 as moving
    _study(src / "a-search", ["greedy", "lookahead:budget=8"], [
        _row("N01", "greedy", "balanced", 0.4, [-1.0, 1.8], 100),
        _row("N02", "greedy", "undecided", 2.5, [-0.5, 5.5], 100),
        _row("N03", "greedy", "undecided", 1.0, [-2.0, 4.0], 100),
        _row("king_plus1", "greedy", "favoured", 5.2, [2.7, 7.7], 100),
        _row("N01", "lookahead:budget=8", "undecided", 1.1, [-1.0, 3.2], 100),
        _row("N19", "greedy", "disfavoured", -0.1, [-0.2, 0.1], 100, reason="dead"),
    ], {"greedy": {"games": 600, "seconds": 100.0, "cpu_seconds": 180.0, "cores": [2]},
        "lookahead:budget=8": {"games": 200, "seconds": 1000.0, "cpu_seconds": 1900.0, "cores": 2}})  # fmt: skip
    _study(src / "b-expert", ["greedy", "expert", "lookahead:budget=8"], [
        _row("N01", "greedy", "undecided", 2.2, [-0.3, 4.7], 300),
        _row("N01", "expert", "favoured", 5.0, [3.0, 7.0], 300),
        _row("N02", "expert", "balanced", 0.0, [-1.5, 1.5], 300),
        _row("N01", "lookahead:budget=8", "undecided", 0.9, [-1.5, 3.3], 50),
    ], {"greedy": {"games": 600, "seconds": 50.0}, "expert": {"games": 600, "seconds": 3600.0}},
        ladder={"rungs": [{"strategy": "greedy", "elo": 0.0, "groups": 0},
                          {"strategy": "expert", "elo": 312.4, "groups": 100}],
                "settling": [{"subject": "noble", "key": "N01", "state": "moving", "setups": 300},
                             {"subject": "noble", "key": "N03", "state": "not settled", "setups": 300}]})  # fmt: skip
    # a seats study: ten rows at one level, three undecided (exactly the 30% goal: not marked)
    seats = [_row(str(k), "greedy", "undecided" if k < 3 else "balanced", 0.0, [-1.0, 1.0], 400, subject="seat")
             for k in range(10)]  # fmt: skip
    _study(src / "seats", ["greedy"], seats, {"greedy": {"games": 100, "seconds": 10.0}}, study="seats")
    search = src / "balance"
    search.mkdir()
    (search / "balance.json").write_text(json.dumps({
        "study": "balance-nobles", "command": "palais balance nobles", "players": 2, "strategies": ["greedy"],
        "budget": 1000, "games_spent": 800, "seed": 1, "validation_seed": 9,
        "changes": [
            {"noble": "N02", "was": "underpriced", "gold": 3, "new_gold": 5, "change": "3 -> 5 gold", "balanced": True},
            {"noble": "N03", "was": "overpriced", "gold": 0, "new_gold": 0, "change": "unchanged", "now": "overpriced",
             "balanced": False},
        ],
        "unbalanced": {"N03": "still overpriced at 0 gold"},
        "validation": [_row("N02", "greedy", "balanced", 0.0, [-1.0, 1.0], 400),
                       _row("N03", "greedy", "undecided", -2.5, [-4.0, -1.0], 400)],
        "games": {"greedy": {"games": 800, "seconds": 40.0}},
    }))  # fmt: skip
    return src


def _table(text: str, heading: str) -> tuple[list[str], dict[str, list[str]]]:
    """The first table after ``heading``: its header and its rows by their first cell."""
    lines = text[text.index(heading) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    header, body = rows[0], rows[2:]
    by_first = {r[0].split(" (")[0]: r for r in body}
    return header, by_first


def _marks(text: str) -> dict[str, str]:
    """The legend's superscript marks by study name."""
    legend = text[text.index("marked with the study it comes from:") :].split("\n")[0]
    found = {name: mark for mark, name in re.findall(r"([⁰¹²³⁴⁵⁶⁷⁸⁹]+) \[([^\]]+)\]", legend)}
    return found


def test_the_table_has_a_row_per_subject_a_column_per_level(source: Path, tmp_path: Path) -> None:
    text = publish(source, tmp_path / "out").read_text()
    header, rows = _table(text, "## Every noble and privilege (2 players)")
    # the levels in the studies' own order: expert between greedy and lookahead, though a-search names lookahead first
    assert header == ["subject", "`greedy`", "`expert`", "`lookahead:budget=8`", "settled", "balance proposal"]
    marks = _marks(text)
    a, b, bal = marks["a-search"], marks["b-expert"], marks["balance"]
    assert len({a, b, bal}) == 3
    n01 = rows["N01"]
    assert n01[1] == f"undecided +2.2 [-0.3, +4.7] {b}"  # 300 groups in b-expert over 100 in a-search
    assert n01[2] == f"**favoured** +5.0 [+3.0, +7.0] {b}"
    assert n01[3] == f"undecided +1.1 [-1.0, +3.2] {a}"  # 100 groups in a-search over 50 in b-expert
    assert n01[4] == f"moving {b}"
    assert n01[5] == "–"
    n02 = rows["N02"]
    assert n02[1] == f"undecided +2.5 [-0.5, +5.5] {a}" and n02[2] == f"**balanced** +0.0 [-1.5, +1.5] {b}"
    assert n02[3] == "–" and n02[4] == "–"  # no study at lookahead, no ladder reading
    assert n02[5] == f"3 -> 5 gold (was underpriced) {bal}"
    assert rows["N03"][4] == f"not settled {b}"
    assert rows["N03"][5].startswith("not balanced within the limits") and rows["N03"][5].endswith(bal)
    assert rows["N19"][1] == f"**disfavoured** (dead) -0.1 [-0.2, +0.1] {a}"
    assert rows["king_plus1"][1] == f"**favoured** +5.2 [+2.7, +7.7] {a}"
    assert "`greedy` (the reference), `expert` +312 Elo" in text  # the ladder's rungs with their strength


def test_every_noble_of_the_set_is_listed_even_unplayed(source: Path, tmp_path: Path) -> None:
    text = publish(source, tmp_path / "out").read_text()
    _header, rows = _table(text, "## Every noble and privilege (2 players)")
    game = get_game()
    nobles = game.taken_ids(game.load_components(None))
    assert len(nobles) > 10
    listed = [key for key in rows if key in set(nobles)]
    assert listed == nobles  # every one, in the set's order
    unplayed = [n for n in nobles if n not in ("N01", "N02", "N03", "N19")]
    for noble in unplayed:
        assert rows[noble][1:] == ["–"] * 5, noble
    keys = list(rows)
    assert keys.index("king_plus1") > keys.index(nobles[-1])  # the privilege kinds after the nobles


def test_a_component_set_that_cannot_be_read_lists_the_nobles_played(source: Path, tmp_path: Path) -> None:
    doc = json.loads((source / "a-search" / "study.json").read_text())
    doc["rules"]["components"] = str(tmp_path / "gone.toml")
    (source / "a-search" / "study.json").write_text(json.dumps(doc))
    (source / "b-expert" / "study.json").unlink()
    text = publish(source, tmp_path / "out").read_text()
    _header, rows = _table(text, "## Every noble and privilege (2 players)")
    assert [k for k in rows if k.startswith("N")] == ["N01", "N02", "N03", "N19"]
    assert "a-search: its component set" in text and "could not be read" in text


def test_undecided_shares_per_study_and_level(source: Path, tmp_path: Path) -> None:
    text = publish(source, tmp_path / "out").read_text()
    section = text[text.index("## Undecided per level") : text.index("## Time")]
    lines = [line for line in section.splitlines() if line.startswith("| [")]
    by = {(line.split(" | ")[0][2:], line.split(" | ")[1]): line.split(" | ", 2)[2] for line in lines}
    assert by[("[a-search](a-search/study.md)", "`greedy`")] == "2 of 5 | 40% **above 30%** |"
    assert by[("[a-search](a-search/study.md)", "`lookahead:budget=8`")] == "1 of 1 | 100% **above 30%** |"
    assert by[("[b-expert](b-expert/study.md)", "`expert`")] == "0 of 2 | 0% |"
    assert by[("[seats](seats/study.md)", "`greedy`")] == "3 of 10 | 30% |"  # at the goal, not above it
    # a balance search's validation: what decides whether its proposal holds
    assert by[("[balance](balance/balance.md) (validation)", "`greedy`")] == "1 of 2 | 50% **above 30%** |"
    assert "Undecided on validation: 1 of 2 rows (not shown balanced)." in text
    # the table's own cells per level: greedy N01 (b), N02, N03, N19, king_plus1 (a): three undecided of five
    assert "| *every noble and privilege (the table above, 2 players)* | `greedy` | 3 of 5 | 60% **above 30%** |" in (
        section
    )


def test_time_sums_the_recorded_seconds(source: Path, tmp_path: Path) -> None:
    text = publish(source, tmp_path / "out").read_text()
    _header, rows = _table(text, "## Time")
    a = rows["[a-search](a-search/study.md)"]
    assert a[1:] == ["800", "1,100 s (18 min)", "2,080 s (35 min)", "2"]
    b = rows["[b-expert](b-expert/study.md)"]
    assert b[1:] == ["1,200", "3,650 s (1 h 01 min)", "not recorded", "not recorded"]
    assert rows["[balance](balance/balance.md)"][2] == "40 s"
    total = rows["**all**"]
    assert total[1] == "**2,900**" and total[2] == "**4,800 s (1 h 20 min)**"
    assert total[3] == "not recorded for every study"


def test_merged_levels_keep_each_studys_order() -> None:
    assert merged_levels([["greedy", "lookahead"], ["greedy", "expert", "lookahead"]]) == [
        "greedy", "expert", "lookahead"]  # fmt: skip
    assert merged_levels([["b", "c"], ["a", "b"]]) == ["a", "b", "c"]
    assert merged_levels([["x", "y"], ["y", "x"]]) == ["x", "y"]  # contradicting studies: first appearance


def test_publish_on_a_published_copy_and_bad_input(source: Path, tmp_path: Path, capsys) -> None:
    first = publish(source, tmp_path / "one")
    again = publish(tmp_path / "one", tmp_path / "two")  # a published directory is a source too
    assert again.read_text() == first.read_text()
    assert sorted(p.name for p in (tmp_path / "two" / "a-search").iterdir()) == ["charts", "study.json", "study.md"]
    assert main([str(tmp_path / "missing"), str(tmp_path / "three")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    (source / "seats" / "study.json").write_text("[1, 2]")
    assert main([str(source), str(tmp_path / "four")]) == 1
    assert "not a study document" in capsys.readouterr().err


def test_publish_drops_studies_the_source_no_longer_has(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "published"
    _study(target / "seats-ladder", ["greedy"], [], {})  # published by an earlier make reports, since withdrawn
    (target / "notes").mkdir()  # not a study: left alone
    (target / "notes" / "keep.md").write_text("mine")
    publish(source, target)
    assert not (target / "seats-ladder").exists()
    assert (target / "notes" / "keep.md").read_text() == "mine"
    assert (target / "a-search" / "study.json").exists() and (target / "balance" / "balance.json").exists()


def test_an_installment_is_published_beside_the_studies_already_published(source: Path, tmp_path: Path) -> None:
    """A study played on another machine (a fresh runs/ holding only it) joins the published ones: publishing from
    its directory alone would withdraw every other study."""
    published = tmp_path / "published"
    publish(source, published)
    installment = tmp_path / "cluster"
    _study(installment / "seats", ["greedy", "expert"], [_row("1", "expert", "favoured", 9.0, [7.0, 11.0], 3000,
           subject="seat")], {"expert": {"games": 6000, "seconds": 60.0}}, study="seats")  # fmt: skip
    assert main([str(published), str(installment), str(published)]) == 0
    assert sorted(p.name for p in published.iterdir() if p.is_dir()) == ["a-search", "b-expert", "balance", "seats"]
    assert json.loads((published / "seats" / "study.json").read_text())["strategies"] == ["greedy", "expert"]
    assert "6,000" in (published / "README.md").read_text()  # the index reads the installment's seats study
    publish(installment, published)  # one source: what it lacks is withdrawn, as make reports relies on
    assert sorted(p.name for p in published.iterdir() if p.is_dir()) == ["seats"]


def test_a_layout_blocks_unbalanced_row_counts_as_decided(tmp_path: Path) -> None:
    src = tmp_path / "studies"
    _study(src / "layouts", ["greedy"], [
        _row("room in the centre", "greedy", "unbalanced", 3.1, [2.2, 4.0], 10000, subject="layout_block"),
        _row("rooms next to the Stairway", "greedy", "undecided", 1.1, [0.0, 3.7], 10000, subject="layout_block"),
    ], {"greedy": {"games": 12200, "seconds": 170.0}}, study="layouts")  # fmt: skip
    text = publish(src, tmp_path / "out").read_text()
    assert "layout_block room in the centre, `greedy`: unbalanced, +3.1 pp [+2.2, +4.0]" in text
    assert "Undecided: 1 of 2 rows" in text


def test_a_seats_study_at_several_levels_is_one_table_a_row_per_seat_and_a_column_per_level(tmp_path: Path) -> None:
    """How a seat's verdict moves with strength reads along a line (it was a list of verdicts "at one level only",
    sorted by seat, 37 lines for the standard seats study); a nobles study's rows stay in the overview."""
    src = tmp_path / "studies"
    rows = [_row("1", "greedy", "undecided", -2.5, [-3.3, -1.7], 6000, subject="seat", players=2),
            _row("1", "expert", "favoured", 11.9, [11.0, 12.8], 6000, subject="seat", players=2),
            _row("1", "lookahead", "favoured", 4.3, [3.5, 5.2], 6000, subject="seat", players=2),
            _row("1", "greedy", "balanced", -0.3, [-1.0, 0.3], 6000, subject="seat", players=3),
            _row("0", "expert", "disfavoured", -3.1, [-3.8, -2.5], 6000, subject="start_gold", players=3,
                 robust=True)]  # fmt: skip
    _study(src / "seats", ["greedy", "lookahead", "expert"], rows, {}, study="seats")
    text = publish(src, tmp_path / "out").read_text()
    summary = text[text.index("## [seats]") :]
    header, _ = _table(summary, "Every row at every skill level")
    assert header == ["players", "row", "`greedy`", "`lookahead`", "`expert`", "robust"]  # the study's own order
    table = [[c.strip() for c in line.strip("|").split("|")] for line in summary.splitlines()
             if re.match(r"\| \d ", line)]  # fmt: skip
    assert [r[:2] for r in table] == [["2", "seat 1"], ["3", "seat 1"], ["3", "start_gold 0"]]
    assert table[0][2:] == ["undecided -2.5 [-3.3, -1.7]", "**favoured** +4.3 [+3.5, +5.2]",
                            "**favoured** +11.9 [+11.0, +12.8]", ""]  # fmt: skip
    assert table[2][2:] == ["–", "–", "**disfavoured** -3.1 [-3.8, -2.5]", "yes"]
    assert "At one skill level only" not in summary


def test_both_games_studies_are_published_under_one_index(source: Path, tmp_path: Path) -> None:
    """Tiny real studies of Palastgefluester (persons, seats) beside Palais Royal's (a real seats study and the fake
    nobles studies): both games' rows in the undecided table, Palastgefluester's overview naming its own studies
    only (the game each study.json records) and every person it played with its verdict."""
    from typer.testing import CliRunner

    from palais_sim.cli import app

    tiny = ["--groups", "4", "--workers", "1", "--seed", "5"]
    for args in (
        ["persons", "--out", str(source / "pg-persons"), "--players", "3", "--persons", "zofe,hofnarr",
         "--strategy", "heuristic"],
        ["seats", "--game", "palastgefluester", "--out", str(source / "pg-seats"), "--players", "3",
         "--strategy", "heuristic"],
        ["seats", "--out", str(source / "pr-seats"), "--players", "2", "--strategy", "greedy"],
    ):  # fmt: skip
        result = CliRunner().invoke(app, ["study", *args, *tiny])
        assert result.exit_code == 0, result.output
    text = publish(source, tmp_path / "out").read_text()
    shares = {tuple(line.split(" | ")[:2]): line for line in text.splitlines() if line.startswith("| ")}
    for study, level in (("pg-persons", "heuristic"), ("pg-seats", "heuristic"), ("pr-seats", "greedy"),
                         ("a-search", "greedy")):  # fmt: skip
        assert (f"| [{study}]({study}/study.md)", f"`{level}`") in shares, study
    assert ("| *Palastgeflüster: every person (the table above, 3 players)*", "`heuristic`") in shares
    assert "## Every noble and privilege (2 players)" in text  # Palais Royal's overview is still there
    overview = text[text.index("## Palastgeflüster\n") : text.index("## Undecided per level")]
    assert "[pg-persons](pg-persons/study.md), [pg-seats](pg-seats/study.md)." in overview
    assert "pr-seats" not in overview and "a-search" not in overview
    header, rows = _table(overview, "### Every person (3 players)")
    assert header == ["person", "`heuristic`"]
    played = json.loads((source / "pg-persons" / "study.json").read_text())["rows"]
    names = {"zofe": "Zofe", "hofnarr": "Hofnarr"}  # display names, in the game's order of persons
    assert list(rows) == ["Zofe", "Hofnarr"]
    for row in played:
        assert rows[names[row["key"]]][1].startswith(row["verdict"] if row["verdict"] == "undecided"
                                                     else f"**{row['verdict']}**")  # fmt: skip
        assert rows[names[row["key"]]][1].endswith("¹")
    assert (tmp_path / "out" / "pg-seats" / "study.json").exists() and "## [pg-persons](pg-persons/study.md)" in text
