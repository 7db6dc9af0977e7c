"""Charts colour only what the games can tell apart from noise: planted layouts where one room's cell
really helps the start player, and layouts where nothing does."""

from __future__ import annotations

import numpy as np
import polars as pl

from palais_sim.analytics import charts
from palais_sim.games.palais_royal.analysis import charts as pr_charts
from palais_sim.games.palais_royal.analysis import setup_balance
from palais_sim.games.palais_royal.board import ROOM_CODES

FIRST_GAME = setup_balance.FIRST_GAME_DEFAULT


def _games(hot_share: float, seed: int = 7, layouts: int = 300, per_layout: int = 100) -> pl.DataFrame:
    """Two-player games on random layouts; the start player wins half of them, or ``hot_share`` of those where the
    Gate stands in the top-left cell."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(layouts):
        order = rng.permutation(list(ROOM_CODES))
        code = "/".join("".join(order[r * 3 : r * 3 + 3]) for r in range(3))
        share = hot_share if order[0] == "G" else 0.5
        rows.append({"players": 2, "layout": code, "n": per_layout, "win": float(rng.binomial(per_layout, share))})
    return pl.DataFrame(rows)


def test_a_planted_hot_cell_is_found_and_its_interval_excludes_the_centre() -> None:
    pos = setup_balance.finish_positions(_games(0.75), FIRST_GAME)
    hot = pos.filter((pl.col("code") == "G") & (pl.col("cell") == 0)).row(0, named=True)
    assert hot["distinguishable"] and hot["ci_low"] > 0
    assert hot["effect"] - hot["centre"] == (pos["effect"] - pos["centre"]).max()
    assert (pos["ci_low"] <= pos["effect"] - pos["centre"]).all() and (
        pos["effect"] - pos["centre"] <= pos["ci_high"]
    ).all()
    # every game puts each room somewhere: the centre is each room's games-weighted mean
    gate = pos.filter(pl.col("code") == "G")
    assert np.isclose((gate["effect"] * gate["games"]).sum() / gate["games"].sum(), hot["centre"])


def test_without_an_effect_no_cell_is_coloured() -> None:
    pos = setup_balance.finish_positions(_games(0.5), FIRST_GAME)
    assert len(pos) == 81 and pos["games"].min() > 1000 // 9  # about 100+ games a cell: noise of several pp
    assert not pos["distinguishable"].any(), "Holm over 81 cells keeps chance hot spots uncoloured"
    fig = pr_charts.castle(pos, float(pos["centre"][0]))
    coloured = sum(ax.images[0].get_array().count() for ax in fig.axes[:9])
    assert coloured == 0
    note = " ".join(t.get_text() for t in fig.texts)
    assert "0 of 81 cells" in note and "Holm" in note


def test_the_chart_frames_exactly_the_distinguishable_cells() -> None:
    pos = setup_balance.finish_positions(_games(0.75), FIRST_GAME)
    fig = pr_charts.castle(pos, float(pos["centre"][0]))
    coloured = sum(ax.images[0].get_array().count() for ax in fig.axes[:9])
    assert coloured == int(pos["distinguishable"].sum()) >= 1


def test_head_to_head_colours_only_pairs_that_differ_from_even() -> None:
    h2h = pl.DataFrame(
        {
            "strategy": ["a", "a", "b", "b", "c", "c"],
            "opponent": ["b", "c", "a", "c", "a", "b"],
            "ahead": [0.80, 0.55, 0.20, 0.52, 0.45, 0.48],
            "p_holm": [0.001, 0.40, 0.001, 0.90, 0.40, 0.90],
        }
    )
    fig = charts.head_to_head(h2h)
    image = fig.axes[0].images[0].get_array()
    assert image.count() == 2  # a-b and b-a; the four others pale
    assert sorted(np.round(image.compressed(), 2)) == [0.2, 0.8]
    fig.savefig("/dev/null", format="png")
