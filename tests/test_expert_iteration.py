"""Expert iteration (``palais train``, ``strategies.common.iteration``): one iteration end to end on a tiny setting
for each game with an ``expert``, resumed after an interruption without replaying a finished chunk and giving the
same model bytes, its gate decision and provenance recorded; the value head; a model of other features refused in
one line."""

from __future__ import annotations

import json
import random
import shlex
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner, Result

from palais_sim.cli import app
from palais_sim.core.games import get_game
from strategies.common import iteration
from strategies.common.distill import ValueHead, fit_value, load_model, load_screens, value_head
from strategies.palastgefluester.expert_train import main as train_main

# tiny settings: a teacher of two rollouts, one game a chunk, the policy alone in a gate of one seat rotation
TINY = {
    "palais-royal": ["--teacher", "ismcts:budget=2,horizon=1", "--gate-games", "2"],
    "palastgefluester": ["--teacher", "search:budget=2,horizon=1", "--gate-games", "3"],
}


def tiny(game: str, *more: str) -> list[str]:
    return ["train", "--game", game, "--out", "it", "--chunks", "2", "--chunk-games", "1",
            "--expert", "expert:budget=0", "--self-play-games", "2", *TINY[game], *more]  # fmt: skip


def shipped_iteration(game: str) -> int:
    """The iteration number of the game's shipped model (0: fitted before `palais train`)."""
    pipe = iteration.pipeline(get_game(game))
    return int(pipe.load(pipe.model).meta.get("iteration", {}).get("number", 0))


def run_in(path: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> Result:
    path.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(path)  # the same relative --out in every directory: the same command, the same model bytes
    return CliRunner().invoke(app, argv)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each game's tiny iteration, run once without interruption."""
    out = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        for game in TINY:
            where = tmp_path_factory.mktemp(game)
            result = run_in(where, tiny(game), monkeypatch)
            assert result.exit_code == 0, result.output
            out[game] = where / "it"
    return out


@pytest.mark.parametrize("game", sorted(TINY))
def test_the_gates_recorded_command_replays_it(game: str, finished: dict[str, Path], monkeypatch) -> None:
    """The model's provenance names a `palais match` command that plays its gate again (its root seed is a reserved
    one: `--iteration-gate` lets match take it, and without the flag it is refused)."""
    gate = json.loads((finished[game] / "model.json").read_text(encoding="utf-8"))["iteration"]["gate"]
    argv = shlex.split(gate["command"])
    assert argv[:2] == ["palais", "match"] and "--iteration-gate" in argv
    monkeypatch.chdir(finished[game].parent)
    replayed = CliRunner().invoke(app, [*argv[1:], "--json"])
    assert replayed.exit_code == 0, replayed.output
    figures = json.loads(replayed.output)
    assert (figures["games"], figures["score"], figures["seed"]) == (gate["games"], gate["score"], gate["seed"])
    refused = CliRunner().invoke(app, [a for a in argv[1:] if a != "--iteration-gate"])
    assert refused.exit_code == 2 and "reserved for fitting" in refused.output


@pytest.mark.parametrize("game", sorted(TINY))
def test_an_iteration_runs_end_to_end_and_records_its_gate_and_provenance(game: str, finished: dict[str, Path]) -> None:
    out = finished[game]
    state = json.loads((out / "state.json").read_text(encoding="utf-8"))
    model = json.loads((out / "model.json").read_text(encoding="utf-8"))
    pipe = iteration.pipeline(get_game(game))
    shipped = pipe.load(pipe.model)
    provenance = model["iteration"]
    # one iteration after the shipped model's, its seeds from the reserved range, each chunk entered with its data size
    number = shipped_iteration(game) + 1
    chunk_seeds, gate_seed = iteration.seeds(number, 2)
    assert provenance["number"] == number and provenance["chunk_seeds"] == chunk_seeds
    assert all(s in iteration.ITERATION_SEEDS for s in [*chunk_seeds, gate_seed])
    assert [c["seed"] for c in state["chunks"].values()] == chunk_seeds and provenance["games"] == 2
    assert provenance["candidates"] == sum(c["candidates"] for c in state["chunks"].values()) > 0
    assert model["command"].startswith(f"palais train --game {game} --out it ")
    # the gate: the match's figures, its command and the decision, in the model and the state alike
    gate = provenance["gate"]
    assert gate == state["gate"] and gate["seed"] == gate_seed and gate["games"] == int(TINY[game][-1])
    assert gate["decision"] == ("accepted" if gate["score"] >= 0.5 else "rejected")
    assert gate["command"].startswith("palais match expert:budget=0,model=it/candidate.json expert:budget=0 ")
    assert "/tmp" not in (out / "model.json").read_text(encoding="utf-8")  # no machine's paths
    # how the current model is played (Palais Royal's: alone at 2 players, no pass after 2 idle rounds) goes with it
    assert model.get("play") == shipped.meta.get("play") and ("play" in model) == (game == "palais-royal")
    # the new model is the expert's: the same features and form as the shipped one, and a value head beside it
    policy = load_model((out / "model.json").resolve(), shipped.features)
    assert policy.features == shipped.features and type(policy) is type(shipped)
    head = value_head(policy)
    assert head is not None and len(head.weights) == len(shipped.features)
    # a shipped model from `palais train` carries its head (no player reads it); one fitted before carries none
    assert (value_head(shipped) is None) == (shipped_iteration(game) == 0)
    # every recorded candidate carries its seat's share of the game's win
    table = pl.read_parquet(out / "chunk-0000.parquet")
    shares = table.group_by("game", "seat").agg(pl.col("win_share").unique())
    assert all(len(s) == 1 for s in shares["win_share"].to_list())
    assert set(table["win_share"].to_list()) <= {0.0, 1.0, 0.5, 1 / 3}


@pytest.mark.parametrize("game", sorted(TINY))
def test_a_resumed_iteration_replays_no_finished_chunk_and_gives_the_same_model(
    game: str, finished: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[int] = []
    generate = iteration.generate

    def killed_at_the_second_chunk(*args: object, **kwargs: object) -> object:
        played.append(int(args[4]))  # type: ignore[call-overload]
        if len(played) == 2:
            raise KeyboardInterrupt  # a kill in the middle of the second chunk
        return generate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(iteration, "generate", killed_at_the_second_chunk)
    assert run_in(tmp_path, tiny(game), monkeypatch).exit_code == 130  # interrupted
    chunk_seeds, _ = iteration.seeds(shipped_iteration(game) + 1, 2)
    state = json.loads((tmp_path / "it" / "state.json").read_text(encoding="utf-8"))
    assert list(state["chunks"]) == ["0"] and not (tmp_path / "it" / "chunk-0001.parquet").exists()
    played.clear()
    monkeypatch.setattr(iteration, "generate", lambda *a, **k: played.append(int(a[4])) or generate(*a, **k))
    assert run_in(tmp_path, tiny(game), monkeypatch).exit_code == 0
    assert played == [chunk_seeds[1]]  # only the unfinished chunk
    assert (tmp_path / "it" / "model.json").read_bytes() == (finished[game] / "model.json").read_bytes()
    # once done, a run again plays nothing (the gate's batches are kept too)
    played.clear()
    assert run_in(tmp_path, tiny(game), monkeypatch).exit_code == 0 and played == []


def without_train_command(model: dict) -> dict:
    """A model's JSON without the `palais train` command line it records (the only field ``--workers`` changes)."""
    assert model["command"].startswith("palais train ")
    return {key: value for key, value in model.items() if key != "command"}


@pytest.mark.parametrize("game", sorted(TINY))
def test_chunks_played_by_a_pool_of_workers_give_the_same_chunks_and_model(
    game: str, finished: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_in(tmp_path, tiny(game, "--workers", "2"), monkeypatch)
    assert result.exit_code == 0, result.output
    out = tmp_path / "it"
    for k in range(2):
        name = f"chunk-{k:04d}.parquet"
        assert pl.read_parquet(out / name).equals(pl.read_parquet(finished[game] / name))
    state, alone = (json.loads((d / "state.json").read_text(encoding="utf-8")) for d in (out, finished[game]))
    assert sorted(state["chunks"]) == ["0", "1"]
    for k in ("0", "1"):  # the same entries, but the CPU time the chunk took
        assert {**state["chunks"][k], "cpu_seconds": 0} == {**alone["chunks"][k], "cpu_seconds": 0}
    models = [json.loads((d / "model.json").read_text(encoding="utf-8")) for d in (out, finished[game])]
    assert "--workers 2" in models[0]["command"] and "--workers" not in models[1]["command"]
    assert without_train_command(models[0]) == without_train_command(models[1])


def test_an_accepted_model_is_installed_and_the_next_iteration_is_the_same_command(
    finished: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --install, an accepted model replaces the one it started from; the same command again is done, and
    with a new --out it is the iteration after, on the next block of seeds."""
    current = tmp_path / "current.json"
    current.write_bytes(iteration.pipeline(get_game("palastgefluester")).model.read_bytes())
    # a gate share of 0.01 accepts what the tiny gate's few games say (the acceptance, not the strength, is tested)
    argv = tiny("palastgefluester", "--model", str(current), "--install", "--gate-share", "0.01")
    assert run_in(tmp_path, argv, monkeypatch).exit_code == 0
    gate = json.loads((tmp_path / "it" / "model.json").read_text(encoding="utf-8"))["iteration"]["gate"]
    assert gate["decision"] == "accepted"
    assert current.read_bytes() == (tmp_path / "it" / "model.json").read_bytes()
    again = run_in(tmp_path, argv, monkeypatch)
    assert again.exit_code == 0 and "done" in again.output
    played: list[int] = []
    monkeypatch.setattr(iteration, "generate", lambda *a, **k: played.append(int(a[4])) or [])
    argv[argv.index("it")] = "next"
    run_in(tmp_path, argv, monkeypatch)  # stopped by the empty data: the seeds are what matters here
    assert played == iteration.seeds(shipped_iteration("palastgefluester") + 2, 2)[0]


def test_an_iteration_of_other_settings_in_the_same_directory_is_refused_in_one_line(
    finished: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = tiny("palastgefluester")
    argv[argv.index("search:budget=2,horizon=1")] = "search:budget=3,horizon=1"
    result = run_in(finished["palastgefluester"].parent, argv, monkeypatch)
    assert result.exit_code != 0 and result.output.count("\n") == 1
    assert "another teacher" in result.output and "use another --out" in result.output


def test_a_chunk_that_does_not_read_is_one_line(
    finished: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(finished["palastgefluester"], tmp_path / "it")
    (tmp_path / "it" / "chunk-0001.parquet").write_text("not a table", encoding="utf-8")
    result = run_in(tmp_path, tiny("palastgefluester"), monkeypatch)
    assert result.exit_code != 0 and result.output.count("\n") == 1 and "parquet" in result.output, result.output


def test_a_model_file_of_other_features_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pipe = iteration.pipeline(get_game("palastgefluester"))
    data = json.loads(pipe.model.read_text(encoding="utf-8"))
    renamed = tmp_path / "renamed.json"
    policy_only = {key: value for key, value in data.items() if key != "value"}  # the policy's own check
    renamed.write_text(json.dumps({**policy_only, "features": ["renamed", *data["features"][1:]]}), encoding="utf-8")
    # a value head of other features than its policy's
    headed = tmp_path / "headed.json"
    head = ValueHead([0.5] * (len(data["features"]) - 1), 0.0).to_json(data["features"][1:])
    headed.write_text(json.dumps({**data, "value": head}), encoding="utf-8")
    for path, why in ((renamed, "fitted on other features"), (headed, "value head is not fitted")):
        with pytest.raises(ValueError, match=why):
            pipe.load(path)
        # the command line: one line before any game, and a non-zero exit
        result = CliRunner().invoke(app, ["match", f"expert:model={path}", "heuristic", "--game", "palastgefluester",
                                          "--no-sprt", "--max-games", "3"])  # fmt: skip
        assert result.exit_code != 0 and why in result.output and result.output.count("\n") == 1, result.output
        assert "game 0" not in result.output
        # and as an iteration's starting model
        result = run_in(tmp_path, ["train", "--game", "palastgefluester", "--out", "it", "--model", str(path)],
                        monkeypatch)  # fmt: skip
        assert result.exit_code != 0 and result.output.count("\n") == 1 and why in result.output


def test_the_value_head_learns_the_win_share_from_the_played_moves() -> None:
    """The played candidate's first feature decides the game; the others' rows do not enter the fit."""
    rng = random.Random(3)
    rows = []
    for game in range(200):
        lead = rng.uniform(-2.0, 2.0)
        won = 1.0 if lead + rng.gauss(0.0, 0.5) > 0 else 0.0
        for candidate in range(2):
            noise = [rng.uniform(-1, 1), rng.uniform(-1, 1)]
            rows.append({"game": game, "decision": game, "candidate": candidate, "played": candidate == 0,
                         "features": [lead if candidate == 0 else -9.0, *noise], "win_share": won})  # fmt: skip
    head = fit_value(pl.DataFrame(rows), ("lead", "a", "b"), seed=2)
    assert head.weights[0] > 1.0 and abs(head.weights[1]) < 0.5
    assert head.value([2.0, 0.0, 0.0]) > 0.9 > 0.1 > head.value([-2.0, 0.0, 0.0])
    held = head.meta["held_out"]
    assert held["decisions"] == 40 and held["brier"] < held["constant_brier"] / 2
    again = fit_value(pl.DataFrame(rows), ("lead", "a", "b"), seed=2)
    assert again.weights == head.weights and again.bias == head.bias
    with pytest.raises(ValueError, match="win_share"):
        fit_value(pl.DataFrame(rows).drop("win_share"), ("lead", "a", "b"))


def test_an_iteration_fits_on_earlier_iterations_chunks_too_first_and_recorded(
    finished: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--with-data DIR: the fit reads DIR's chunks before its own (the same model as the game's training command
    fitted on both sets of files in that order), and the provenance names them; a directory that is no iteration, or
    of another game, is refused in one line."""
    earlier = finished["palastgefluester"]
    shutil.copytree(earlier, tmp_path / "earlier")
    argv = tiny("palastgefluester", "--with-data", "earlier", "--target", "value")
    result = run_in(tmp_path, argv, monkeypatch)
    assert result.exit_code == 0, result.output
    model = json.loads((tmp_path / "it" / "model.json").read_text(encoding="utf-8"))
    provenance = model["iteration"]
    (with_data,) = provenance["with_data"]
    state = json.loads((earlier / "state.json").read_text(encoding="utf-8"))
    assert with_data["dir"] == "earlier" and with_data["iteration"] == state["settings"]["iteration"]
    assert with_data["chunk_seeds"] == [c["seed"] for c in state["chunks"].values()] and with_data["games"] == 2
    assert model["games"] == 4 and "with 2 games of iteration" in model["data"]
    files = [*(tmp_path / "earlier").glob("chunk-*.parquet"), *(tmp_path / "it").glob("chunk-*.parquet")]
    by_hand = tmp_path / "by-hand.json"
    assert train_main(["fit", *map(str, sorted(files[:2]) + sorted(files[2:])), "--target", "value",
                       "--student", model["model"], "--write", "--model", str(by_hand)]) == 0  # fmt: skip
    assert json.loads(by_hand.read_text(encoding="utf-8"))["nets"] == model["nets"]
    for bad, why in (("nowhere", "no iteration there"), ("it", "this iteration's own directory")):
        refused = run_in(tmp_path, tiny("palastgefluester", "--with-data", bad), monkeypatch)
        assert refused.exit_code != 0 and refused.output.count("\n") == 1 and why in refused.output, refused.output
    shutil.copytree(finished["palais-royal"], tmp_path / "other")
    refused = run_in(tmp_path / "more", [*tiny("palastgefluester", "--with-data", "../other")], monkeypatch)
    assert refused.exit_code != 0 and "another game" in refused.output, refused.output


def test_features_all_fits_on_every_feature_the_data_records_and_refuses_data_that_records_fewer(
    finished: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--features all: the new model is fitted on every feature the expert's data records (Palais Royal's two rounds
    of replies, more than the shipped model reads), plays as expert, and says so in its provenance; an earlier
    iteration's chunks that record fewer features are refused in one line, not fitted on a shorter row."""
    pipe = iteration.pipeline(get_game("palais-royal"))
    assert len(pipe.data_features) > len(pipe.load(pipe.model).features)  # else this test shows nothing
    result = run_in(tmp_path / "all", tiny("palais-royal", "--features", "all"), monkeypatch)
    assert result.exit_code == 0, result.output
    path = tmp_path / "all" / "it" / "model.json"
    model = json.loads(path.read_text(encoding="utf-8"))
    assert tuple(model["features"]) == pipe.data_features and model["iteration"]["features"] == "all"
    assert pipe.load(path).features == pipe.data_features
    # with the screens the game's expert declares below it, each on the first features of the model's
    assert pipe.screen_sets  # else this shows nothing
    screens = load_screens(path, pipe.data_features, *(f for f, _ in pipe.screen_sets))
    assert [(s.features, keep) for s, keep in screens] == list(pipe.screen_sets)
    assert all(screen["policy"]["held_out"] for screen in model["screens"])  # fitted as the model is, held out
    fewer = tmp_path / "fewer" / "it"
    shutil.copytree(finished["palais-royal"], fewer)
    for chunk in fewer.glob("chunk-*.parquet"):
        table = pl.read_parquet(chunk)
        table.with_columns(pl.col("features").list.head(len(pipe.data_features) - 4)).write_parquet(chunk)
    # as earlier data, refused before any chunk is played; as the iteration's own chunks, before the fit
    for where, argv in ((tmp_path / "more", ["--with-data", "../fewer/it"]), (tmp_path / "fewer", [])):
        refused = run_in(where, tiny("palais-royal", "--features", "all", *argv), monkeypatch)
        assert refused.exit_code != 0 and refused.output.count("\n") == 1, refused.output
        assert f"records {len(pipe.data_features) - 4} features" in refused.output, refused.output
    assert not (tmp_path / "more" / "it").exists()


def test_the_anchored_gate_plays_both_models_against_the_anchor_on_the_same_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --gate-anchor both models play the anchor on the gate's seeds: the same groups in both matches, the
    paired difference their score shares' difference, each recorded command plays its match again, and the decision
    is the interval's (a gate whose interval is undefined or touches 0 rejects)."""
    argv = tiny("palais-royal", "--gate-anchor", "greedy")
    argv[argv.index("--gate-games") + 1] = "6"  # three seat-rotation groups
    result = run_in(tmp_path, argv, monkeypatch)
    assert result.exit_code == 0, result.output
    assert "against greedy: new model" in result.output and "paired difference" in result.output
    gate = json.loads((tmp_path / "it" / "model.json").read_text(encoding="utf-8"))["iteration"]["gate"]
    candidate, current, difference = gate["candidate"], gate["current"], gate["difference"]
    assert gate["anchor"] == "greedy" and candidate["seed"] == current["seed"] == gate_seed("palais-royal")
    assert candidate["groups"] == current["groups"] == difference["groups"] == 3
    assert difference["mean"] == pytest.approx(candidate["score"] - current["score"])
    low = difference["ci"][0]
    assert gate["decision"] == ("accepted" if low is not None and low > 0 else "rejected")
    for command, figures in zip(gate["commands"], (candidate, current), strict=True):
        argv_match = shlex.split(command)
        assert argv_match[3] == "greedy" and "--iteration-gate" in argv_match
        replayed = CliRunner().invoke(app, [*argv_match[1:], "--json"])
        assert replayed.exit_code == 0, replayed.output
        assert json.loads(replayed.output)["score"] == figures["score"]


def gate_seed(game: str) -> int:
    return iteration.seeds(shipped_iteration(game) + 1, 2)[1]


@pytest.mark.parametrize(
    ("ci", "decision"),
    [
        ([0.004, 0.06], "accepted"),  # above 0: stronger against the anchor
        ([-0.01, 0.06], "rejected"),  # a gain the games do not show
        ([0.0, 0.0], "rejected"),  # the same games (an unchanged model): no interval to decide on
        ([float("nan"), float("nan")], "rejected"),  # one group: no interval
    ],
)
def test_the_anchored_gate_accepts_only_a_difference_whose_interval_lies_above_0(
    ci: list[float], decision: str, tmp_path: Path
) -> None:
    run = iteration.Iteration(get_game("palastgefluester"), iteration.Options(out=tmp_path, gate_anchor="heuristic"),
                              "palais train")  # fmt: skip
    figures = {k: 0 for k in iteration.SHOWN} | {"failed_games": 0, "score": 0.4, "score_ci": [0.3, 0.5]}
    played: list[tuple[str, str, int]] = []

    def compare(first: iteration.GateMatch, second: iteration.GateMatch) -> dict:
        played.extend((m.a, m.b, m.seed) for m in (first, second))
        mean = sum(ci) / 2
        return {"candidate": figures, "current": figures,
                "difference": {"mean": mean, "se": 0.01, "ci": ci, "n_groups": 100}}  # fmt: skip

    gate = run.gate_against_anchor(tmp_path / "candidate.json", compare)
    assert gate["decision"] == decision
    assert [(b, seed) for _, b, seed in played] == [("heuristic", run.gate_seed)] * 2
    assert played[0][0].endswith("candidate.json") and played[1][0].endswith(run.current.name)
    with pytest.raises(ValueError, match="failed games"):
        run.gate_against_anchor(
            tmp_path / "c.json", lambda a, b: compare(a, b) | {"current": {**figures, "failed_games": 1}}
        )


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--game", "palais-royal", "--chunks", "0"], "--chunks must be at least 1"),
        (["--game", "palais-royal", "--gate-share", "1.5"], "--gate-share must be between 0 and 1"),
        (["--game", "palais-royal", "--play", "both"], "--play must be student or teacher"),
        (["--game", "palais-royal", "--model", "missing.json"], "no model at"),
        (["--game", "chess"], "chess"),
        (["--game", "palais-royal", "--gate-anchor", " "], "--gate-anchor must name a strategy spec"),
        (["--game", "palais-royal", "--features", "some"], "--features must be one of model, all"),
    ],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(
    argv: list[str], why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_in(tmp_path, ["train", "--out", "it", *argv], monkeypatch)
    assert result.exit_code != 0 and result.output.count("\n") == 1 and why in result.output, result.output


def test_a_candidate_that_stalls_in_self_play_fails_the_check_and_an_equal_one_passes(tmp_path: Path) -> None:
    """Planted: a linear policy that passes every movement and recruitment it decides (sure of it: no race). Against
    itself no noble is recruited until the safety net hands the game to the base style at round 40, three times the
    shipped model's median: it fails the self-play check, played as studies play it whatever the gate's
    ``--expert``; the shipped model against itself passes it."""
    from strategies.palais_royal.expert_features import FEATURES

    passer = tmp_path / "passer.json"
    weights = [10.0 if name == "passes" else 0.0 for name in FEATURES]
    passer.write_text(json.dumps({"features": list(FEATURES), "weights": {"": weights}}), encoding="utf-8")
    options = iteration.Options(out=tmp_path / "it", expert="expert:budget=0", self_play_games=3)
    run = iteration.Iteration(get_game("palais-royal"), options, "palais train")
    check = run.self_play(passer)
    assert check["decision"] == "failed" and check["candidate"]["stalled"] == 3 and check["current"]["stalled"] == 0
    assert check["candidate"]["median_rounds"] > check["stalled_above_rounds"] >= 2 * 10
    assert run.self_play(run.current)["decision"] == "passed"
