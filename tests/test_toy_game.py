"""A third game needs no edit of palais_sim: the toy race (tests/toygame/, registered only through ``PALAIS_GAMES``)
runs through every command that plays or reads a game, in worker processes too, and its seat view hides what it
should. (Every game's common contract is tests/test_game_conformance.py's.)"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.core.games import ENV_VAR, GAMES, get_game
from strategies.common.random_play import RandomStrategy
from strategies.common.search import SearchStrategy
from tests.toygame import rules
from tests.toygame.game import GAME
from tests.toygame.strategies import GreedyStrategy
from tests.toygame.view import PlayerView

REPO = Path(__file__).resolve().parent.parent
TOY = "toy=tests.toygame.game:GAME"
SEARCH_GAMES = 100
runner = CliRunner()


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one line that adds the game (workers started from here inherit it)."""
    monkeypatch.setenv(ENV_VAR, TOY)


def palais(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def tables(run_dir: Path) -> dict[str, pl.DataFrame]:
    keys = {"games": ["game"], "seats": ["game", "seat"], "moves": ["game", "order"]}
    return {name: pl.read_parquet(sorted((run_dir / name).glob("*.parquet"))).sort(keys[name]) for name in keys}


def test_the_toy_is_listed_with_its_strategies() -> None:
    assert get_game("toy") is GAME
    code, out = palais("games", "--json")
    assert code == 0 and [g["name"] for g in json.loads(out)] == [*GAMES, "toy"]
    code, out = palais("strategies", "--game", "toy", "--json")
    listed = {s["name"]: s for s in json.loads(out)}
    assert code == 0 and set(listed) == {"random", "greedy", "search"}
    assert listed["greedy"]["parameters"] == {"low_first": False}


def test_simulate_in_worker_processes_gives_the_same_tables_and_a_report(tmp_path: Path) -> None:
    args = ["simulate", "--game", "toy", "--games", "60", "--strategies", "greedy,random", "--chunk-size", "10"]
    code, out = palais(*args, "--workers", "2", "--out", tmp_path / "w2")
    assert code == 0, out
    assert palais(*args, "--workers", "1", "--out", tmp_path / "w1")[0] == 0
    # the chunks were played in two worker processes, none in this one
    pids = {
        int(p)
        for p in re.findall(
            r"chunk \d+: 10 games, 0 failed, .* \(pid (\d+)\)", (tmp_path / "w2" / "run.log").read_text()
        )
    }
    assert len(pids) == 2 and os.getpid() not in pids
    two, one = tables(tmp_path / "w2"), tables(tmp_path / "w1")
    for name, frame in one.items():
        assert frame.equals(two[name]), name
    games, seats, moves = one["games"], one["seats"], one["moves"]
    assert games.height == 60 and games["error"].is_null().all() and seats.height == 3 * 60
    assert (games["max_rounds"] == GAME.default_max_rounds).all()  # the demo's round cap, the game's own
    per_game = moves.group_by("game").agg(pl.col("value").sum().alias("moved")).sort("game")
    totals = seats.group_by("game").agg(pl.col("total").sum()).sort("game")
    assert per_game["moved"].to_list() == totals["total"].to_list()  # the moves table adds up to the positions
    assert json.loads((tmp_path / "w2" / "manifest.json").read_text())["game"] == "toy"

    code, out = palais("report", "all", tmp_path / "w2", "--format", "json", "--out", tmp_path / "rep")
    assert code == 0, out
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert {r["strategy"] for r in data["strategies"]} == {"greedy", "random"}
    assert sorted((r["players"], r["seat"]) for r in data["seat_balance"]) == [(3, 1), (3, 2), (3, 3)]
    assert data["settings"]["game"] == "Toy race"
    code, out = palais("report", "nobles", tmp_path / "w2", "--out", tmp_path / "rep2")
    assert code == 2 and "a toy run has no nobles report" in out


def test_a_fresh_process_with_the_variable_plays_the_game_in_its_workers(tmp_path: Path) -> None:
    env = {**os.environ, ENV_VAR: TOY, "PYTHONPATH": str(REPO), "PALAIS_PURE": "1"}
    command = [sys.executable, "-m", "palais_sim.cli", "simulate", "--game", "toy", "--games", "24", "--workers", "2"]
    done = subprocess.run([*command, "--out", str(tmp_path / "run")], env=env, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert pl.read_parquet(sorted((tmp_path / "run" / "games").glob("*.parquet"))).height == 24
    del env[ENV_VAR]
    done = subprocess.run([*command, "--out", str(tmp_path / "no")], env=env, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and "unknown game 'toy'" in done.stderr


def test_ladder_match_and_the_seats_study(tmp_path: Path) -> None:
    code, out = palais("ladder", "--game", "toy", "--games", "40", "--json")
    assert code == 0, out
    ladder = json.loads(out)
    assert ladder["players"] == GAME.comparison_players and ladder["failed"] == 0
    order = [r["strategy"] for r in ladder["table"]]
    assert sorted(order) == sorted(GAME.ladder) and order[0] == "greedy" and order[-1] == "greedy:low_first=true"

    code, out = palais("match", "--game", "toy", "greedy", "random", "--max-games", "200", "--batch", "25", "--json")
    assert code == 0, out
    match = json.loads(out)
    assert match["games"] >= 50 and match["failed_games"] == 0 and match["score"] > 0.5

    code, out = palais("study", "seats", "--game", "toy", "--out", tmp_path / "s", "--groups", "20", "--players", "2,3")
    assert code == 0, out
    rows = json.loads((tmp_path / "s" / "study.json").read_text())["rows"]
    assert {(r["players"], r["strategy"]) for r in rows} == {(p, s) for p in (2, 3) for s in GAME.skill_levels}
    assert all(r["n_groups"] == 20 for r in rows)


def test_its_own_study_through_the_command_line(tmp_path: Path) -> None:
    """`palais study target` (the toy's GAME.studies) in a fresh process with the toy registered: its arms are mirror
    runs at the two targets on the same setups, and the longer race's rows are the difference of seat 1's edges."""
    env = {**os.environ, ENV_VAR: TOY, "PYTHONPATH": str(REPO), "PALAIS_PURE": "1"}
    study = [sys.executable, "-m", "palais_sim.cli", "study", "target", "--game", "toy", "--groups", "60"]
    done = subprocess.run([*study, "--players", "2,3", "--strategy", "greedy", "--longer", "25", "--out",
                           str(tmp_path / "s")], env=env, cwd=REPO, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert data["study"] == "target" and data["game"] == "toy" and data["targets"] == [15, 25]
    rows = {(r["subject"], r["players"], r["key"]): r for r in data["rows"]}
    assert set(rows) == {(s, p, k) for p in (2, 3) for s, k in (("seat 1", 15), ("seat 1", 25),
                                                                 ("longer race", "15 to 25"))}  # fmt: skip
    assert all(r["n_groups"] == 60 and r["strategy"] == "greedy" for r in rows.values())
    for p in (2, 3):
        change = rows[("seat 1", p, 25)]["effect"] - rows[("seat 1", p, 15)]["effect"]
        assert rows[("longer race", p, "15 to 25")]["effect"] == pytest.approx(change, abs=1e-3)
    for target, given in ((15, {}), (25, {"target": 25})):
        arm = json.loads((tmp_path / "s" / "runs" / "greedy" / "3p" / f"target-{target}" / "manifest.json").read_text())
        assert arm["settings"]["rules"] == given and arm["settings"]["rotate_seats"] is False
    assert (tmp_path / "s" / "study.md").is_file() and (tmp_path / "s" / "study.html").is_file()
    done = subprocess.run([*study, "--longer", "10", "--out", str(tmp_path / "e")], env=env, cwd=REPO,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and done.stderr.strip() == "error: --longer must be above the target (15), got 10"


def test_play_and_replay_and_a_replay_that_differs(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    code, out = palais("play", "--game", "toy", "--seed", "5", "--players", "3", "--log", log)
    assert code == 0 and "Toy race, seed 5" in out and out.count("plays a") >= 6
    code, out = palais("replay", "--game", "toy", log)
    assert code == 0 and "result identical" in out
    data = json.loads(log.read_text())
    for change, status, says in (
        (lambda d: d["result"].update(winners=[9]), 1, "result:"),
        (lambda d: d["choices"].pop(), 1, "waits for"),
        (lambda d: d["choices"].__setitem__(0, 99), 2, "choice 1 is illegal"),
    ):
        changed = json.loads(json.dumps(data))
        change(changed)
        log.write_text(json.dumps(changed))
        code, out = palais("replay", "--game", "toy", log)
        assert code == status and says in out, out
    log.write_text("not json")
    assert palais("replay", "--game", "toy", log)[0] == 2


def test_what_the_toy_has_not_is_refused_in_one_line(tmp_path: Path) -> None:
    position = tmp_path / "p.json"
    position.write_text("{}")
    for command in ("score", "inspect", "analyse"):
        code, out = palais(command, "--game", "toy", position)
        assert code == 2 and out.strip() == f"error: {command}: Toy race has no position files"
    code, out = palais("play", "--game", "toy", "--positions", tmp_path / "pos")
    assert code == 2 and "no position files" in out
    # another game's rule option: refused by the shared code, naming whose option it is
    code, out = palais("play", "--game", "toy", "--gold-limit", "5")
    assert (
        code == 2 and out.strip() == "error: --gold-limit is a rule option of palais-royal; toy has none by that name"
    )
    code, out = palais("simulate", "--game", "toy", "--layout", "first-game", "--out", tmp_path / "r")
    assert code == 2 and "--layout is a rule option of palais-royal; toy has none" in out
    assert not (tmp_path / "r").exists()
    # and the toy's own is refused for the others (nothing of palais_sim names it)
    code, out = palais("simulate", "--target", "9", "--out", tmp_path / "r")
    assert code == 2 and out.strip() == "error: --target is a rule option of toy; palais-royal has none by that name"


# ------------------------------------------------------------------------------------- the toy's own seat view
def random_positions(games: int) -> list[rules.ToyState]:
    """States at every decision of random games, 2 to 4 players."""
    out = []
    for g in range(games):
        state = rules.new_game(2 + g % 3, 30, 1000 + g)
        rng = random.Random(g)
        while not state.over:
            out.append(state.copy())
            dec = rules.decision(state)
            options = rules.options_for(state.hands[dec.seat], dec)
            rules.apply(state, options[rng.randrange(len(options))])
    return out


def hide_differently(state: rules.ToyState, seat: int, rng: random.Random) -> rules.ToyState:
    """The same position for ``seat``: the cards of other hands it does not know swapped with random deck cards (it
    knows none of those), and the deck in another order."""
    other = state.copy()
    for s in range(other.n):
        for i, card in enumerate(other.hands[s]):
            if s != seat and not other.known[card] >> seat & 1 and other.deck:
                j = rng.randrange(len(other.deck))
                other.hands[s][i], other.deck[j] = other.deck[j], card
                other.known[other.hands[s][i]], other.known[card] = other.known[card], 0
    rng.shuffle(other.deck)
    return other


def view_data(view: PlayerView) -> dict:
    return {name: getattr(view, name) for name in PlayerView.__slots__ if name != "_rng"}


def test_a_view_shows_only_what_its_seat_knows_and_is_the_same_whatever_it_does_not() -> None:
    positions = random_positions(150)
    peeked = 0
    for k, state in enumerate(positions):
        seat = rules.decision(state).seat
        view = PlayerView(state, seat)
        assert view.hand == tuple(sorted(state.hands[seat])) and view.known_hands[seat] == ()
        for s in range(state.n):
            assert set(view.known_hands[s]) <= set(state.hands[s])
            peeked += len(view.known_hands[s])
        assert view_data(PlayerView(hide_differently(state, seat, random.Random(k)), seat)) == view_data(view)
    assert peeked > 100  # spy cards were played, and what they showed stayed in the views


def test_the_probe_would_see_a_view_that_shows_another_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    state = rules.new_game(3, 30, 7)
    original = PlayerView.__init__

    def leaky(self: PlayerView, state: rules.ToyState, seat: int) -> None:
        original(self, state, seat)
        self.known_hands = tuple(() if s == seat else tuple(sorted(h)) for s, h in enumerate(state.hands))

    monkeypatch.setattr(PlayerView, "__init__", leaky)
    view = PlayerView(state, 0)
    assert view_data(PlayerView(hide_differently(state, 0, random.Random(1)), 0)) != view_data(view)


def test_greedy_beats_random() -> None:
    context = GAME.context({"players": 2})
    wins = sum(GAME.play(context, seed, [GreedyStrategy(), RandomStrategy()]).seats[0].win for seed in range(300))
    assert wins > 180


def test_the_search_of_every_game_plays_the_toy_race_from_its_view_and_beats_random() -> None:
    """The common search needs nothing of the toy race but its seat contract (sample_state included) and GAME.turns;
    seats alternate over the seeds. With random rollouts it won 57.5, 64.5 and 65.5 of 100 at budgets 12, 48 and 200
    (greedy wins about 72)."""
    context = GAME.context({"players": 2})
    wins = 0.0
    for seed in range(SEARCH_GAMES):
        players = [SearchStrategy(budget=48, rollout="random", game="toy"), RandomStrategy()]
        first = seed % 2
        result = GAME.play(context, seed, players if first == 0 else players[::-1])
        wins += result.seats[first].win
    assert wins > 0.6 * SEARCH_GAMES
