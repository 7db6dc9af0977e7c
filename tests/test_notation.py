"""Positions and replay logs: round trips, continuation, validation errors that name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from palais_sim.components import load_components
from palais_sim.engine.game import play_game, result_of, run_to_end
from palais_sim.engine.notation import (
    NotationError,
    ReplayWriter,
    export_position,
    import_position,
    verify_replay,
)
from palais_sim.engine.state import RuleOptions
from palais_sim.registry import load_strategies


def _play_with_snapshots(strategy: str, players: int, seed: int, turns: set[int], max_rounds: int = 100):
    snaps: dict[int, dict] = {}

    def hook(state) -> None:
        if state.turn_no in turns:
            snaps[state.turn_no] = json.loads(json.dumps(export_position(state)))

    options = RuleOptions(players=players, max_rounds=max_rounds)
    result = play_game(load_components(), options, seed, load_strategies(strategy, players), on_turn_start=hook)
    return result, snaps


@pytest.mark.parametrize("strategy", ["greedy", "random"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_position_exported_at_a_turn_start_continues_identically(strategy: str, players: int) -> None:
    for seed in range(3):
        result, snaps = _play_with_snapshots(strategy, players, seed, {1, 5, 17}, max_rounds=25)
        assert snaps, "snapshots were taken"
        for pos in snaps.values():
            state = import_position(pos)
            seats = load_strategies(strategy, players)
            run_to_end(state, seats)
            again = result_of(state, seats, 0)
            assert [s.total for s in again.scores] == [s.total for s in result.scores]
            assert again.rounds == result.rounds and again.finished == result.finished
            assert again.final_state.park == result.final_state.park


def test_position_round_trips_through_json() -> None:
    _, snaps = _play_with_snapshots("greedy", 3, 11, {9})
    pos = snaps[9]
    assert export_position(import_position(pos)) == pos


def test_position_has_the_documented_fields() -> None:
    _, snaps = _play_with_snapshots("greedy", 2, 5, {6})
    pos = snaps[6]
    for key in ("players", "layout", "start_seat", "current_seat", "round", "final_round", "rooms", "supply",
                "general_supply", "gold", "park", "nobles", "hands", "played_points", "deck", "discard",
                "components"):  # fmt: skip
        assert key in pos
    assert pos["format"] == "palais-position/1"
    assert len(pos["park"]) == 36
    assert set(pos["rooms"]) == {"gate", "parade_ground", "stairway", "mint", "king", "madame", "office",
                                 "back_entrance", "cardinal"}  # fmt: skip


def _valid_position() -> dict:
    _, snaps = _play_with_snapshots("greedy", 2, 7, {4})
    return snaps[4]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p.pop("rooms"), "'rooms' is missing"),
        (lambda p: p["rooms"].update(gate=[1]), "rooms.gate"),
        (lambda p: p.__setitem__("park", p["park"][:30]), "park"),
        (lambda p: p["park"].__setitem__(0, "N99"), "park[0]"),
        (lambda p: p.__setitem__("layout", "PMS/KGD/COX"), "layout"),
        (lambda p: p.__setitem__("players", 5), "players"),
        (lambda p: p["hands"][0].append("joker"), "hands[0]"),
        (lambda p: p["deck"].append("gold4"), "cards"),
        (lambda p: p["supply"].__setitem__(0, p["supply"][0] + 1), "servants"),
        (lambda p: p.__setitem__("format", "fen"), "format"),
        (lambda p: p["components"].__setitem__("hash", "0" * 12), "components"),
    ],
)
def test_malformed_position_names_the_field(mutate, field: str) -> None:
    pos = _valid_position()
    mutate(pos)
    with pytest.raises(NotationError) as info:
        import_position(pos, "bad.json")
    assert str(info.value).startswith("bad.json: ")
    assert field in str(info.value)
    assert "\n" not in str(info.value)


def test_replay_log_verifies_and_detects_tampering(tmp_path: Path) -> None:
    components = load_components()
    options = RuleOptions(players=3, layout="first-game")
    seats = load_strategies("greedy,random,greedy", 3)
    path = tmp_path / "game.jsonl"
    writer = ReplayWriter(path, components, options, 21, [s.name for s in seats])
    result = play_game(components, options, 21, seats, observer=lambda _b, d, c: writer.record(d, c))
    writer.finish(result)
    replayed = verify_replay(path)
    assert replayed["totals"] == [s.total for s in result.scores]
    assert replayed["winners"] == [w + 1 for w in result.winners]

    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert {"seed", "options", "components", "strategies", "engine_version"} <= set(header)
    # Change the final result: verification must fail on the result.
    footer = json.loads(lines[-1])
    footer["result"]["totals"][0] += 1
    path.write_text("\n".join(lines[:-1] + [json.dumps(footer)]) + "\n")
    with pytest.raises(NotationError, match="result"):
        verify_replay(path)
    # Make a move illegal: verification names the line.
    for i, line in enumerate(lines[1:], start=1):
        rec = json.loads(line)
        if rec.get("kind") == "reinforce":
            rec["choice"] = [99, []]
            lines[i] = json.dumps(rec)
            break
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(NotationError, match=r"line \d+: illegal reinforce"):
        verify_replay(path)


def test_malformed_replay_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"format": "palais-replay/1"}\nnot json\n')
    with pytest.raises(NotationError, match=r"broken.jsonl: line 2"):
        verify_replay(path)


def test_strategy_error_survives_pickling() -> None:
    import pickle

    from palais_sim.engine.game import StrategyError
    from palais_sim.engine.rules import Decision

    error = StrategyError("mine", 1, Decision("cards", 1, window="move"), 42, "raised ValueError()")
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert (copy.strategy, copy.seat, copy.decision, copy.seed) == ("mine", 1, "cards(move)", 42)
