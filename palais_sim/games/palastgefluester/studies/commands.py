"""Palastgeflüster's study commands, as ``GAME.studies`` names them: `palais study persons`.

The command line of its studies, so at the CLI layer (the study beside it is at the study layer and knows no
command line): it imports the CLI's shared modules (``errors``, ``options``, ``studies``) and its own study, and
`palais study` registers these functions by name.
"""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    ComponentsOpt,
    MaxRoundsGameOpt,
    game_option,
    study_spec,
    with_rule_options,
)
from palais_sim.cli.studies import (
    EloGroupsOpt,
    LadderOpt,
    MarginOpt,
    OutOpt,
    RungsOpt,
    SeedOpt,
    WorkersOpt,
    require_study,
    run_study_command,
    skill_levels,
)
from palais_sim.core.game import Game


@with_rule_options
def persons(
    out: Path = OutOpt,
    game: Game | None = game_option("the game whose persons these are"),
    players: int = typer.Option(4, "--players", "-p", help="Players, 3 to 5"),
    strategies: list[str] | None = typer.Option(
        None, "--strategy", help="A skill level (repeat for several) \\[default: heuristic and expert]"
    ),
    groups: int = typer.Option(200, "--groups", "-g", help="Seat-rotation groups per arm"),
    subjects: str | None = typer.Option(
        None, "--persons", help="Persons to study, e.g. zofe,hofnarr \\[default: all seven]"
    ),
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int | None = WorkersOpt,
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    components: Path | None = ComponentsOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    ladder_spec: str | None = LadderOpt,
    rungs: int = RungsOpt,
    elo_groups: int = EloGroupsOpt,
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Palastgeflüster: restricted play per person (never play it but to escape a repeat vs whenever it is safe).

    Size: 2 arms x groups x players games per person and skill level; the defaults (4 players, 200 groups, seven
    persons, two skill levels) play 22,400 games with intervals of about +-3 to +-5 pp: about 40 CPU-seconds at its
    heuristic and about 40 CPU-minutes at its expert (5.6, 4.6 and 4.2 games a CPU-second at 3, 4 and 5 players),
    20 minutes on 2 cores; a balanced verdict within +-2 pp needs about 1,000 groups (five times the time). At 4
    players the persons' values at the heuristic level are within about 3 pp, so the defaults decide none there; a
    first look that decides the largest: --players 3 --strategy heuristic --groups 400 (about 40 CPU-seconds).
    """
    from palais_sim.games.palastgefluester.studies.persons import PersonsPlan, run_study

    def go():
        the_game = require_study("persons", game)
        levels = skill_levels(strategies, ladder_spec, rungs, elo_groups)
        spec = study_spec(levels, groups, seed, margin, workers, components=components, max_rounds=max_rounds,
                          game=the_game, rules=rules, backend=backend, address=address)  # fmt: skip
        wanted = tuple(x.strip().lower() for x in subjects.split(",") if x.strip()) if subjects else None
        plan = PersonsPlan(
            spec, players=players, subjects=wanted, ladder=ladder_spec is not None, elo_groups=elo_groups
        )
        return run_study(plan, out)

    run_study_command(go, allow_failures)
