"""`palais balance nobles`: the gold prices that bring every noble within the margin, validated on fresh seeds."""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.errors import check_at_least, exit_for_failures, fail, stopped
from palais_sim.cli.options import AllowFailuresOpt, ComponentsOpt, GameOpt, GoldLimitOpt, MaxRoundsOpt, study_spec
from palais_sim.tournament import exits

app = typer.Typer(
    no_args_is_help=True,
    help="Propose component prices that balance the game, validated on fresh seeds (Palais Royal's nobles).",
)


@app.command("nobles", epilog=exits.HELP_AGAIN)
def nobles(
    out: Path = typer.Option(..., "--out", "-o", help="Folder of the search: its arms, balanced.toml and the page"),
    game: str = GameOpt,
    components: Path | None = ComponentsOpt,
    players: int = typer.Option(2, "--players", "-p", help="Players"),
    subjects: str | None = typer.Option(
        None, "--nobles", help="Nobles whose prices may change, e.g. N01,N17 \\[default: all]"
    ),
    strategies: list[str] | None = typer.Option(
        None, "--strategy", help="Skill level (repeat for several) \\[default: the game's study levels]"
    ),
    groups: int = typer.Option(100, "--groups", "-g", help="Setups per arm, in every seating"),
    margin: float = typer.Option(2.0, "--margin", help="Balanced within +-this many percentage points"),
    budget: int = typer.Option(500_000, "--budget", help="Games the search and its validation may play at most"),
    max_changes: int = typer.Option(5, "--max-changes", help="Nobles whose price may change, the worst first"),
    max_step: int = typer.Option(12, "--max-step", help="The farthest (gold) a price may move"),
    looks: int = typer.Option(1, "--looks", help="The nobles study's looks per arm (stop at the first decided one)"),
    rounds: int = typer.Option(2, "--rounds", help="Search rounds (each after the first studies the proposal again)"),
    seed: int = typer.Option(1, "--seed", "-s", help="Root seed of the search (the validation uses another)"),
    workers: int = typer.Option(
        1, "--workers", "-w", help="Worker processes (with --backend ray: CPUs of the cluster)"
    ),
    backend: str = typer.Option(
        "local", "--backend", help="local (a process pool) | ray (needs pip install 'palais-sim\\[ray]')"
    ),
    address: str | None = typer.Option(None, "--address", help="The Ray cluster to join (with --backend ray)"),
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int = MaxRoundsOpt,
    allow_failures: bool = AllowFailuresOpt,
) -> None:
    """Search the gold prices of the nobles the nobles study calls under- or overpriced, one at a time (the worst
    first), so that no skill level calls them so; then validate the proposal with the nobles study on fresh seeds.

    Writes OUT/balanced.toml (a complete component set with a comment per changed noble), OUT/balance.json (the
    study's rows before and on validation), OUT/balance.md and .html. Re-running the command reuses every arm
    already played (an interrupted search resumes).
    """
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
    from dataclasses import replace

    from palais_sim.analytics.runs import RunError
    from palais_sim.cli.errors import USER_ERRORS
    from palais_sim.study.balance import BalancePlan, run_balance
    from palais_sim.tournament.manifest import RunDirError
    from palais_sim.tournament.pools import BACKENDS
    from palais_sim.tournament.ray_backend import RayUnavailable, require_ray
    from palais_sim.tournament.runner import RunStopped
    from palais_sim.tournament.schedule import ScheduleError

    check_at_least(budget, "--budget")
    try:
        spec = study_spec(
            strategies, groups, seed, margin, workers, "random", components, gold_limit, max_rounds, None, game
        )
        if backend not in BACKENDS:
            raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        if backend == "ray":
            require_ray()
        spec = replace(spec, backend=backend, address=address)
        wanted = tuple(x.strip() for x in subjects.split(",") if x.strip()) if subjects else None
        plan = BalancePlan(spec, players=players, subjects=wanted, budget=budget, max_changes=max_changes,
                           max_step=max_step, rounds=rounds, looks=looks)  # fmt: skip
        paths = run_balance(plan, out)
    except RayUnavailable as exc:
        fail(str(exc), 2)
    except RunStopped as exc:
        stopped(exc)
    except (RunDirError, RunError, ScheduleError, *USER_ERRORS) as exc:
        fail(str(exc))
    typer.echo(f"balance written to {paths['md'].parent}: balanced.toml, balance.json, balance.md, balance.html")
    exit_for_failures(paths["md"].parent, "the search's arms", allow_failures)
