"""The golden random playthroughs of Palastgeflüster replay identically (every decision and its option count).

If a reviewed rule change was intended, regenerate with ``python -m palais_sim.games.palastgefluester.playthroughs``
and commit the diff of ``tests/playthroughs/palastgefluester/*.txt``.
"""

from __future__ import annotations

import difflib

import pytest

from palais_sim.games.palastgefluester.playthroughs import DIRECTORY, PLAYTHROUGHS, playthrough_text

HINT = "run `python -m palais_sim.games.palastgefluester.playthroughs` if a reviewed rule change was intended"


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_playthrough_regenerates_identically(name: str) -> None:
    committed = (DIRECTORY / f"{name}.txt").read_text(encoding="utf-8")
    fresh = playthrough_text(name)
    if fresh != committed:
        diff = "".join(list(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True), n=2))[:60])
        pytest.fail(f"playthrough {name} changed; {HINT}:\n{diff}")


def test_the_playthroughs_cover_every_decision_kind_and_player_count() -> None:
    text = "".join((DIRECTORY / f"{name}.txt").read_text(encoding="utf-8") for name in PLAYTHROUGHS)
    kinds = {line.split()[2] for line in text.splitlines() if line.startswith("d")}
    assert kinds == {"play", "next", "swap", "guard", "discard", "wizard", "give", "partner_give"}
    assert {g.players for g in PLAYTHROUGHS.values()} == {3, 4, 5}
    assert {g.tiebreak for g in PLAYTHROUGHS.values()} == {"display", "noted"}
