"""`palais train`: one expert iteration of a game's `expert` (``strategies.common.iteration``), its gate played
with `palais match`'s machinery."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import typer

from palais_sim.cli.errors import COMMAND_LINE, USER_ERRORS, fail, stopped
from palais_sim.cli.options import GameOpt
from palais_sim.core.game import Game


def train(
    game: Game = GameOpt,
    out: Path = typer.Option(..., "--out", "-o", help="The iteration's directory (resumed where it holds one)"),
    model: Path | None = typer.Option(None, "--model", help="The current model \\[default: the shipped one]"),
    teacher: str | None = typer.Option(
        None, "--teacher", help="The search that labels the positions \\[default: the expert's, e.g. ismcts:budget=100]"
    ),
    players: int | None = typer.Option(None, "--players", "-p", help="Players \\[default: the expert's]"),
    play: str = typer.Option(
        "student", "--play", help="Who plays the recorded games: student (the current expert) or teacher"
    ),
    chunks: int = typer.Option(8, "--chunks", help="Chunks of data, each written whole (a killed run resumes)"),
    chunk_games: int = typer.Option(60, "--chunk-games", help="Games per chunk"),
    student: str | None = typer.Option(None, "--student", help="linear or mlp \\[default: the current model's]"),
    hidden: int | None = typer.Option(None, "--hidden", help="A network's tanh units \\[default: the current's]"),
    target: str | None = typer.Option(None, "--target", help="played, visits or value \\[default: the current's]"),
    features: str = typer.Option(
        "model", "--features", help="Fit on the current model's features (model) or on every one the data records (all)"
    ),
    l2: float = typer.Option(1e-3, "--l2", help="The fit's L2 penalty"),
    fit_seed: int = typer.Option(1, "--fit-seed", help="The fit's held-out games and start"),
    expert: str = typer.Option("expert", "--expert", help="The spec the gate plays both models with"),
    gate_games: int = typer.Option(400, "--gate-games", help="Games of the gate match"),
    gate_share: float = typer.Option(0.5, "--gate-share", help="The score share the new model must reach"),
    self_play_games: int = typer.Option(
        100,
        "--self-play-games",
        help="Games of each model against itself: a new model that stalls (a game longer "
        "than twice the current's median) more often than the current one is rejected",
    ),
    gate_anchor: str | None = typer.Option(
        None,
        "--gate-anchor",
        metavar="SPEC",
        help="Gate against a fixed player instead: both models play SPEC on the same seeds, and the new model is "
        "accepted where the 95% interval of its paired score difference lies above 0 (--gate-share is not used)",
    ),
    with_data: list[Path] = typer.Option(
        [],
        "--with-data",
        metavar="DIR",
        help="An earlier iteration's directory whose chunks the fit reads too, before this one's (repeatable)",
    ),
    workers: int = typer.Option(
        1, "--workers", "-w", help="Worker processes of the data's chunks (one chunk each) and of the gate match"
    ),
    install: bool = typer.Option(False, "--install", help="Write an accepted model over --model (or the shipped one)"),
) -> None:
    """One expert iteration: the current expert's games labelled by a stronger teacher, a new policy and value head
    fitted, a gate match against the current model, the new model written with its provenance (OUT/model.json).

    Seeds from a range reserved for fitting; OUT/state.json says what is done (a killed run resumes at the next
    chunk, the gate at its next batch). Exit status 0 once the model and the gate's decision are written.
    """
    from polars.exceptions import PolarsError  # a chunk's table that does not read (edited, truncated by hand)

    from palais_sim.analytics.runs import RunError
    from palais_sim.study.match import MatchPlan, MatchResult, play_match, score_difference
    from palais_sim.tournament.manifest import RunDirError
    from palais_sim.tournament.pools import WorkerLost, init_plain_worker, make_executor
    from palais_sim.tournament.runner import RunStopped
    from palais_sim.tournament.schedule import ScheduleError, Settings
    from strategies.common.iteration import DataChunk, GateMatch, Iteration, Options

    def played_chunks(
        play: Callable[[DataChunk], tuple[int, dict]], tasks: list[DataChunk]
    ) -> Iterator[tuple[int, dict]]:
        """The data's chunks, one per task of a pool of ``--workers`` processes (``make_executor`` plays them in this
        process with one): each chunk is written whole by its worker and entered in the state here as it finishes."""
        executor = make_executor(max(1, min(workers, len(tasks))), init_plain_worker, ())
        try:
            yield from executor.imap_unordered(play, tasks)
        except BaseException:
            executor.terminate()
            raise
        executor.close()

    def played(match: GateMatch) -> MatchResult:
        base = Settings(seed=match.seed, max_rounds=game.default_max_rounds, game=game)
        plan = MatchPlan(a=match.a, b=match.b, players=match.players, sprt=False, max_games=match.games,
                         batch_groups=match.batch_groups, base=base)  # fmt: skip
        result = play_match(plan, match.out, workers)
        typer.echo(result.text(), err=True)
        return result

    def figures(result: MatchResult) -> dict:
        return result.to_dict() | {"failed_games": result.failed_games}

    def gate(match: GateMatch) -> dict:
        return figures(played(match))

    def compare(candidate: GateMatch, current: GateMatch) -> dict:
        first, second = played(candidate), played(current)
        difference = score_difference(first, second)
        return {"candidate": figures(first), "current": figures(second), "difference": difference.to_dict()}

    try:
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        options = Options(out=out, model=model, teacher=teacher, players=players, play=play, chunks=chunks,
                          chunk_games=chunk_games, student=student, hidden=hidden, target=target, features=features,
                          l2=l2, fit_seed=fit_seed, expert=expert, gate_games=gate_games, gate_share=gate_share,
                          gate_anchor=gate_anchor, install=install, with_data=tuple(with_data),
                          self_play_games=self_play_games)  # fmt: skip
        command = shlex.join(["palais", *COMMAND_LINE])
        result = Iteration(game, options, command).run(
            gate, lambda text: typer.echo(text, err=True), compare, played_chunks
        )
    except RunStopped as exc:
        stopped(exc)
    except (RunDirError, RunError, ScheduleError, KeyError, PolarsError, WorkerLost, *USER_ERRORS) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    typer.echo(f"{out / 'model.json'}: {result['decision']} ({gate_summary(result)})")


def _share(value: float | None, interval: list[float | None], signed: bool = False) -> str:
    """A share (or a difference of shares) with its interval, in points where ``signed``."""
    if value is None:
        return "no estimate"
    low, high = interval
    if signed:
        shown = f"{100 * value:+.1f} points"
        return shown + (f" [{100 * low:+.1f}, {100 * high:+.1f}]" if low is not None and high is not None else "")
    return f"{value:.3f}" + (f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else "")


def gate_summary(gate: dict) -> str:
    """The gate's figures in one line: the score share against the current model, or against the anchor the paired
    difference and each model's share; then the self-play check's stalled games."""
    if "difference" not in gate:
        shown = f"score share {_share(gate['score'], gate['score_ci'])} over {gate['games']} games"
    else:
        d = gate["difference"]
        shown = (f"against {gate['anchor']}: new model "
                 f"{_share(gate['candidate']['score'], gate['candidate']['score_ci'])}, current "
                 f"{_share(gate['current']['score'], gate['current']['score_ci'])}, paired difference "
                 f"{_share(d['mean'], d['ci'], signed=True)} over {d['groups']} groups of {gate['candidate']['games']} "
                 "games each")  # fmt: skip
    check = gate.get("self_play")
    if check is None:  # an iteration recorded before the check
        return shown
    return (
        f"{shown}; self-play {check['decision']}: stalled {check['candidate']['stalled']} of {check['games']} "
        f"games, current {check['current']['stalled']} (longer than {check['stalled_above_rounds']:g} rounds)"
    )
