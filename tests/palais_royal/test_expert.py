"""``expert``: the shipped policy loads and is part of the code fingerprint, the pipeline reproduces a model from a
fixed seed, and the player reads nothing but its seat's view."""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from palais_sim.core.games import get_game
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.play import play_game, run_to_end
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import StrategySpecError, load_strategy
from palais_sim.tournament.fingerprint import sources
from strategies.common.distill import LinearPolicy, ValueHead, fit, fit_value, generate, write_table
from strategies.common.mlp import MlpPolicy
from strategies.palais_royal import expert_train
from strategies.palais_royal.expert import MODEL, ExpertStrategy, load_policy
from strategies.palais_royal.expert_features import FEATURES, LONG_FEATURES, ROUNDS, TURN_FEATURES
from strategies.palais_royal.ismcts import IsmctsStrategy

COMPONENTS = standard_components()


def test_the_shipped_model_loads_with_todays_features_and_says_how_it_was_made() -> None:
    """The installed model (docs/notes/2026-11-29-no-pass.md): a network of today's features fitted on the values
    ``ismcts:budget=100,horizon=2`` gave the candidates (iteration 2 of ``palais train``), its provenance the one
    command that fits it and the gate that accepted it against that fixed player; its policy plays alone at 2
    players, and it never passes after 2 rounds without a recruitment."""
    policy = load_policy(MODEL)
    assert isinstance(policy, MlpPolicy) and policy.features == FEATURES
    assert {"move", "recruit", ""} <= set(policy.nets)
    for key in ("command", "seed", "games", "decisions", "held_out", "hidden", "why"):
        assert key in policy.meta, key
    assert policy.meta["decisions"] > 1000 and policy.meta["target"] == "value"
    provenance = policy.meta["iteration"]
    assert provenance["number"] == 2 and provenance["with_data"][0]["iteration"] == 1
    gate = provenance["gate"]
    assert gate["anchor"] == "ismcts:budget=100,horizon=2" and gate["decision"] == "accepted"
    assert gate["difference"]["ci"][0] > 0 and "--gate-anchor" in policy.meta["command"]
    # held out: the teacher's played candidate is among the policy's best three in most decisions, and its noble is
    # the policy's first more often than greedy's (its moves are greedy's unless another is clearly better, so the
    # values' best move often is not the move it played)
    held = policy.meta["held_out"]
    assert all(held[kind]["decisions"] > 500 and held[kind]["top3"] > 0.7 for kind in ("move", "recruit"))
    assert held["recruit"]["agreement"] > held["recruit"]["base_agreement"]
    assert policy.meta["play"] == {"alone_players": [2], "no_pass_after": 2}
    shipped = ExpertStrategy()
    assert shipped.alone_counts == {2} and shipped.no_pass_rounds == 2


@pytest.mark.parametrize(("players", "games"), [(2, 40), (3, 15), (4, 10)])
def test_the_shipped_experts_self_play_is_ended_by_the_rules(players: int, games: int) -> None:
    """Studies play expert against itself: every game must end as the rules end it (12 nobles left), within about
    twice a usual game's 14 rounds, not by the safety net that hands a stalled game to the base style at round
    ``base_after`` (40). A model whose seats both pass their movements for rounds on end (iteration 2's policy alone
    at 2 players: 24 of 100 games past 28 rounds, up to 46, where the shipped model's longest was 21) is not a study
    level, whatever its score against another player."""
    seats = [load_strategy("expert", get_game("palais-royal")) for _ in range(players)]
    rounds = [play_game(COMPONENTS, RuleOptions(players=players), 1000 + seed, seats).rounds for seed in range(games)]
    assert max(rounds) <= 30, sorted(rounds)[-5:]


def test_the_policy_plays_alone_at_the_declared_counts_and_races_at_the_others(tmp_path: Path) -> None:
    """``alone``: ``model`` reads the model file's ``play.alone_players``; at those player counts expert plays the
    policy's choice as ``budget=0`` does, at the others it races its best two; a model declaring none races
    everywhere; a bad count is refused where the strategy is made, in one line."""
    data = json.loads(MODEL.read_text(encoding="utf-8"))
    declaring = tmp_path / "declaring.json"
    declaring.write_text(json.dumps({**data, "play": {"alone_players": [2]}}), encoding="utf-8")
    game = get_game("palais-royal")
    for players in (2, 3):
        state = new_game(COMPONENTS, RuleOptions(players=players), 31 + players)
        alone = load_strategy(f"expert:budget=0,model={declaring}", game)
        declared = load_strategy(f"expert:model={declaring}", game)
        racing = load_strategy(f"expert:alone=none,model={declaring}", game)
        decisions = differ = 0
        while not state.over and decisions < 400:
            dec = rules.decision(state)
            mine = declared.choose(PlayerView(state, dec.seat), dec)  # a fresh view each: the same decision stream
            if players == 2:
                assert mine == alone.choose(PlayerView(state, dec.seat), dec)
            else:
                assert mine == racing.choose(PlayerView(state, dec.seat), dec)
                differ += mine != alone.choose(PlayerView(state, dec.seat), dec)
            decisions += 1
            rules.apply(state, mine)
        assert decisions > 50
        if players == 3:
            assert differ >= 1  # the race did decide otherwise than the policy somewhere
    assert ExpertStrategy(model=str(declaring)).alone_counts == {2}
    undeclared = tmp_path / "undeclared.json"
    undeclared.write_text(json.dumps({k: v for k, v in data.items() if k != "play"}), encoding="utf-8")
    assert ExpertStrategy(model=str(undeclared)).alone_counts == frozenset()  # a model declaring none races
    assert ExpertStrategy(model=str(MODEL), alone="2/4").alone_counts == {2, 4}
    bad_file = tmp_path / "bad.json"
    bad_file.write_text(json.dumps({**data, "play": {"alone_players": ["two"]}}), encoding="utf-8")
    with pytest.raises(ValueError, match="alone_players"):
        ExpertStrategy(model=str(bad_file))
    for bad in ("two", "1/2"):
        with pytest.raises(StrategySpecError, match="alone"):
            load_strategy(f"expert:alone={bad}", game)


@pytest.mark.parametrize("cls", [ExpertStrategy, IsmctsStrategy])
def test_the_declared_parameters_are_the_constructors(cls: type) -> None:
    """``parameters()`` (what the registry reads of a compiled class) lists ``__init__``'s keywords and defaults, as
    the source has them."""
    path = Path(__file__).resolve().parents[2] / (cls.__module__.replace(".", "/") + ".py")  # compiled: no getsource
    source = path.read_text(encoding="utf-8")
    init = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__
        for node in node.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    names = [a.arg for a in init.args.args[1:]]
    defaults = [ast.literal_eval(d) for d in init.args.defaults]
    assert cls.parameters() == dict(zip(names, defaults, strict=True))


def test_the_model_file_is_part_of_the_code_fingerprint() -> None:
    assert MODEL.resolve() in [Path(p).resolve() for p in sources(get_game("palais-royal"))]
    assert MODEL.resolve() not in [Path(p).resolve() for p in sources(get_game("palastgefluester"))]


def test_a_policy_scores_linearly_and_refuses_a_model_of_other_features(tmp_path: Path) -> None:
    policy = LinearPolicy(("a", "b"), {"": [1.0, -2.0], "move": [0.5, 0.0]})
    assert policy.scores("recruit", [[1.0, 1.0], [3.0, 0.5]]) == [-1.0, 2.0]
    assert policy.best("recruit", [[1.0, 1.0], [3.0, 0.5]]) == 1
    assert policy.best("move", [[4.0, 9.0], [3.0, -9.0]]) == 0
    path = tmp_path / "model.json"
    path.write_text(json.dumps(policy.to_json()), encoding="utf-8")
    assert LinearPolicy.load(path, ("a", "b")).weights == policy.weights
    with pytest.raises(ValueError, match="other features"):
        LinearPolicy.load(path, ("a", "c"))
    with pytest.raises(ValueError, match="weights"):
        LinearPolicy(("a", "b"), {"": [1.0]})


def test_a_network_model_of_other_features_or_value_head_is_refused_where_expert_is_made(tmp_path: Path) -> None:
    data = json.loads(MODEL.read_text(encoding="utf-8"))
    data.pop("value", None)  # a shipped model's own head, if it has one: each case below brings its own or none
    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps({**data, "features": [*data["features"][:-1], "renamed"]}), encoding="utf-8")
    headed = tmp_path / "headed.json"
    head = ValueHead([0.0] * len(data["features"]), 0.0).to_json(data["features"])
    headed.write_text(json.dumps({**data, "value": {**head, "weights": head["weights"][1:]}}), encoding="utf-8")
    for path, why in ((renamed, "fitted on other features"), (headed, "value head is not fitted")):
        with pytest.raises(StrategySpecError, match=why) as caught:
            load_strategy(f"expert:model={path}", get_game("palais-royal"))
        assert "\n" not in str(caught.value)
    # a head that fits is kept beside the policy, and the policy plays as before
    fits = tmp_path / "fits.json"
    fits.write_text(json.dumps({**data, "value": head}), encoding="utf-8")
    assert load_policy(fits).meta["value"]["weights"] == head["weights"]


def test_the_pipeline_reproduces_a_small_model_from_a_fixed_seed(tmp_path: Path) -> None:
    """Two games of a tiny teacher, recorded twice from the same seed: the same table, and the same fit."""
    teacher = "ismcts:budget=2,horizon=1"
    rows = generate("palais-royal", teacher, ExpertStrategy, 2, seed=3)
    again = generate("palais-royal", teacher, ExpertStrategy, 2, seed=3)
    assert rows == again and rows
    assert {r["kind"] for r in rows} <= set(rules.DECISION_KINDS) - {"cards", "draw", "keep"}
    assert all(len(r["features"]) == len(LONG_FEATURES) for r in rows)  # two rounds of replies recorded
    decisions = pl.DataFrame(rows).group_by("decision").agg(pl.col("played").sum(), pl.col("candidate").min())
    assert decisions["candidate"].max() == 0 and decisions["played"].max() == 1  # one choice played, listed first
    path = tmp_path / "data.parquet"
    write_table(rows, path)
    table = pl.read_parquet(path).with_columns(file=pl.lit(0))
    first, report = fit(table, LONG_FEATURES, seed=5, holdout=0.5, by_kind=False)
    second, _ = fit(table, LONG_FEATURES, seed=5, holdout=0.5, by_kind=False)
    with pytest.raises(ValueError, match=f"rows hold {len(LONG_FEATURES)} features, not the {len(FEATURES)}"):
        fit(table, FEATURES, seed=5, holdout=0.5, by_kind=False)  # a subset is fitted on rows cut to it
    assert first.weights == second.weights and report["all"]["decisions"] > 0
    # the command line writes the model with its provenance
    model = tmp_path / "model.json"
    assert expert_train.main(["fit", str(path), "--seed", "5", "--write", "--model", str(model)]) == 0
    written = json.loads(model.read_text(encoding="utf-8"))
    assert written["seed"] == 5 and written["games"] == 2 and "fit data.parquet" in written["command"]
    assert expert_train.main(["fit", str(tmp_path / "missing.parquet")]) == 1
    assert tuple(written["features"]) == LONG_FEATURES and load_policy(model).features == LONG_FEATURES
    # fitted on the first features alone (one round of replies, or none), the policy is a model expert plays
    # playing that many rounds out
    for flag, features in (("--one-round", FEATURES), ("--no-replies", TURN_FEATURES), (None, LONG_FEATURES)):
        short = tmp_path / f"short{flag}.json"
        argv = ["fit", str(path), "--seed", "5", *([flag] if flag else []), "--write", "--model", str(short)]
        assert expert_train.main(argv) == 0
        written = json.loads(short.read_text(encoding="utf-8"))
        assert tuple(written["features"]) == features
        # with a screen for each shorter feature set (none below the turn's own), fitted on the same data
        assert [(tuple(x["policy"]["features"]), x["keep"]) for x in written.get("screens", [])] == [
            (f, keep) for f, keep in ExpertStrategy().screen_sets if len(f) < len(features)
        ]
        assert load_policy(short).features == features
        seats = [ExpertStrategy(model=str(short)), load_strategy("greedy")]
        assert play_game(COMPONENTS, RuleOptions(players=2), 5, seats).finished


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fewer_rounds_of_replies_describe_a_candidate_by_the_first_features_of_more(seed: int) -> None:
    """A model fitted on the first features of the recorded rows (the data records two rounds of replies) sees what
    expert computes for it with fewer rounds: the same rows cut short, on the same deal; the second round's figures
    are the leaf value's at the end of the seat's next turn and the replies to it."""
    expert = ExpertStrategy(budget=0)
    state = _state_at(200 + seed, 4 + seed)
    greedy = load_strategy("greedy")
    while rules.decision(state).kind != "move":  # on to a movement, the decision expert describes most
        dec = rules.decision(state)
        rules.apply(state, greedy.choose(PlayerView(state, dec.seat), dec))
    decision = rules.decision(state)
    view = PlayerView(state, decision.seat)
    rows = {r: expert.featurize(view, decision, random.Random(seed), r) for r in (0, 1, 2)}
    assert rows[2] is not None and len(rows[2][0]) > 1
    for r, features in ((0, TURN_FEATURES), (1, FEATURES), (2, LONG_FEATURES)):
        assert rows[r][0] == rows[2][0] and all(len(row) == len(features) for row in rows[r][1])
        assert [row[: len(features)] for row in rows[2][1]] == rows[r][1]
    over = LONG_FEATURES.index("reply_over"), LONG_FEATURES.index("second_over")
    assert all(row[over[1]] >= row[over[0]] for row in rows[2][1])  # a game over after the replies stays over
    assert any(row[-4:] != row[-8:-4] for row in rows[2][1])  # the next round is played, not copied
    # deepened a candidate at a time (as a model's screens deepen their best few), each row is the same, cut short
    described = expert.describe(view, decision, random.Random(seed))
    assert described is not None
    choices, partial = described
    some = list(range(0, len(choices), 2))
    partial.deepen(some)
    partial.deepen(some[:1])
    assert [partial.rounds(i) for i in range(len(choices))] == [2 if i == 0 else 1 if i in some else 0
                                                                for i in range(len(choices))]  # fmt: skip
    assert all(row == rows[2][1][i][: len(row)] for i, row in enumerate(partial.rows))
    with pytest.raises(ValueError, match="rounds deep"):
        partial.deepen([0])


def _walk(first_seed: int, player: Any) -> Iterator[tuple[Any, Any, object]]:
    """The first 60 decisions of three two-player games from a few turns in, each as ``player`` decides it (a fresh
    view each: the same decision stream): the state, the decision and the choice, before the choice is played."""
    for seed in range(3):
        state = _state_at(first_seed + seed, 2 + seed)
        for _ in range(60):
            if state.over:
                break
            dec = rules.decision(state)
            choice = player.choose(PlayerView(state, dec.seat), dec)
            yield state, dec, choice
            rules.apply(state, choice)


def _screened_model(tmp_path: Path, name: str, screens: list[dict]) -> Path:
    """The shipped model with ``screens`` in place of its own."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({**json.loads(MODEL.read_text(encoding="utf-8")), "screens": screens}), "utf-8")
    return path


def _screen(features: tuple[str, ...], weights: dict[str, float], keep: int) -> dict:
    return {"keep": keep, "policy": LinearPolicy(features, {"": [weights.get(f, 0.0) for f in features]}).to_json()}


def test_a_screen_passes_only_its_best_few_on_to_the_policy(tmp_path: Path) -> None:
    """Planted screens on the turn's features alone: one that keeps the single candidate it ranks first, the base
    style's own choice, makes expert play greedy's choice at every decision; one that keeps every candidate changes
    no choice of the model's; ``screen=off`` reads none."""
    game = get_game("palais-royal")
    base_first = _screen(TURN_FEATURES, {"is_base": 1.0}, 1)
    only_base = _screened_model(tmp_path, "only-base", [base_first])
    everyone = _screened_model(tmp_path, "everyone", [{**base_first, "keep": 10_000}])
    greedy = load_strategy("greedy")
    screened = load_strategy(f"expert:budget=0,no_pass_after=off,model={only_base}", game)
    players = {
        "everyone": load_strategy(f"expert:model={everyone}", game),
        "off": load_strategy(f"expert:screen=off,model={only_base}", game),
    }
    decided = differ = 0
    for state, dec, mine in _walk(300, load_strategy("expert", game)):
        base = greedy.choose(PlayerView(state, dec.seat), dec)
        assert screened.choose(PlayerView(state, dec.seat), dec) == base
        for player in players.values():
            assert player.choose(PlayerView(state, dec.seat), dec) == mine
        decided += dec.kind in ("move", "recruit")
        differ += mine != base
    assert decided >= 20 and differ >= 1  # the model does choose otherwise than greedy: the screen decided


def _screens_best(strategy: ExpertStrategy, state, dec) -> tuple[object, float]:
    """What a screen sure of its best plays, and by how much it leads: the first screen that has more candidates than
    it keeps, its best (the first of equals), each candidate described as deep as that screen reads, on the deal
    ``choose`` samples."""
    view = PlayerView(state, dec.seat)
    described = strategy.describe(view, dec, random.Random(view.rng.getrandbits(64)))
    assert described is not None
    choices, rows = described
    screen = next(screen for screen, keep in strategy.screens if len(choices) > keep)
    for _ in range(ROUNDS[len(screen.features)]):
        rows.deepen(list(range(len(choices))))
    scores = screen.scores(dec.kind, [row[: len(screen.features)] for row in rows.rows])
    order = sorted(range(len(choices)), key=lambda i: (-scores[i], i))
    return choices[order[0]], scores[order[0]] - scores[order[1]]


def test_a_screen_sure_of_its_best_plays_it_without_the_longer_rollouts(tmp_path: Path) -> None:
    """``sure``: where a screen's best candidate leads its second by the gap or more, it is played at once. A gap no
    score difference reaches changes no choice; one every difference reaches plays the first screen's best at every
    decision it screens (the policy's own choice often differs), but not where the race follows (``alone=none``:
    the race decides between the best two); the model file's ``play.sure`` is the default."""
    game = get_game("palais-royal")
    path = MODEL.parent / "candidates" / "expert-iteration-4.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    declaring = tmp_path / "declaring.json"
    declaring.write_text(json.dumps({**data, "play": {**data["play"], "sure": {"move": 1e-9, "recruit": 1e-9}}}))
    spec = "expert:no_pass_after=off,model="
    off, never = (load_strategy(f"{spec}{path},sure={gap}", game) for gap in ("off", "1e9"))
    always = [load_strategy(f"{spec}{path},sure={gap}", game) for gap in ("1e-9", "move:1e-9/recruit:1e-9")]
    always.append(load_strategy(f"{spec}{declaring}", game))
    assert off.sure_gaps == {} and never.sure_gaps["move"] == never.sure_gaps["recruit"] == 1e9
    assert all(player.sure_gaps["move"] == player.sure_gaps["recruit"] == 1e-9 for player in always)
    moves_only = load_strategy(f"{spec}{path},sure=move:1e-9", game)
    racing, racing_sure = (load_strategy(f"{spec}{path},alone=none,sure={gap}", game) for gap in ("off", "1e-9"))
    decided = differ = 0
    for state, dec, mine in _walk(400, off):
        assert never.choose(PlayerView(state, dec.seat), dec) == mine
        if off.describe(PlayerView(state, dec.seat), dec, random.Random(0)) is None:
            continue
        best, lead = _screens_best(off, state, dec)
        if lead > 0.0:  # equals at the top: no screen is sure of one (the same deal can give two equal rows)
            assert all(player.choose(PlayerView(state, dec.seat), dec) == best for player in always)
            decided += 1
            differ += best != mine
        only = moves_only.choose(PlayerView(state, dec.seat), dec)
        assert only == (best if dec.kind == "move" and lead > 0.0 else mine)
        raced = racing.choose(PlayerView(state, dec.seat), dec)
        assert racing_sure.choose(PlayerView(state, dec.seat), dec) == raced
    assert decided >= 20 and differ >= 1
    for bad in ("never", "0", "-1", "inf", "move:0", "move=1", "card:1", "move:1/recruit"):
        with pytest.raises(StrategySpecError, match="sure"):
            load_strategy(f"expert:sure={bad}", game)
    for bad_value in (-1.0, "1", True, {"move": 0}, {"deal": 1.0}):
        declaring.write_text(json.dumps({**data, "play": {**data["play"], "sure": bad_value}}), "utf-8")
        with pytest.raises(ValueError, match="play.sure"):
            ExpertStrategy(model=str(declaring))


def test_a_model_whose_screens_do_not_lead_up_to_it_is_refused_in_one_line(tmp_path: Path) -> None:
    """A screen must keep one candidate or more and read fewer of the model's first features than the next one
    (and than the model), as many as some rounds of replies give; anything else is refused where the strategy is
    made."""
    features = load_policy().features
    shorter = next(f for f in (TURN_FEATURES, FEATURES, LONG_FEATURES) if len(f) < len(features))
    longer = next(f for f in (LONG_FEATURES, FEATURES) if len(f) >= len(features))
    cases = {
        "keeps-none": ([_screen(shorter, {}, 0)], "must keep"),
        "as-long": ([_screen(longer, {}, 2)], "fewer of the model's first features"),
        "twice": ([_screen(shorter, {}, 3), _screen(shorter, {}, 2)], "fewer of the model's first features"),
        "renamed": ([_screen(("a", "b"), {}, 2)], "fewer of the model's first features"),
        "no-round": ([_screen(shorter[:10], {}, 2)], "no round of replies describes"),
        "no-policy": ([{"keep": 2}], "not a policy"),
    }
    for name, (screens, why) in cases.items():
        with pytest.raises(StrategySpecError, match=why) as caught:
            load_strategy(f"expert:model={_screened_model(tmp_path, name, screens)}", get_game("palais-royal"))
        assert "\n" not in str(caught.value)
    with pytest.raises(StrategySpecError, match="screen is one of"):
        load_strategy("expert:screen=some", get_game("palais-royal"))


def test_every_fit_runs_on_one_blas_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model's bytes must not depend on the machine's cores: a product split over BLAS threads adds in another
    order, and a network's fit magnifies the last bits (Palais Royal's value model, fitted on 2 threads and on 1:
    weights up to 2.0 apart). Every optimisation of a fit (the linear policy, the network, the value head) runs on
    one thread, on a machine whose BLAS would use two."""
    import scipy.optimize
    from threadpoolctl import threadpool_info, threadpool_limits

    threads: list[int] = []
    real = scipy.optimize.minimize

    def spy(*args, **kwargs):
        threads.append(max([p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"], default=1))
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "minimize", spy)
    path = tmp_path / "data.parquet"
    write_table(generate("palais-royal", "ismcts:budget=2,horizon=1", ExpertStrategy, 4, seed=3), path)
    table = pl.read_parquet(path).with_columns(file=pl.lit(0))
    with threadpool_limits(limits=2, user_api="blas"):
        fit(table, LONG_FEATURES, seed=5, holdout=0.25, by_kind=False)
        fit(table, LONG_FEATURES, seed=5, holdout=0.25, by_kind=False, student="mlp", hidden=4)
        fit_value(table, LONG_FEATURES, seed=5, holdout=0.25)
        assert max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas") == 2  # the machine's
    assert len(threads) >= 3 and set(threads) == {1}


def test_the_student_can_play_the_recorded_games() -> None:
    """With the student playing (its own positions, the teacher's analysis recorded), the games differ from the
    teacher's own, and every decision still has the teacher's choice among its candidates or none of them."""
    teacher = "ismcts:budget=2,horizon=1"

    def student() -> ExpertStrategy:
        return ExpertStrategy(budget=0)

    own = generate("palais-royal", teacher, student, 1, seed=4, play="student")
    taught = generate("palais-royal", teacher, student, 1, seed=4)
    assert own and own != taught
    assert max(pl.DataFrame(own).group_by("decision").agg(pl.col("played").sum())["played"]) == 1
    with pytest.raises(ValueError, match="play"):
        generate("palais-royal", teacher, student, 1, seed=4, play="both")


def _state_at(seed: int, turns: int):
    state = new_game(COMPONENTS, RuleOptions(players=2), seed)
    greedy = load_strategy("greedy")
    while state.turn_no < turns and not state.over:
        dec = rules.decision(state)
        rules.apply(state, greedy.choose(PlayerView(state, dec.seat), dec))
    return state


def test_expert_reads_only_its_seats_view() -> None:
    """Two states that the deciding seat cannot tell apart (the other hand and the deck dealt anew) get the same
    choice at every decision of a turn, and the hidden cards it would need to cheat are not where it reads."""
    expert = ExpertStrategy()
    checked = 0
    for seed in range(4):
        state = _state_at(100 + seed, 6 + seed)
        seat = rules.decision(state).seat
        other = state.copy()
        pool = [c for s in range(state.n) if s != seat for c in state.hands[s]] + list(state.deck)
        random.Random(seed).shuffle(pool)
        for s in range(state.n):
            if s != seat:
                size = len(state.hands[s])
                other.hands[s], pool = pool[:size], pool[size:]
        other.deck = pool
        turn = state.turn_no
        while state.turn_no == turn and not state.over:
            dec = rules.decision(state)
            if dec.seat != seat or dec.kind == "draw":  # the cards drawn differ: the views would too
                break
            mine = expert.choose(PlayerView(state, seat), dec)
            assert expert.choose(PlayerView(other, seat), rules.decision(other)) == mine
            rules.apply(state, mine)
            rules.apply(other, mine)
            checked += 1
    assert checked >= 8


def test_the_kinds_expert_does_not_decide_are_the_base_styles() -> None:
    """With ``search`` naming only movement, a recruitment is the base style's (greedy's) choice, and a movement is
    expert's own (at some decision another than greedy's)."""
    moves_only, full, greedy = ExpertStrategy(search="move"), ExpertStrategy(), load_strategy("greedy")
    recruits = deviations = 0
    for seed in range(6):
        state = _state_at(200 + seed, 4 + 2 * seed)
        for _ in range(30):
            if state.over:
                break
            dec = rules.decision(state)
            mine = moves_only.choose(PlayerView(state, dec.seat), dec)  # a fresh view: the same decision stream
            if dec.kind == "recruit":
                assert mine == greedy.choose(PlayerView(state, dec.seat), dec)
                recruits += 1
            elif dec.kind == "move":
                deviations += mine != greedy.choose(PlayerView(state, dec.seat), dec)
            rules.apply(state, full.choose(PlayerView(state, dec.seat), dec))
    assert recruits >= 3 and deviations >= 1
    with pytest.raises(ValueError, match="decision kinds"):
        ExpertStrategy(search="move/moves")


def test_expert_with_a_search_plays_a_full_game() -> None:
    seats = [load_strategy("expert:budget=4,top=2"), load_strategy("greedy")]
    result = play_game(COMPONENTS, RuleOptions(players=2), 17, seats)
    assert result.finished
    with pytest.raises(ValueError, match="top"):
        ExpertStrategy(top=1)


def _passes(choice: object) -> bool:
    return choice is None or (isinstance(choice, list | tuple) and len(choice) == 0)


def test_after_rounds_without_a_recruitment_expert_does_not_pass(tmp_path: Path) -> None:
    """Planted: a linear policy that passes every movement and recruitment it decides, alone. Against itself it
    recruits no noble before the safety net (round ``base_after``, 40, where greedy takes over). With
    ``no_pass_after=2`` it passes no decision it decides once two rounds have gone by without a recruitment (where it
    has another candidate), and nobles are recruited all game; as a model file's ``play.no_pass_after`` it does the
    same."""
    weights = [10.0 if name == "passes" else 0.0 for name in FEATURES]
    passer = tmp_path / "passer.json"
    passer.write_text(json.dumps({"features": list(FEATURES), "weights": {"": weights}}), encoding="utf-8")
    declaring = tmp_path / "declaring.json"
    declaring.write_text(
        json.dumps({"features": list(FEATURES), "weights": {"": weights}, "play": {"no_pass_after": 2}}),
        encoding="utf-8",
    )
    game = get_game("palais-royal")
    stalled = [load_strategy(f"expert:budget=0,model={passer}", game) for _ in range(2)]
    state = new_game(COMPONENTS, RuleOptions(players=2), 1000)
    run_to_end(state, stalled)
    assert state.round >= 40 and not [entry for entry in state.recruit_log if entry[3] < 40]
    for spec in (f"expert:budget=0,no_pass_after=2,model={passer}", f"expert:budget=0,model={declaring}"):
        seats = [load_strategy(spec, game) for _ in range(2)]
        state = new_game(COMPONENTS, RuleOptions(players=2), 1000)
        guarded = 0
        while not state.over:
            dec = rules.decision(state)
            described = seats[dec.seat].featurize(PlayerView(state, dec.seat), dec, random.Random(0))
            choice = seats[dec.seat].choose(PlayerView(state, dec.seat), dec)
            # three rounds on from the last recruitment (a seat counts from its first decision that saw it: at most
            # one round later), where the seat has a candidate that does not pass
            idle = state.round - max((entry[3] for entry in state.recruit_log), default=0)
            if idle >= 3 and described is not None and not all(map(_passes, described[0])):
                assert not _passes(choice), (state.round, dec.kind)
                guarded += 1
            rules.apply(state, choice)
        # the game moves on: at least one noble every three rounds before the safety net's round
        assert guarded > 0 and state.finished
        assert len([entry for entry in state.recruit_log if entry[3] < 40]) >= 13, state.recruit_log


def test_rounds_without_a_recruitment_are_counted_per_seat_and_start_again_in_a_new_game() -> None:
    """What ``no_pass_after`` counts: per seat, the rounds since it first saw the park's present number of nobles at
    one of its decisions; one player shared by both seats counts for each as two players would, and a round that
    goes back (a new game) starts the count again; a bad value is refused in one line."""
    shared = ExpertStrategy(no_pass_after="off")
    own = [ExpertStrategy(no_pass_after="off") for _ in range(2)]
    greedy = load_strategy("greedy")
    for seed in (5, 6):
        state = new_game(COMPONENTS, RuleOptions(players=2), seed)
        seen_idle = 0
        while not state.over:
            dec = rules.decision(state)
            counts = {shared.rounds_without_recruitment(PlayerView(state, dec.seat)),
                      own[dec.seat].rounds_without_recruitment(PlayerView(state, dec.seat))}  # fmt: skip
            assert len(counts) == 1, (seed, state.round)
            seen_idle = max(seen_idle, *counts)
            if state.round == 0:  # the setup: a new game's count starts again
                assert counts == {0}
            rules.apply(state, greedy.choose(PlayerView(state, dec.seat), dec))
        assert seen_idle >= 1
    for bad in ("never", "0", "-1"):
        with pytest.raises(StrategySpecError, match="no_pass_after"):
            load_strategy(f"expert:no_pass_after={bad}", get_game("palais-royal"))


# the candidates kept for the next install: iteration 3 (docs/notes/2026-12-02-screens.md), fitted with
# --features all on the installed model's play, accepted head to head against it; iteration 4
# (docs/notes/2026-12-07-iteration-4.md), fitted on iteration 3's own play, its anchored gate's interval reaching 0,
# with the sure screens' gaps (docs/notes/2026-12-07-sure-screens.md)
CANDIDATES = {
    3: ("all", "--features all", "accepted", {}),
    4: ("model", "candidates/expert-iteration-3.json", "rejected", {"move": 0.5, "recruit": 1.25}),
    5: ("model", "candidates/expert-iteration-4.json", "rejected", {"move": 0.5, "recruit": 1.25}),
}


@pytest.mark.parametrize("number", sorted(CANDIDATES))
def test_a_candidate_model_reads_as_expert_reads_it_with_its_screens(number: int) -> None:
    """A candidate kept for the next install: a network on two rounds of replies with its value head and two screens
    below it (the turn's features keeping 3, one round of replies keeping 2), its provenance the `palais train`
    command that fits it from the iteration before and its gate's decision (anchored: the decision its paired
    interval gives), and the gaps at which its screens are sure; it plays a game through `expert:model=...`, the
    screens read."""
    path = MODEL.parent / "candidates" / f"expert-iteration-{number}.json"
    policy = load_policy(path)
    assert isinstance(policy, MlpPolicy) and policy.features == LONG_FEATURES and policy.meta["target"] == "value"
    provenance = policy.meta["iteration"]
    features, option, decision, sure = CANDIDATES[number]
    assert provenance["number"] == number and provenance["from_iteration"] == number - 1
    assert provenance["features"] == features
    assert policy.meta["games"] == 2880 and option in policy.meta["command"]
    gate = provenance["gate"]
    assert gate["decision"] == decision and gate["self_play"]["decision"] == "passed"
    if "anchor" in gate:  # both models against the anchor on the same seeds, decided by the paired interval
        assert gate["candidate"]["seed"] == gate["current"]["seed"] and gate["difference"]["groups"] == 200
        assert (gate["difference"]["ci"][0] > 0) == (decision == "accepted")
    strategy = ExpertStrategy(model=str(path))
    assert [(screen.features, keep) for screen, keep in strategy.screens] == [(TURN_FEATURES, 3), (FEATURES, 2)]
    assert strategy.alone_counts == {2} and strategy.no_pass_rounds == 2 and strategy.sure_gaps == sure
    assert play_game(COMPONENTS, RuleOptions(players=2), 7, [strategy, strategy]).finished
