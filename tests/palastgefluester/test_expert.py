"""Palastgeflüster's ``expert``: the shipped policy loads and is part of the game's code fingerprint, the common
pipeline reproduces a model from a fixed seed, the player reads nothing but its seat's view, and a golden game."""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest

from palais_sim.core.games import get_game
from palais_sim.games.palastgefluester.play import play_game
from palais_sim.games.palastgefluester.rules import PHASE_KINDS, apply, decision, new_game
from palais_sim.games.palastgefluester.state import PgOptions, PgState
from palais_sim.games.palastgefluester.view import PlayerView
from palais_sim.registry import load_strategies, load_strategy
from palais_sim.tournament.fingerprint import sources
from palais_sim.tournament.schedule import group_seed
from strategies.common.distill import fit, generate, write_table
from strategies.common.mlp import MlpPolicy
from strategies.common.search import SearchStrategy
from strategies.palastgefluester import expert_train
from strategies.palastgefluester.expert import MAX_CANDIDATES, MODEL, ExpertStrategy, load_policy
from strategies.palastgefluester.expert_features import FEATURES
from strategies.palastgefluester.heuristic import HeuristicStrategy
from tests.palastgefluester.helpers import HOF, MUND, NARR, SCHATZ, WAECH, ZAUB, ZOFE, brown, card, position
from tests.palastgefluester.test_view import hide_differently

GOLDEN = Path(__file__).parent / "golden" / "expert-vs-heuristic-3p.json"
GOLDEN_SEATS = "expert:budget=0,heuristic,heuristic"  # the policy alone (its features and model file), 3 players


def test_the_shipped_model_loads_with_todays_features_and_says_how_it_was_made() -> None:
    policy = load_policy(MODEL)
    assert policy.features == FEATURES
    # a score per decision kind (a network's nets or a linear policy's weights), with the shared one
    assert {"play", ""} <= set(policy.nets if isinstance(policy, MlpPolicy) else policy.weights)
    for key in ("command", "seed", "games", "decisions", "held_out", "target"):
        assert key in policy.meta, key
    assert policy.meta["decisions"] > 1000
    held = policy.meta["held_out"]["play"]
    # a card among about four: far better than a uniform pick, whatever the target it was fitted on
    assert held["decisions"] > 500 and held["agreement"] > 0.4 and held["log_loss"] < 1.3


def test_the_model_file_is_part_of_palastgefluesters_code_fingerprint_only() -> None:
    assert MODEL.resolve() in [Path(p).resolve() for p in sources(get_game("palastgefluester"))]
    assert MODEL.resolve() not in [Path(p).resolve() for p in sources(get_game("palais-royal"))]
    assert get_game("palastgefluester").strategies["expert"] == "strategies.palastgefluester.expert:ExpertStrategy"


def test_the_pipeline_reproduces_a_small_model_from_a_fixed_seed(tmp_path: Path) -> None:
    """One game of a tiny teacher, recorded twice from the same seed: the same table, and the same fit."""
    teacher = "search:budget=2,horizon=1"
    rows = generate("palastgefluester", teacher, ExpertStrategy, 1, seed=3, players=3)
    again = generate("palastgefluester", teacher, ExpertStrategy, 1, seed=3, players=3)
    assert rows and repr(rows) == repr(again)  # the unvisited candidates' mean reward is nan
    assert {r["kind"] for r in rows} <= set(PHASE_KINDS) and "play" in {r["kind"] for r in rows}
    assert all(len(r["features"]) == len(FEATURES) for r in rows)
    decisions = pl.DataFrame(rows).group_by("decision").agg(pl.col("played").sum(), pl.len())
    assert decisions["played"].min() == 1 and decisions["played"].max() == 1  # every legal choice is a candidate
    assert decisions["len"].min() >= 2 and decisions["len"].max() <= MAX_CANDIDATES
    path = tmp_path / "data.parquet"
    write_table(rows, path)
    table = pl.read_parquet(path).with_columns(file=pl.lit(0))
    first, report = fit(table, FEATURES, seed=5, holdout=0.5, by_kind=False)
    second, _ = fit(table, FEATURES, seed=5, holdout=0.5, by_kind=False)
    assert first.weights == second.weights and report["all"]["decisions"] == 0  # one game: all of it in training
    # the command line writes the model with its provenance
    model = tmp_path / "model.json"
    args = ["fit", str(path), "--seed", "5", "--target", "value", "--write", "--model", str(model)]
    assert expert_train.main(args) == 0
    written = json.loads(model.read_text(encoding="utf-8"))
    assert written["seed"] == 5 and written["games"] == 1 and written["target"] == "value"
    assert written["command"].startswith("python -m strategies.palastgefluester.expert_train fit data.parquet")
    assert expert_train.main(["fit", str(tmp_path / "missing.parquet")]) == 1


def test_the_race_plays_its_first_candidate_unless_another_is_clearly_better() -> None:
    """``SearchStrategy.race`` over given candidates: the Hofnarr under the Hofnarr king (a point to each other
    seat) loses to a safe card, whichever of the two comes first."""
    hands = [
        [card(0, NARR), card(0, ZOFE), card(1, HOF), brown(MUND), card(0, ZAUB), card(0, WAECH)],
        [card(1, p) for p in (ZAUB, ZOFE, MUND, WAECH, NARR, SCHATZ)],
        [card(2, p) for p in (HOF, ZAUB, ZOFE, MUND, WAECH, NARR)],
    ]
    state = position(3, hands, revealed=(NARR,))
    view = PlayerView(state, 0)
    search = SearchStrategy(budget=8, horizon=1, game="palastgefluester")
    jester, safe = card(0, NARR), card(1, HOF)
    assert search.race(view, decision(state), [jester, safe]) == 1
    assert search.race(PlayerView(state, 0), decision(state), [safe, jester]) == 0


def _positions(games: int, per_game: int) -> list[PgState]:
    """Positions of heuristic games at a few random decisions (the deciding seat has more than one choice)."""
    out = []
    heuristic = HeuristicStrategy()
    for g in range(games):
        state = new_game(PgOptions(players=3 + g % 2), 700 + g)
        rng = random.Random(g)
        stops = set(rng.sample(range(80), per_game))
        for step in range(80):
            if state.over:
                break
            dec = decision(state)
            view = PlayerView(state, dec.seat)
            if step in stops and 1 < len(view.legal_options(dec)) <= MAX_CANDIDATES:
                out.append(state.copy())
            apply(state, heuristic.choose(view, dec))
    return out


@pytest.mark.parametrize("spec", ["expert:budget=0", "expert:budget=2,horizon=1"])
def test_expert_reads_only_its_seats_view(spec: str) -> None:
    """Two states the deciding seat cannot tell apart (the unknown cards of the other hands swapped with the draw
    pile's, the piles reordered) get the same choice, the same candidates and the same features."""
    checked = kinds = 0
    seen: set[str] = set()
    for state in _positions(8, 5):
        seat = decision(state).seat
        other = hide_differently(state, seat, random.Random(state.decisions))
        assert other.hands != state.hands or other.draw != state.draw
        mine = load_strategy(spec, get_game("palastgefluester")).choose(PlayerView(state, seat), decision(state))
        theirs = load_strategy(spec, get_game("palastgefluester")).choose(PlayerView(other, seat), decision(other))
        assert mine == theirs
        expert = ExpertStrategy()
        a = expert.featurize(PlayerView(state, seat), decision(state), random.Random(1))
        b = expert.featurize(PlayerView(other, seat), decision(other), random.Random(1))
        assert a == b and a is not None
        seen.add(decision(state).kind)
        checked += 1
    kinds = len(seen)
    assert checked >= 30 and kinds >= 2


def test_expert_plays_full_games_and_refuses_bad_parameters() -> None:
    for spec in ("expert:budget=0", "expert:budget=2,top=2,horizon=1"):
        seats = [load_strategy(spec, get_game("palastgefluester")), HeuristicStrategy(), HeuristicStrategy()]
        result = play_game(PgOptions(players=3), 17, seats)
        assert result.finished
    for bad, message in (({"top": 1}, "top"), ({"budget": -1}, "budget"), ({"horizon": -2}, "horizon")):
        with pytest.raises(ValueError, match=message):
            ExpertStrategy(**bad)


def test_expert_plays_a_network_model_as_well_as_a_linear_one(tmp_path: Path) -> None:
    """A small network over today's features (``palais train --student mlp`` fits one) loads and plays."""
    rng = random.Random(4)
    net = {"hidden": [[rng.uniform(-0.1, 0.1) for _ in FEATURES] for _ in range(3)], "bias": [0.0] * 3,
           "out": [1.0, -0.5, 0.25]}  # fmt: skip
    path = tmp_path / "net.json"
    path.write_text(json.dumps(MlpPolicy(FEATURES, {"": net}).to_json()), encoding="utf-8")
    assert isinstance(load_policy(path), MlpPolicy)
    seats = [ExpertStrategy(budget=0, model=str(path)), HeuristicStrategy(), HeuristicStrategy()]
    assert play_game(PgOptions(players=3), 17, seats).finished


def _golden_log(tmp_path: Path) -> dict:
    game = get_game("palastgefluester")
    context = game.context({"players": 3})
    log = tmp_path / "game.json"

    def seats(n: int) -> list:
        return load_strategies(GOLDEN_SEATS, n, get_game("palastgefluester"))

    game.play_session(context, group_seed(1, 7), seats, None, log)
    return json.loads(log.read_text(encoding="utf-8"))


def test_the_golden_expert_game_is_played_the_same(tmp_path: Path) -> None:
    """A game of the policy alone against two heuristic seats, choice by choice as recorded (regenerate with
    ``python -m tests.palastgefluester.test_expert`` after a deliberate change of the model or its features)."""
    assert _golden_log(tmp_path) == json.loads(GOLDEN.read_text(encoding="utf-8"))


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        GOLDEN.write_text(json.dumps(_golden_log(Path(folder)), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
