"""The pages as a reader sees them: headings without raw Markdown, charts shown at a legible size, wide tables that
scroll, every colour of a study chart in its legend, no chart text on another, titles that fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.collections import LineCollection
from matplotlib.colors import to_hex
from matplotlib.text import Text
from PIL import Image

from palais_sim.analytics import charts
from palais_sim.analytics.report_render import CHART_PX_PER_INCH, Table, html_page
from palais_sim.study import charts as study_charts


def _row(key: int, verdict: str, effect: float, players: int = 2, strategy: str = "greedy") -> dict:
    return {"key": key, "players": players, "strategy": strategy, "verdict": verdict, "effect": effect,
            "ci": [effect - 3.0, effect + 3.0]}  # fmt: skip


def _overlaps(fig, a: Text, b: Text) -> bool:
    renderer = fig.canvas.get_renderer()
    return a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))


def _fits(fig) -> bool:
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())
    return (
        box.x0 >= -0.01
        and box.y0 >= -0.01
        and box.x1 <= fig.get_figwidth() + 0.01
        and box.y1 <= (fig.get_figheight() + 0.01)
    )


def test_a_heading_shows_code_not_backticks(tmp_path: Path) -> None:
    page = html_page("T", [("h", "Seats, `greedy`")], lambda name: tmp_path / name)
    assert '<h2>Seats, <code class="word">greedy</code></h2>' in page and "`" not in page


def test_a_chart_is_shown_at_a_legible_width_and_a_table_scrolls(tmp_path: Path) -> None:
    fig = charts.figure(7.0, 3.0)
    fig.add_subplot().plot([0, 1], [0, 1])
    png = charts.save(fig, tmp_path, "line")["png"]
    blocks = [("chart", ("line", "a line")), ("table", Table(["`s` value", "b"], [["`x`", "1"]]))]
    page = html_page("T", blocks, lambda name: png)
    with Image.open(png) as image:
        pixels = image.size[0]
    shown = round(7.0 * CHART_PX_PER_INCH)
    assert f'width="{shown}"' in page and shown < pixels  # the print-resolution PNG, shown smaller
    assert '<div class="table"><table>' in page and '<td><code class="word">x</code></td>' in page
    assert '<th><code class="word">s</code> value</th>' in page and "`" not in page  # headers too: no raw backticks


def test_study_charts_are_print_resolution_with_titles_that_fit(tmp_path: Path) -> None:
    title = "Nobles and privilege kinds: what having it available is worth (pp of win share), at every skill level"
    rows = [_row(i, v, e) for i, (v, e) in enumerate([("favoured", 5.0), ("balanced", 0.0), ("undecided", 1.5)])]
    fig = study_charts.forest(rows, title, 2.0, label=lambda r: f"a long label for noble number {r['key']}")
    assert _fits(fig)
    path = study_charts.save(fig, tmp_path, "forest")
    with Image.open(path) as image:
        assert round(image.info["dpi"][0]) == charts.PNG_DPI and image.size[0] >= 1200


def test_the_seat_chart_names_every_colour_it_uses() -> None:
    rows = [_row(1, "favoured", 4.0), _row(2, "disfavoured", -4.0)]
    rows += [_row(s, "balanced" if s < 3 else "undecided", 0.5, players=3) for s in (1, 2, 3)]
    fig = study_charts.seat_chart(rows, "Seat edge in mirror play: greedy", 2.0)
    assert _fits(fig)
    legend = fig.legends[0]
    named = {to_hex(h.get_facecolor(), keep_alpha=False) for h in legend.get_patches()}
    used = {to_hex(bar.get_facecolor(), keep_alpha=False) for ax in fig.axes for bar in ax.patches}
    assert used and used <= named
    texts = {t.get_text() for t in legend.get_texts()}
    assert {"favoured", "disfavoured", "balanced", "undecided"} <= texts and any("band" in t for t in texts)


def test_the_head_to_head_note_is_clear_of_the_axis_label() -> None:
    h2h = pl.DataFrame({"strategy": ["a", "b", "a", "c"], "opponent": ["b", "a", "c", "a"],
                        "ahead": [0.8, 0.2, 0.55, 0.45], "p_holm": [0.001, 0.001, 0.5, 0.5]})  # fmt: skip
    fig = charts.head_to_head(h2h)
    assert _fits(fig)
    ax = fig.axes[0]
    notes = [t for t in fig.texts if "Holm" in t.get_text()]
    assert len(notes) == 1
    assert not _overlaps(fig, notes[0], ax.xaxis.label)
    assert not any(_overlaps(fig, notes[0], tick) for tick in ax.get_xticklabels())


def test_the_tallest_game_length_bar_is_clear_of_the_frame() -> None:
    hist = pl.DataFrame({"players": [2, 2, 2], "rounds": [12, 13, 14], "finished": [25, 250, 80],
                         "unfinished": [0, 0, 0]})  # fmt: skip
    ax = charts.game_length(hist).axes[0]
    top = max(bar.get_y() + bar.get_height() for bar in ax.patches)
    left = min(bar.get_x() for bar in ax.patches)
    right = max(bar.get_x() + bar.get_width() for bar in ax.patches)
    assert ax.get_ylim()[1] >= 1.05 * top
    assert ax.get_xlim()[0] < left - 0.2 and ax.get_xlim()[1] > right + 0.2


def test_the_ladder_chart_fits_and_names_its_band() -> None:
    rows = [_row(17, "undecided", e, strategy=s) for s, e in (("a", -2.0), ("b", 4.0), ("c", 4.0))]
    elos = {"a": 0.0, "b": 40.0, "c": 230.0}
    ylabel = "value: 1/P - win share when forbidden it (pp)"
    fig = study_charts.ladder_chart(rows, elos, "Noble value against player strength", 2.0, "{}", ylabel)
    assert _fits(fig)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "17" in legend and any("band" in t for t in legend)


def test_inline_markdown_becomes_html_emphasis_and_an_option_does_not_break() -> None:
    """The persons page showed "*without*" with its stars; "--validation-groups" broke across lines at a hyphen."""
    from palais_sim.analytics.report_render import CSS, inline_html

    text = inline_html("the *without* arm, **favoured**, `--validation-groups`, `*.parquet`, a * b, `palais x y`")
    assert "<em>without</em>" in text and "<strong>favoured</strong>" in text and "*" not in text.split("<code")[0]
    assert '<code class="word">--validation-groups</code>' in text and '<code class="word">*.parquet</code>' in text
    assert "a * b" in text and "<code>palais x y</code>" in text
    assert "code.word { white-space: nowrap; }" in CSS


def test_a_study_page_orders_its_levels_as_the_study_does_and_names_every_column() -> None:
    """The nobles ladder page sorted its rungs as text (budget=16, 32, 8: its line zigzagged), headed the state column
    with nothing, and gave an Elo interval from 20 setups without a word on the sample."""
    from palais_sim.study import ladder, render

    rungs = ("ismcts:budget=8", "ismcts:budget=16", "ismcts:budget=32")
    level = render.level_order(rungs)
    assert sorted(reversed(rungs), key=level) == list(rungs)
    assert sorted(["b", "ismcts:budget=8", "a"], key=level) == ["ismcts:budget=8", "a", "b"]  # unknown ones last
    assert all(header for header, _ in ladder.settling_columns() + ladder.strength_columns())

    class Spec:
        margin = 2.0

    for groups, says in ((20, True), (1000, False)):
        page = render.Page("T")
        ladder.strength_intro(page, Spec(), [], groups, "value")
        assert ("interval is wide" in render.to_markdown(page)) is says


def test_a_forest_of_few_rows_keeps_its_rows_off_the_frame() -> None:
    """The privilege chart of a small nobles study was squashed: its rows on the frame under a two-line title."""
    rows = [{"key": k, "strategy": "greedy", "effect": e, "ci": [e - 1, e + 1], "verdict": "undecided"}
            for k, e in (("gold", 1.0), ("seals", -3.0))]  # fmt: skip
    fig = study_charts.forest(rows, "Privilege kinds (every noble of the kind): the value of having it", 2.0)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert fig.get_figheight() >= 3.0 and low <= -0.5 and high >= len(rows) - 0.5


def _data_points(ax) -> np.ndarray:
    """Every drawn point of the axes' lines and collections (interval bars sampled along their length), in pixels."""
    points = [line.get_xydata() for line in ax.lines]
    for collection in ax.collections:
        if isinstance(collection, LineCollection):
            points += [np.linspace(seg[0], seg[-1], 25) for seg in collection.get_segments() if len(seg)]
        else:
            points.append(collection.get_offsets())
    return ax.transData.transform(np.vstack(points))


def test_the_win_rate_legend_covers_no_point_or_interval() -> None:
    """The demo report's win-rate chart put its legend ("best" place) over the lowest row's point and interval."""
    rates = {"economy": (0.729, 0.611, 0.847), "greedy": (0.583, 0.456, 0.711), "park": (0.448, 0.31, 0.586),
             "cards": (0.375, 0.25, 0.5), "seals": (0.365, 0.229, 0.5)}  # fmt: skip
    strategies = pl.DataFrame([{"strategy": s, "players": 2, "seats": 48, "win_rate": r, "ci_low": lo, "ci_high": hi,
                                "fair_share": 0.5} for s, (r, lo, hi) in rates.items()])  # fmt: skip
    fig = charts.forest(strategies)
    assert _fits(fig)
    ax = fig.axes[0]
    legend = fig.legends[0] if fig.legends else ax.get_legend()
    box = legend.get_window_extent(fig.canvas.get_renderer())
    covered = [p for p in _data_points(ax) if box.contains(*p)]
    assert covered == [], f"the legend covers {len(covered)} drawn points"


def test_the_castle_colour_bar_is_drawn_over_its_whole_scale() -> None:
    """The demo report's castle chart showed an empty white colour bar: ticks beyond the colour scale's ends (+-6 pp
    for a largest cell of 5 pp) stretched the bar's axis past the two-slope scale, which maps them to nothing."""
    import warnings

    from palais_sim.games.palais_royal.analysis import charts as pr_charts

    rows = [{"code": code, "cell": cell, "effect": 0.05 * (cell % 3 - 1), "games": 10, "ci_low": -0.2, "ci_high": 0.2,
             "distinguishable": cell == 4 and code in "MK"} for code in "GPSMKDOBC" for cell in range(9)]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the empty bar came with "invalid value" from its transform
        fig = pr_charts.castle(pl.DataFrame(rows))
        fig.canvas.draw()
    bar = fig.axes[-1]
    assert bar.get_ylim() == (-5.0, 5.0)
    ticks = [t for t in bar.get_yticks() if np.isfinite(t)]
    assert len(ticks) >= 3 and all(-5.0 <= t <= 5.0 for t in ticks)


def test_an_option_in_a_command_line_is_kept_whole_on_the_pages_and_in_the_manual() -> None:
    """The manual broke "--max-games 400 --workers 1" after a hyphen ("... -" / "-workers 1") and "--validation-looks"
    in running text: each option of an inline code span is wrapped in a span the CSS keeps on one line."""
    import importlib.util

    from palais_sim.analytics import report_render

    text = report_render.inline_html("`palais match a b --max-games 400 --workers 1` and `first-game`")
    assert '<span class="option">--max-games</span> 400 <span class="option">--workers</span> 1' in text
    assert '<code class="word">first-game</code>' in text and "code .option { white-space: nowrap; }" in (
        report_render.CSS
    )
    spec = importlib.util.spec_from_file_location("code_words", Path(__file__).parents[1] / "docs/hooks/code_words.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert hook.OPTION.pattern == report_render.OPTION.pattern
    page = hook.keep_options_whole("<p><code>x --out d</code></p><pre><code>palais --out d</code></pre>")
    assert page == '<p><code>x <span class="option">--out</span> d</code></p><pre><code>palais --out d</code></pre>'
