"""Positions and replay logs: round trips, continuation, validation errors that name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game, result_of, run_to_end
from palais_sim.games.palais_royal.position import NotationError, export_position, import_position
from palais_sim.games.palais_royal.replay import ReplayWriter, verify_replay
from palais_sim.games.palais_royal.state import RuleOptions
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

    from palais_sim.core.errors import StrategyError
    from palais_sim.games.palais_royal.rules import Decision

    error = StrategyError("mine", 1, Decision("cards", 1, window="move").label, 42, "raised ValueError()")
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert (copy.strategy, copy.seat, copy.decision, copy.seed) == ("mine", 1, "cards(move)", 42)


def _written_by_hand(position: dict) -> dict:
    """What a person writes: the standard set by name, no seed, no deck, no unseen nobles, the other hand's size."""
    data = {k: v for k, v in position.items() if k not in ("seed", "deck", "box", "engine_version", "turn")}
    data["components"] = "standard"
    data["hands"] = [position["hands"][0], len(position["hands"][1])]
    return data


def test_a_position_written_by_hand_is_dealt_its_hidden_information_from_the_seed(tmp_path: Path) -> None:
    from collections import Counter

    from palais_sim.games.palais_royal.components import standard_components
    from palais_sim.games.palais_royal.play import continue_game
    from palais_sim.games.palais_royal.position import export_position, import_position

    seen: list = []
    play_game(
        standard_components(), RuleOptions(players=2), 21, load_strategies("greedy", 2),
        on_turn_start=lambda st: seen.append(export_position(st)) if st.turn_no == 9 else None,
    )  # fmt: skip
    position = seen[0]
    data = _written_by_hand(position)
    a, b = import_position(data, seed=5), import_position(data, seed=6)
    for state in (a, b):
        assert Counter(state.deck + state.hands[1]) == Counter(position["deck"] + position["hands"][1])
        assert state.hands[0] == position["hands"][0] and len(state.hands[1]) == len(position["hands"][1])
        assert state.park == import_position(position).park
    assert a.deck != b.deck  # re-dealt from the seed given
    assert a.deck == import_position(data, seed=5).deck  # ... reproducibly
    result = continue_game(a, load_strategies("greedy", 2))
    assert result.finished


def test_a_position_names_its_components_by_hash_and_the_hash_is_checked() -> None:
    from palais_sim.games.palais_royal.components import standard_components
    from palais_sim.games.palais_royal.position import NotationError, export_position, import_position

    seen: list = []
    play_game(standard_components(), RuleOptions(players=2), 2, load_strategies("greedy", 2),
              on_turn_start=lambda st: seen.append(export_position(st)))  # fmt: skip
    position = dict(seen[3])
    position["components"] = {"name": "standard", "hash": "0123456789ab", "file": None}
    with pytest.raises(NotationError, match="hash 0123456789ab"):
        import_position(position)
    position["components"] = {"file": None}  # no hash: nothing to check
    import_position(position)


def test_play_from_a_position_continues_the_game(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from palais_sim.cli import app

    runner = CliRunner()
    positions = tmp_path / "pos"
    full = runner.invoke(app, ["play", "--seed", "4", "--json", "--positions", str(positions)])
    assert full.exit_code == 0
    turn = sorted(positions.iterdir())[12]
    again = runner.invoke(app, ["play", "--from", str(turn), "--json", "--log", str(tmp_path / "g.jsonl")])
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["seats"] == json.loads(full.output)["seats"]  # the same game, played on
    assert runner.invoke(app, ["replay", str(tmp_path / "g.jsonl")]).exit_code == 0
    bad = runner.invoke(app, ["play", "--from", str(tmp_path)])
    assert bad.exit_code == 2 and "directory" in bad.output
