"""The toy race's study command, as ``GAME.studies`` names it: `palais study target`.

At the CLI layer (its study, ``target``, is at the study layer and knows no command line): it imports the CLI's
shared modules (``options``, ``studies``) and its own study, and `palais study` registers it by name.
"""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    MaxRoundsGameOpt,
    game_option,
    study_spec,
    with_rule_options,
)
from palais_sim.cli.studies import (
    MarginOpt,
    OutOpt,
    SeedOpt,
    WorkersOpt,
    player_counts,
    require_study,
    run_study_command,
)
from palais_sim.core.game import Game


@with_rule_options
def target(
    out: Path = OutOpt,
    game: Game | None = game_option("the built-in game that has this study"),
    players: str = typer.Option("2,3,4", "--players", "-p", help="Player counts, comma-separated"),
    strategies: list[str] | None = typer.Option(
        None, "--strategy", help="A skill level (repeat for several) \\[default: the game's study levels]"
    ),
    groups: int = typer.Option(1000, "--groups", "-g", help="Setups per arm (one mirror game each)"),
    longer: int | None = typer.Option(
        None, "--longer", metavar="STEPS", help="The long arm's target \\[default: twice the target]"
    ),
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int | None = WorkersOpt,
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """The toy race: does a longer race (--target, and --longer) change seat 1's edge in mirror play?

    Size: 2 arms x groups x player counts x skill levels games; the defaults (1,000 groups, 2 to 4 players, two
    skill levels) play 12,000 games, a few seconds.
    """
    from tests.toygame.studies.target import STUDY, TargetPlan, run_study

    def go():
        the_game = require_study(STUDY, game)
        spec = study_spec(strategies, groups, seed, margin, workers, max_rounds=max_rounds, game=the_game,
                          rules=rules, backend=backend, address=address)  # fmt: skip
        return run_study(TargetPlan(spec, players=player_counts(players), longer=longer), out)

    run_study_command(go, allow_failures)
