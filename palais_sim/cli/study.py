"""`palais study seats | <a game's study>`: balance verdicts from paired experiments, with intervals and a margin.

Every study plays its arms through the tournament runner into run directories under --out (re-running the same
command resumes an interrupted study and reuses finished arms) and writes --out/study.json, study.md and
study.html (one self-contained page) with its charts.

The seats study is every game's and lives here; a game's own studies are its own commands, which its
``GAME.studies`` names as ``"module:attribute"``: the app
(``palais_sim.cli.commands``) adds them from the registered games, so `palais study --help` lists what they declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import typer

from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    ComponentsOpt,
    GameOpt,
    MaxRoundsGameOpt,
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
    StrategyOpt,
    WorkersOpt,
    player_counts,
    run_study_command,
    skill_levels,
)
from palais_sim.core.game import Game
from palais_sim.tournament import exits

app = typer.Typer(
    no_args_is_help=True,
    help="Balance studies: mirror seats (every game) and each game's own (as its GAME.studies declares them); paired "
    "arms, verdicts with a margin.",
)


def _factorial_flags() -> tuple[str, ...]:
    """``--factorial``, and the name each registered game gives it (``GAME.seat_values.factorial_flag``), which its
    users already type. A game that cannot be loaded adds none (``--game`` names it with its one-line error)."""
    from palais_sim.core.games import loadable_games

    flags = ["--factorial"]
    for game in loadable_games():
        facet = getattr(game, "seat_values", None)
        if facet is not None and facet.factorial_flag not in flags:
            flags.append(facet.factorial_flag)
    return tuple(flags)


@app.command("seats", epilog=exits.HELP_AGAIN)
@with_rule_options
def seats(
    out: Path = OutOpt,
    game: Game = GameOpt,
    players: str | None = typer.Option(
        None, "--players", "-p", help="Player counts, comma-separated \\[default: 2,3,4; the game's all]"
    ),
    strategies: list[str] | None = StrategyOpt,
    groups: int = typer.Option(1000, "--groups", "-g", help="Setups per arm (mirror games need no rotation)"),
    factorial: bool = typer.Option(
        False,
        *_factorial_flags(),
        help="A game whose seats start with different values (its rule option of one value per seat, the first P "
        "for P players): also permute them over the seats (a Latin square: P arms)",
    ),  # fmt: skip
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
    """Mirror play: the seat edge per player count at each skill level (and the seats' start values apart, --factorial).

    With --ladder the skill levels are one search player at a doubling budget: the page gives each rung's Elo against
    the first and says per seat whether the edge settled (the top two rungs agree within the margin).
    Size: groups x player counts x skill levels games (x P with --factorial). The question (is a seat within +-2 pp?)
    needs the default 1,000 groups: the intervals narrow as 1/sqrt(groups), from +-6 to +-11 pp at 40 groups to
    +-1.2 to +-2.2 pp at 1,000. At 2-4 players the defaults play 3,000 games a skill level (9,000 with --factorial):
    in the default game, about 15 s at its heuristic with --workers 2 (10 CPU-seconds) and about 4 CPU-minutes at
    its expert (28, 13 and 10 games a CPU-second at 2, 3 and 4 players; --workers spreads each arm over more
    cores), nearly all of it the expert level. A first look: --groups 50, about 1 CPU-minute with
    --factorial. A ladder adds (rungs - 1) x elo-groups x 2 games and its top rungs are slow: mind --groups.
    """
    from palais_sim.study.seats import SeatsPlan, run_study

    def go():
        counts = player_counts(players) if players else tuple(range(game.min_players, game.max_players + 1))
        levels = skill_levels(strategies, ladder_spec, rungs, elo_groups)
        given, values = seat_values_given(game, rules)
        spec = study_spec(levels, groups, seed, margin, workers, components=components, max_rounds=max_rounds,
                          game=game, rules=given, backend=backend, address=address)  # fmt: skip
        plan = SeatsPlan(
            spec, players=counts, values=values, factorial=factorial, ladder=ladder_spec is not None,
            elo_groups=elo_groups,
        )  # fmt: skip
        return run_study(plan, out)

    run_study_command(go, allow_failures)


def seat_values_given(game: Game, rules: Mapping[str, str]) -> tuple[dict[str, str], tuple[int, ...] | None]:
    """The rule options given, less the game's seat values (``GAME.seat_values``: its option of one value per seat),
    which the seats study sets per arm itself; and those values, read by the game's option (a one-line error)."""
    facet = getattr(game, "seat_values", None)
    given = dict(rules)
    if facet is None or facet.option not in given:
        return given, None
    option = next(o for o in game.rule_options if o.name == facet.option)
    return given, tuple(option.value(given.pop(facet.option), game.name))
