"""Positions and replay logs of Palastgeflüster round-trip exactly and are JSON-friendly."""

from __future__ import annotations

import json

import pytest

from palais_sim.games.palastgefluester.notation import (
    NotationError,
    ReplayRecorder,
    export_position,
    import_position,
    replay,
)
from palais_sim.games.palastgefluester.play import continue_game, play_game
from palais_sim.games.palastgefluester.rules import new_game
from palais_sim.games.palastgefluester.state import PgOptions
from strategies.common.random_play import RandomStrategy


def players(n: int) -> list[RandomStrategy]:
    return [RandomStrategy() for _ in range(n)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_position_of_a_game_round_trips_through_json_and_plays_on_identically(n: int) -> None:
    positions = []
    play_game(PgOptions(players=n), 40 + n, players(n), observer=lambda before, d, c: positions.append(before))
    assert len(positions) > 20
    for state in positions[:: max(1, len(positions) // 8)]:
        data = json.loads(json.dumps(export_position(state)))
        back = import_position(data)
        assert export_position(back) == export_position(state)
        a = continue_game(state.copy(), players(n))
        b = continue_game(back, players(n))
        assert export_position(a.final_state) == export_position(b.final_state)


def test_a_replay_log_plays_back_and_catches_a_changed_choice() -> None:
    start = new_game(PgOptions(players=4, tiebreak="noted"), 77)
    recorder = ReplayRecorder(start.copy(), ["random"] * 4)
    result = continue_game(start, players(4), observer=recorder.record)
    log = json.loads(json.dumps(recorder.finish(result.final_state)))
    final = replay(log)
    assert final.points == result.final_state.points and final.winners == result.winners
    assert len(log["decisions"]) == result.decisions
    broken = json.loads(json.dumps(log))
    seat, kind, choice = broken["decisions"][0]
    broken["decisions"][0] = [seat, kind, 999]
    with pytest.raises(NotationError, match="illegal play choice"):
        replay(broken)
    broken = json.loads(json.dumps(log))
    broken["result"]["points"][0] += 1
    with pytest.raises(NotationError, match="result"):
        replay(broken)


def test_import_rejects_a_position_that_loses_a_card() -> None:
    data = export_position(new_game(PgOptions(players=3), 5))
    data["draw"] = data["draw"][1:]
    with pytest.raises(NotationError, match="once each"):
        import_position(data)
    with pytest.raises(NotationError, match="format"):
        import_position({"format": "x"})
