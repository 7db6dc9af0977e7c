"""Palastgeflüster's position files (``palastgefluester-position/2``): exact round trips, hidden information dealt
from the seed, a golden file, the commands that write and read them, and one-line errors naming a bad file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.games.palastgefluester.game import GAME
from palais_sim.games.palastgefluester.notation import NotationError
from palais_sim.games.palastgefluester.notation import export_position as dump
from palais_sim.games.palastgefluester.play import continue_game, play_game
from palais_sim.games.palastgefluester.position import (
    POSITION_FORMAT,
    card_name,
    export_position,
    import_position,
    load_position,
)
from palais_sim.games.palastgefluester.rules import legal_options, new_game
from palais_sim.games.palastgefluester.session import standings
from palais_sim.games.palastgefluester.state import PLAY, PgOptions, PgState
from palais_sim.registry import load_strategies
from strategies.common.random_play import RandomStrategy

GOLDEN = Path(__file__).parent / "golden" / "position-4p-noted.json"
runner = CliRunner()


def palais(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def randoms(n: int) -> list[RandomStrategy]:
    return [RandomStrategy() for _ in range(n)]


def turn_starts(players: int, seed: int, tiebreak: str = "display") -> list[PgState]:
    """Every state of a random game before a card is played."""
    states: list[PgState] = []
    play_game(PgOptions(players=players, tiebreak=tiebreak), seed, randoms(players),
              observer=lambda before, d, c: states.append(before) if d.kind == "play" else None)  # fmt: skip
    return states


# ------------------------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize(("players", "tiebreak"), [(3, "display"), (4, "noted"), (5, "display")])
def test_every_turn_start_round_trips_and_plays_on_the_same_game(players: int, tiebreak: str) -> None:
    states = turn_starts(players, 500 + players, tiebreak)
    assert len(states) > 20
    for state in states[:: max(1, len(states) // 10)]:
        data = json.loads(json.dumps(export_position(state)))
        back = import_position(data, "test")
        assert dump(back) == dump(state)  # the engine's whole state, knowledge and pile orders included
        a = continue_game(state.copy(), randoms(players))
        b = continue_game(back, randoms(players))
        assert dump(a.final_state) == dump(b.final_state)


def test_only_a_turn_start_is_a_position() -> None:
    state = new_game(PgOptions(players=3), 1)
    state.phase += 1
    with pytest.raises(NotationError, match="start of a turn"):
        export_position(state)


def test_the_engines_state_dump_reads_as_a_position_too() -> None:
    state = turn_starts(4, 9)[7]
    assert dump(import_position(json.loads(json.dumps(dump(state))))) == dump(state)


# ------------------------------------------------------------------------------------- hidden information
def hand_written(state: PgState, seat: int) -> dict:
    """What ``seat`` could write down: other hands and the discards as counts, no draw pile, king pile or seed."""
    data = export_position(state)
    for s in range(state.n):
        if s != seat:
            data["hands"][s] = len(state.hands[s])
    data["discards"] = len(state.discards)
    for key in ("draw", "king_pile", "seed", "known"):
        del data[key]
    return data


def test_what_a_player_cannot_know_is_dealt_from_the_seed() -> None:
    state = next(s for s in turn_starts(4, 31) if s.kings_revealed and s.round_cards > 4)
    data = hand_written(state, 0)
    a, b, c = (import_position(json.loads(json.dumps(data)), "hand", seed) for seed in (5, 5, 6))
    assert dump(a) == dump(b) and a.hands != c.hands  # the seed decides the deal, and only the seed
    for dealt in (a, c):
        assert dealt.hands[0] == state.hands[0] and dealt.displays == state.displays
        assert [len(h) for h in dealt.hands] == [len(h) for h in state.hands] and len(dealt.discards) == len(
            state.discards
        )  # fmt: skip
        places = [*(x for h in dealt.hands for x in h), *(x for d in dealt.displays for x in d), *dealt.draw]
        assert sorted(places + dealt.discards) == dealt.components.cards_in_game(4)
        assert dealt.kings_revealed == state.kings_revealed
        assert Counter(dealt.king_pile) == Counter(state.king_pile)
        assert all(dealt.known[x] == 1 << s for s, h in enumerate(dealt.hands) for x in h)  # each knows its own
        assert dealt.phase == PLAY and legal_options(dealt, GAME.turns.pending(dealt))
    result = continue_game(a, randoms(4))
    assert result.rounds >= state.round


def test_a_brown_card_without_its_copy_takes_the_first_copy_left() -> None:
    state = turn_starts(3, 8)[0]
    data = export_position(state)
    named = [(s, i, n) for s, h in enumerate(data["hands"]) for i, n in enumerate(h) if n.startswith("brown ")]
    assert named
    for s, i, name in named:
        data["hands"][s][i] = name.rsplit(" ", 1)[0]
    data["draw"] = [n.rsplit(" ", 1)[0] if n.startswith("brown ") else n for n in data["draw"]]
    back = import_position(data, "test")
    persons = [[c % 7 for c in h] for h in back.hands]
    assert persons == [[c % 7 for c in h] for h in state.hands]
    assert back.location_counts() == len(state.components.cards_in_game(3))  # every card once, the copies given


# ------------------------------------------------------------------------------------------------- golden
def test_the_golden_position_reads_and_writes_back_unchanged() -> None:
    """A position of a four-player game of the variant (seed 11, heuristic players, its 27th card): two Zofe
    discards known to different seats, a shown hand, a revealed king, a round already ended."""
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    state = load_position(GOLDEN)
    again = export_position(state)
    assert {**again, "engine_version": None} == {**data, "engine_version": None}
    assert state.n == 4 and state.options.tiebreak == "noted" and state.current == 2 and state.round == 2
    assert card_name(state.components, state.discards[0]) == "green waechter" and state.known[state.discards[0]] == 1
    winners, tiebreak = standings(state)
    assert (winners, tiebreak) == ([1], "noted")  # seats 2, 3 and 4 tied on a point; seat 2 has the most noted


# ---------------------------------------------------------------------------------------------------- the CLI
@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pg")
    code, out = palais("play", "--game", "palastgefluester", "--seed", "4", "--positions", folder / "pos",
                       "--log", folder / "game.log")  # fmt: skip
    assert code == 0, out
    return folder


def test_play_writes_a_position_per_card_played_and_a_log_that_replays(played: Path) -> None:
    files = sorted((played / "pos").iterdir())
    log = json.loads((played / "game.log").read_text())
    plays = sum(1 for _, kind, _ in log["decisions"] if kind == "play")
    assert [f.name for f in files] == [f"turn-{k:04d}.json" for k in range(1, plays + 1)]
    assert all(json.loads(f.read_text())["format"] == POSITION_FORMAT for f in files)
    code, out = palais("replay", "--game", "palastgefluester", played / "game.log")
    assert code == 0 and "result identical" in out


def test_score_and_inspect_read_a_position_of_any_game_by_its_format(played: Path) -> None:
    path = sorted((played / "pos").iterdir())[30]
    state = load_position(path)
    code, out = palais("score", path, "--json")  # no --game: the file's format names it
    assert code == 0, out
    payload = json.loads(out)
    assert [s["points"] for s in payload["seats"]] == state.points
    assert payload["winners"] == [w + 1 for w in standings(state)[0]]
    code, text = palais("score", "--game", "palastgefluester", path)
    assert code == 0 and "winners if the game ended now: seat" in text
    code, out = palais("inspect", path, "--json")
    assert code == 0, out
    payload = json.loads(out)
    pending = GAME.turns.pending(state)
    assert payload["seat"] == pending.seat + 1 and payload["decision"] == "play"
    assert [c["choice"] for c in payload["choices"]] == legal_options(state, pending)
    assert all(c["outcome"] for c in payload["choices"])


def test_inspect_tells_what_each_card_gives() -> None:
    state = load_position(GOLDEN)
    code, out = palais("inspect", GOLDEN, "--json")
    choices = json.loads(out)["choices"]
    for c in choices:
        after = state.copy()
        GAME.turns.apply(after, c["choice"])
        ended = len(after.round_ends) > len(state.round_ends)
        assert c["outcome"].startswith("ends the round") == ended, c


def test_play_on_from_a_position_is_the_same_game(played: Path) -> None:
    path = sorted((played / "pos").iterdir())[40]
    code, whole = palais("play", "--game", "palastgefluester", "--seed", "4", "--json")
    code_on, on = palais("play", "--from", path, "--json")
    assert code == code_on == 0
    first, second = json.loads(whole), json.loads(on)
    assert [s["total"] for s in second["seats"]] == [s["total"] for s in first["seats"]]
    assert second["winners"] == first["winners"] and second["decisions"] == first["decisions"]


def test_analyse_rates_the_candidates_with_the_common_search(played: Path) -> None:
    path = sorted((played / "pos").iterdir())[20]
    state = load_position(path)
    code, out = palais("analyse", path, "--strategy", "search:budget=12", "--json")
    assert code == 0, out
    payload = json.loads(out)
    options = legal_options(state, GAME.turns.pending(state))
    assert sorted(c["choice"] for c in payload["candidates"]) == sorted(options)
    assert sum(c["played"] for c in payload["candidates"]) == 1 and payload["decision"] == "play"
    assert sum(c["visits"] for c in payload["candidates"]) >= len(options)
    code, out = palais("analyse", path, "--strategy", "heuristic")
    assert code == 2 and "cannot analyse" in out


def test_analyse_goes_on_to_a_later_decision_of_the_turn_or_says_there_is_none(played: Path) -> None:
    files = sorted((played / "pos").iterdir())
    log = json.loads((played / "game.log").read_text())
    kinds = [kind for _, kind, _ in log["decisions"]]
    turns = [i for i, kind in enumerate(kinds) if kind == "play"]
    k = next(t for t, i in enumerate(turns) if i + 1 < len(kinds) and kinds[i + 1] not in ("play", "next"))
    action = kinds[turns[k] + 1]
    code, out = palais("analyse", files[k], "--strategy", "search:budget=8", "--decision", action, "--json")
    assert code == 0 and json.loads(out)["decision"] == action, out
    plain = next(t for t, i in enumerate(turns) if i + 1 < len(kinds) and kinds[i + 1] == "play")
    code, out = palais("analyse", files[plain], "--strategy", "search:budget=8", "--decision", "swap")
    assert code == 2 and "no swap decision is left in this turn" in out


def test_a_bad_position_file_is_one_line_naming_it(tmp_path: Path) -> None:
    good = json.loads(GOLDEN.read_text(encoding="utf-8"))
    cases = {
        "not-json.json": "{",
        "no-object.json": "[1, 2]",
        "format.json": json.dumps({**good, "format": "chess"}),
        "missing.json": json.dumps({k: v for k, v in good.items() if k != "displays"}),
        "twice.json": json.dumps({**good, "draw": [*good["draw"], good["hands"][0][0]]}),
        "unknown.json": json.dumps({**good, "displays": [["purple zofe"], [], [], []]}),
        "lost.json": json.dumps({**good, "draw": good["draw"][1:]}),
        "repeat.json": json.dumps({**good, "displays": [[*good["displays"][0], "red hofnarr"], *good["displays"][1:]]}),
        "seat.json": json.dumps({**good, "current_seat": 5}),
        "over.json": json.dumps({**good, "points": [5, 0, 0, 0]}),
        "kings.json": json.dumps({**good, "king_pile": ["zofe"]}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        for command in ("score", "inspect"):
            code, out = palais(command, "--game", "palastgefluester", path)
            lines = out.strip().splitlines()
            assert code == 2 and len(lines) == 1 and lines[0].startswith(f"error: {path}"), (name, out)
    code, out = palais("score", "--game", "palastgefluester", tmp_path)
    assert code == 2 and "is a directory" in out
    code, out = palais("play", "--game", "palais-royal", "--from", GOLDEN)
    assert code == 2 and "use --game palastgefluester" in out


def test_a_bad_replay_log_is_one_line_naming_it(played: Path, tmp_path: Path) -> None:
    log = json.loads((played / "game.log").read_text())
    broken = tmp_path / "broken.log"
    log["decisions"][3][2] = 999
    broken.write_text(json.dumps(log))
    code, out = palais("replay", "--game", "palastgefluester", broken)
    assert code == 2 and out.startswith(f"error: {broken}: decision 3: illegal") and len(out.strip().splitlines()) == 1


def test_a_heuristic_game_with_positions_is_the_game_without(tmp_path: Path) -> None:
    context = GAME.context({"players": 5})
    seats = lambda n: load_strategies("heuristic", n, GAME)  # noqa: E731
    plain = GAME.play(context, 77, seats(5))
    with_files = GAME.positions.play_session(context, 77, seats, None, None, tmp_path, None)
    assert with_files.to_json() == plain.to_json()
