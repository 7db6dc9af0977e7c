"""Reports on real runs as a reviewer meets them: settings and a summary at the top, every section with content,
the run checked against its manifest (what is missing said at the top and on the console, a damaged or empty run
refused in one line), stable text, charts that fit and explain themselves, and reports that never overwrite the
report of another run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from matplotlib.text import Text
from typer.testing import CliRunner

from palais_sim import build_info
from palais_sim.analytics import charts, report, report_format, sections_common, winrates
from palais_sim.analytics.runs import RunError, open_run
from palais_sim.cli import app
from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.analysis import charts as pr_charts
from palais_sim.games.palais_royal.analysis import nobles, setup_balance
from palais_sim.tournament import records
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings
from strategies.palais_royal.greedy import GreedyStrategy
from tests.cli_errors import one_error_line as one_line
from tests.run_dirs import unmark_chunk


class Broken:
    """Fails at its first decision, in every game."""

    name = "broken"

    def choose(self, view, decision):
        raise RuntimeError("nope")


def settings(**kw) -> Settings:
    base = {"games": 60, "players": 2, "strategies": ("greedy", "economy", "seals"), "seed": 3, "max_rounds": 30}
    return Settings(**{**base, **kw})


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "styles"
    run(settings(), out, workers=1, chunk_size=20, progress=False)
    return out


def copy_of(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def report_cli(*args: str):
    return CliRunner().invoke(app, ["report", *args])


# ------------------------------------------------------------------------------------------ the report's content


def test_report_opens_with_settings_and_a_summary_and_every_section_has_content(real: Path, tmp_path: Path) -> None:
    result = report_cli("all", str(real), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "report.md").read_text()
    headings = ("## Run", "## Summary", "## Games", "## Win rates", "## Scores", "## Head to head", "## Nobles",
                "## Seat advantage", "## Room layout")  # fmt: skip
    order = [text.index(h) for h in headings]
    assert order == sorted(order)
    settings_block = text[text.index("## Run") : text.index("## Summary")]
    compiled = f"compiled: {'yes' if build_info()['compiled'] else 'no'}"
    weight = f"gold_weight={GreedyStrategy.parameters()['gold_weight']}"  # greedy's (tuned) default
    for needle in ("| strategies | `greedy`, `economy`, `seals` |", "round-robin, seats rotated", "| root seed | 3 |",
                   "| layout | random |", "| gold limit | unlimited |", "| max rounds | 30 |", compiled,
                   "| games | 60 read of 60 planned |", weight):  # fmt: skip
        assert needle in settings_block, needle
    summary = text[text.index("## Summary") : text.index("## Games")]
    assert summary.count("\n- ") == 4  # games, strategies, nobles, seats
    assert "60 games played" in summary and "wins most" in summary and "Seat advantage at 2 players" in summary
    games = text[text.index("## Games") : text.index("## Win rates")]
    assert "| 2 | 60 | 0 |" in games and "](charts/game_length.png)" in games
    scores = text[text.index("## Scores") : text.index("## Head to head")]
    assert scores.count("| 2 | `") == 3 and "](charts/scores.png)" in scores
    assert "**Warning:**" not in text  # nothing is missing from this run


def test_head_to_head_lists_each_pair_once(real: Path, tmp_path: Path) -> None:
    assert report_cli("winrates", str(real), "--out", str(tmp_path)).exit_code == 0
    text = (tmp_path / "winrates.md").read_text()
    block = text[text.index("## Head to head") :].split("\n\n")[2]
    rows = [line for line in block.splitlines() if line.startswith("| `")]
    pairs = [frozenset(cell.strip(" `") for cell in row.split("|")[1:3]) for row in rows]
    assert len(pairs) == len(set(pairs)) == 3  # greedy/economy, greedy/seals, economy/seals
    shares = [float(row.split("|")[4].split("%")[0]) for row in rows]
    assert all(s >= 50 for s in shares) and shares == sorted(shares, reverse=True)


def test_the_same_run_gives_the_same_text(real: Path, tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert report_cli("all", str(real), "--out", str(tmp_path / name)).exit_code == 0
    assert (tmp_path / "a" / "report.md").read_text() == (tmp_path / "b" / "report.md").read_text()


def test_sorting_is_complete_on_ties() -> None:
    rows = [("b", "a", 0.5), ("a", "b", 0.5), ("c", "a", 0.6), ("a", "c", 0.4), ("c", "b", 0.6), ("b", "c", 0.4)]
    frames = [pl.DataFrame(rows, schema=["strategy", "opponent", "ahead"], orient="row")[list(order)]
              for order in ([0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 0, 4, 1, 5, 3])]  # fmt: skip
    shown = [sections_common.head_to_head_pairs(f).rows() for f in frames]
    assert shown[0] == shown[1] == shown[2] == [("c", "a", 0.6), ("c", "b", 0.6), ("a", "b", 0.5)]


def test_win_lift_interval_is_cut_at_100_pp() -> None:
    row = {"lift": 0.9, "lift_ci_low": 0.6, "lift_ci_high": 1.2}
    assert report_format.lift_with_ci(row) == "+90.0 pp [+60.0, +100.0]"
    row = {"lift": -0.95, "lift_ci_low": -1.3, "lift_ci_high": -0.6}
    assert report_format.lift_with_ci(row) == "-95.0 pp [-100.0, -60.0]"


def test_json_draws_no_chart(real: Path, tmp_path: Path) -> None:
    result = report_cli("all", str(real), "--out", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    assert "no charts" in result.output and not (tmp_path / "charts").exists()
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["charts"] == {} and data["settings"]["root seed"] == "3" and len(data["summary"]) == 4


def test_two_runs_of_the_same_name_get_two_report_directories(real: Path, tmp_path: Path, monkeypatch) -> None:
    other = copy_of(real, tmp_path / "elsewhere" / real.name)
    monkeypatch.chdir(tmp_path)
    assert report_cli("setup", str(real)).exit_code == 0
    assert report_cli("setup", str(other)).exit_code == 0
    first, second = tmp_path / "reports" / real.name, tmp_path / "reports" / f"{real.name}-2"
    assert json.loads((first / report.MARKER).read_text())["run"] == str(real.resolve())
    assert json.loads((second / report.MARKER).read_text())["run"] == str(other.resolve())
    assert report_cli("setup", str(real)).exit_code == 0  # the same run again: its own directory, not a third
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == [real.name, f"{real.name}-2"]


def test_a_fixed_layout_run_draws_no_castle(tmp_path: Path) -> None:
    out = tmp_path / "fixed"
    run(settings(games=20, rules={"layout": "first-game"}), out, workers=1, progress=False)
    result = report_cli("setup", str(out), "--out", str(tmp_path / "rep"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "setup.md").read_text()
    assert "No castle picture" in text and "PMS/KGD/COB" in text and "castle.png" not in text
    assert not (tmp_path / "rep" / "charts" / "castle.png").exists()


# ----------------------------------------------------------------------------------- the run against its manifest


def test_a_missing_chunk_file_is_said_at_the_top_and_on_the_console(real: Path, tmp_path: Path) -> None:
    damaged = copy_of(real, tmp_path / "damaged")
    (damaged / "seats" / "chunk-000001.parquet").unlink()
    result = report_cli("all", str(damaged), "--out", str(tmp_path / "rep"))
    assert result.exit_code == 0, result.output
    assert "warning: Damaged run" in result.stderr and "chunk 1 (seats missing)" in result.stderr
    text = (tmp_path / "rep" / "report.md").read_text()
    top = text[: text.index("## Run")]
    assert "**Warning:** Damaged run" in top and "palais simulate --out" in top
    assert "| games | 40 read of 60 planned |" in text  # the whole chunk is left out, not only its seat rows
    checked = open_run(damaged)
    assert checked.summary["games"] == 40 and checked.summary["seat_rows"] == 80


def test_an_unfinished_run_is_said_at_the_top(real: Path, tmp_path: Path) -> None:
    cut = copy_of(real, tmp_path / "cut")
    manifest = json.loads((cut / "manifest.json").read_text())
    manifest["state"] = "interrupted"
    (cut / "manifest.json").write_text(json.dumps(manifest))
    unmark_chunk(cut, 2)
    for table in ("games", "seats", "recruits"):
        (cut / table / "chunk-000002.parquet").unlink()
    result = report_cli("all", str(cut), "--out", str(tmp_path / "rep"))
    assert result.exit_code == 0, result.output
    assert "warning: Incomplete run: 1 of 3 chunks (20 of 60 games)" in result.stderr
    assert "**Warning:** Incomplete run" in (tmp_path / "rep" / "report.md").read_text()


def test_chunks_complete_on_disk_but_not_marked_done_are_counted_and_said(real: Path, tmp_path: Path) -> None:
    killed = copy_of(real, tmp_path / "killed")
    unmark_chunk(killed, 2)  # a killed parent never marked it
    checked = open_run(killed)
    assert checked.summary["games"] == 60
    assert any("not marked done" in p for p in checked.problems)


def test_a_run_that_never_finished_a_chunk_is_one_line(real: Path, tmp_path: Path) -> None:
    empty = copy_of(real, tmp_path / "empty")
    for table in ("games", "seats", "recruits"):
        shutil.rmtree(empty / table)
        (empty / table).mkdir()
    assert "no complete chunk" in one_line(report_cli("all", str(empty)))


def test_a_truncated_chunk_is_one_line_and_a_non_zero_exit(real: Path, tmp_path: Path) -> None:
    damaged = copy_of(real, tmp_path / "truncated")
    chunk = damaged / "seats" / "chunk-000001.parquet"
    chunk.write_bytes(chunk.read_bytes()[:300])
    line = one_line(report_cli("all", str(damaged), "--out", str(tmp_path / "rep")))
    assert str(chunk) in line and "truncated or unreadable" in line and "--resume" in line
    with pytest.raises(RunError):
        open_run(damaged)


def test_a_resume_plays_a_damaged_chunk_again(real: Path, tmp_path: Path) -> None:
    damaged = copy_of(real, tmp_path / "damaged")
    chunk = damaged / "recruits" / "chunk-000000.parquet"
    chunk.write_bytes(chunk.read_bytes()[:300])
    summary = run(settings(), damaged, workers=1, resume=True, progress=False)
    assert summary.played_now == 20
    for table in ("games", "seats", "recruits"):
        assert pl.read_parquet(damaged / table).equals(pl.read_parquet(real / table))
    assert report_cli("all", str(damaged), "--out", str(tmp_path / "rep")).exit_code == 0


def test_a_run_where_every_game_failed_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    out = tmp_path / "failed"
    summary = run(settings(games=6, strategies=(f"{__name__}:Broken", "greedy")), out, workers=1, progress=False)
    assert summary.errors == summary.games == 6
    line = one_line(report_cli("all", str(out)))
    assert "every one of the 6 games" in line and "failed" in line and "nope" in line


# ------------------------------------------------------------------------------------------ the charts


def _cut_off(fig) -> list[str]:
    """What of the drawn figure lies outside it (would be cut off in the PNG): its texts, or 'something'."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.get_tightbbox(renderer)  # inches, every artist that is drawn
    width, height = fig.get_figwidth(), fig.get_figheight()
    if box.x0 >= -0.01 and box.y0 >= -0.01 and box.x1 <= width + 0.01 and box.y1 <= height + 0.01:
        return []
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()] or ["something"]


def test_charts_fit_and_explain_their_colours(real: Path) -> None:
    r = open_run(real)
    s = setup_balance.compute(r)
    n = nobles.compute(r)
    figures = {
        "seats": charts.seat_bars(s.seats),
        "nobles": pr_charts.noble_value(n.nobles, n.mean_ratio),
        "castle": pr_charts.castle(s.positions, 0.02),
        "scores": charts.score_distribution(sections_common.score_table(r)),
        "length": charts.game_length(sections_common.game_tables(r)[1]),
    }
    for name, fig in figures.items():
        assert not _cut_off(fig), name
    seats_legend = [t.get_text() for t in figures["seats"].legends[0].get_texts()]
    assert "fair share 1/P" in seats_legend and any("flagged" in t for t in seats_legend)
    ax = figures["nobles"].axes[0]
    labelled = {a.get_text().split(" ")[0] for a in ax.texts}
    shown = n.nobles.filter(pl.col("points_associated").is_not_nan())["noble"].to_list()
    assert labelled == set(shown)  # every noble named
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    privileges = {p for p in n.nobles["privilege"].to_list() if p}
    taken = set(n.nobles.filter(pl.col("points_associated").is_not_nan())["privilege"].drop_nulls().to_list())
    assert taken <= set(legend) and "no privilege" in legend and taken <= privileges
    # the castle is drawn in percentage points, relative to the given centre, and its colour bar says so
    castle = figures["castle"]
    first = castle.axes[0].images[0].get_array().compressed()
    gate = s.positions.filter(pl.col("code") == "G").sort("cell")
    expected = 100 * (gate.filter(pl.col("distinguishable"))["effect"].to_numpy() - 0.02)
    assert np.allclose(np.sort(first), np.sort(expected))  # only the cells that differ from the centre are coloured
    bar = castle.axes[-1]
    assert "percentage points" in bar.get_ylabel()
    assert all(t.get_text().endswith(" pp") for t in bar.get_yticklabels() if t.get_text())


# ------------------------------------------------------------------------------------------ the Parquet columns


def test_every_column_is_documented_in_the_files(real: Path) -> None:
    """Each chunk file carries its columns' meanings (the manual's tables: tests/test_docs.py)."""
    for table, columns in records.columns(get_game()).items():
        file = next((real / table).glob("*.parquet"))
        schema = pq.read_schema(file)
        assert schema.names == [c.name for c in columns]
        meta = pq.read_metadata(file).metadata
        assert meta[b"palais_sim.table"].decode() == table
        docs = json.loads(meta[b"palais_sim.columns"])
        for c in columns:
            assert c.meaning and docs[c.name]["meaning"] == c.meaning
            assert schema.field(c.name).metadata[b"description"].decode() == c.meaning
            assert docs[c.name]["numbered"] == c.base
    tables = records.columns(get_game())
    seat_columns = [(t, c.name) for t, cols in tables.items() for c in cols if c.name in ("seat", "winners")]
    assert all(next(c for c in tables[t] if c.name == n).base == "1-based" for t, n in seat_columns)


def test_the_report_names_the_cli_completes_are_those_the_registered_games_declare(monkeypatch) -> None:
    """`palais report WHICH` completes the registered games' report sections and all (a list of no game's own)."""
    from palais_sim.cli.report import section_names
    from palais_sim.core.game import load_attribute
    from palais_sim.core.games import ENV_VAR, game_names, get_game

    monkeypatch.setenv(ENV_VAR, "toy=tests.toygame.game:GAME")
    declared: set[str] = set()
    for name in game_names():
        declared |= set(load_attribute(get_game(name).report_sections))
    assert set(section_names()) == declared | {"all"} and section_names()[-1] == "all"


def test_a_report_section_only_a_registered_game_has_is_not_refused(tmp_path: Path, monkeypatch) -> None:
    """A new game's own report section is a WHICH of its runs (the command line held a fixed list of names, which
    refused it), and a name the run's game has not is refused with one line naming its own."""
    from typer.testing import CliRunner

    from palais_sim.cli import app
    from palais_sim.core.games import ENV_VAR
    from tests.test_game_conformance import simulated_and_reported
    from tests.toygame.analysis import sections as toy_report

    monkeypatch.setenv(ENV_VAR, "toy=tests.toygame.game:GAME")
    monkeypatch.setitem(toy_report.SECTIONS, "race", toy_report.SECTIONS["setup"])
    assert "Seats" in simulated_and_reported("toy", "race", tmp_path).read_text()
    refused = CliRunner().invoke(app, ["report", "nobles", str(tmp_path / "run"), "--out", str(tmp_path / "rep2")])
    assert refused.exit_code == 2 and "a toy run has no nobles report; its reports: winrates, setup, race or all" in (
        refused.output
    )


def test_signed_tick_labels_are_distinct_and_as_precise_as_their_step() -> None:
    """The layout colour bar read "+2, +1, +0, +0, -0, -1, -2 pp", the demo's "+10, +8, +5, +2, +0"."""
    assert charts.signed_labels([-2.5, -1.25, 0.0, 1.25, 2.5], "pp") == ["-2.50 pp", "-1.25 pp", "0 pp", "+1.25 pp",
                                                                         "+2.50 pp"]  # fmt: skip
    assert charts.signed_labels([10.0, 7.5, 5.0, 2.5, -0.0]) == ["+10.0", "+7.5", "+5.0", "+2.5", "0"]


def test_the_castle_colour_bar_and_the_interval_legends_say_what_they_show(real: Path) -> None:
    r = open_run(real)
    s = setup_balance.compute(r)
    castle = pr_charts.castle(s.positions, 0.02)
    castle.canvas.draw()
    bar = [t.get_text() for t in castle.axes[-1].get_yticklabels() if t.get_text()]
    assert len(bar) == len(set(bar)) >= 3 and "-0 pp" not in bar and "+0 pp" not in bar, bar
    # the intervals are clustered on the rotation groups (the captions say so): no legend or label says Wilson
    for fig in (charts.seat_bars(s.seats), charts.forest(winrates.compute(r).strategies)):
        texts = [t.get_text() for t in fig.findobj(Text)]
        assert not any("Wilson" in t for t in texts), texts


def test_no_noble_label_covers_a_point() -> None:
    """Ten nobles of one cost spread 0.45 sideways, and their labels, right of the column, covered the points of the
    next cost. The nobles of the demo run (make demo: 1,000 games, seed 1), as its nobles section computes them."""
    from matplotlib.collections import PathCollection

    df = pl.read_csv(Path(__file__).parent / "data" / "demo_nobles.csv")
    fig = pr_charts.noble_value(df, 1.35)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    points = np.vstack([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    shown = ax.transData.transform(np.asarray(points, dtype=float))
    covered = [
        text.get_text() for text in ax.texts  # the label's own box, without the line to its point
        if any(Text.get_window_extent(text, renderer).contains(x, y) for x, y in shown)
    ]  # fmt: skip
    assert covered == []
