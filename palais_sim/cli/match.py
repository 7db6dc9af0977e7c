"""`palais match A B`: an A/B test on paired, seat-rotated games that stops as soon as the SPRT decides."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, exit_for_failed, fail, stopped
from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    ComponentsOpt,
    GameOpt,
    MaxRoundsGameOpt,
    check_backend,
    root_seed_option,
    rules_for,
    with_rule_options,
)
from palais_sim.core.game import Game


@with_rule_options
def match(
    a: str = typer.Argument(..., help="Strategy A (a spec: greedy, NAME:PARAM=VALUE, package.module:Class, ...)"),
    b: str = typer.Argument(..., help="Strategy B"),
    game: Game = GameOpt,
    players: int | None = typer.Option(
        None, "--players", "-p", help="Players; with more than 2, A plays P-1 copies of B \\[default: 2; the game's]"
    ),
    use_sprt: bool = typer.Option(
        True, "--sprt/--no-sprt", help="Stop as soon as the SPRT decides (--no-sprt: play --max-games)"
    ),
    elo0: float = typer.Option(0.0, "--elo0", help="H0: A is this many Elo stronger (logistic)"),
    elo1: float = typer.Option(5.0, "--elo1", help="H1: A is this many Elo stronger"),
    alpha: float = typer.Option(0.05, "--alpha", help="Chance of accepting H1 when H0 holds"),
    beta: float = typer.Option(0.05, "--beta", help="Chance of accepting H0 when H1 holds"),
    max_games: int = typer.Option(20000, "--max-games", "-n", help="Stop here if the SPRT has not decided"),
    batch: int = typer.Option(50, "--batch", help="Seat-rotation groups between two looks at the test"),
    seed: int = root_seed_option(1, "Root seed (group k plays group_seed(seed, k))"),
    workers: int | None = typer.Option(
        None,
        "--workers",
        "-w",
        help="Worker processes per batch (1 = in-process) \\[default: 1; with --backend ray: the cluster's CPUs]",
    ),
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    components: Path | None = ComponentsOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Keep the batches' runs here (and resume from them) \\[default: a temporary one]"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON"),
    iteration_gate: bool = typer.Option(
        False,
        "--iteration-gate",
        is_eager=True,
        help="Replay an expert iteration's gate (`palais train` records this command): its --seed lies in the range "
        "reserved for fitting; its figures judge that fit, they are no evaluation",
    ),  # fmt: skip
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """A/B test of two strategies on paired games (each seed in every seating), with a pentanomial SPRT.

    Prints the result (H0, H1 or undecided), the games played, A's score share and the Elo difference with 95%
    intervals. Group scores for two players are the pentanomial 0, 1/4, ..., 1 of a game pair.
    """
    from palais_sim.analytics.runs import RunError
    from palais_sim.study.match import MatchPlan, play_match
    from palais_sim.tournament.manifest import RunDirError
    from palais_sim.tournament.pools import kept
    from palais_sim.tournament.ray_backend import held
    from palais_sim.tournament.runner import RunStopped
    from palais_sim.tournament.schedule import ScheduleError, Settings

    try:
        if workers is not None and workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        check_backend(backend, address)
        if workers is None and backend != "ray":
            workers = 1
        players = players or game.comparison_players
        base = Settings(
            seed=seed, components=str(components.resolve()) if components is not None else None,
            max_rounds=max_rounds or game.default_max_rounds, game=game, rules=rules_for(game, rules),
        )  # fmt: skip
        plan = MatchPlan(
            a=a, b=b, players=players, sprt=use_sprt, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
            max_games=max_games, batch_groups=batch, base=base,
        )  # fmt: skip
        plan.check()
        with held(), kept():  # one start of Ray (--backend ray) or of the local pool for all the batches
            if out is not None:
                result = play_match(plan, out, workers, backend, address)
            else:
                with tempfile.TemporaryDirectory(prefix="palais-match-") as tmp:
                    result = play_match(plan, Path(tmp), workers, backend, address)
    except RunStopped as exc:
        stopped(exc)
    except (RunDirError, RunError, ScheduleError, *USER_ERRORS) as exc:
        fail(str(exc))
    typer.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.text())
    exit_for_failed(result.failed_games, "the match", allow_failures)
