"""`palais study seats | nobles | layouts`: balance verdicts from paired experiments, with intervals and a margin.

Every study plays its arms through the tournament runner into run directories under --out (re-running the same
command resumes an interrupted study and reuses finished arms) and writes --out/study.json, study.md and
study.html (one self-contained page) with its charts.
"""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, check_at_least, exit_for_failures, fail, stopped
from palais_sim.cli.options import (
    AllowFailuresOpt,
    ComponentsOpt,
    GameOpt,
    GoldLimitOpt,
    MaxRoundsGameOpt,
    MaxRoundsOpt,
    TiebreakOpt,
    parse_start_gold,
    study_spec,
)
from palais_sim.tournament import exits

app = typer.Typer(
    no_args_is_help=True,
    help="Balance studies: mirror seats, nobles (restricted play, take rates), layouts; paired arms, verdicts with a "
    "margin.",
)

StrategyOpt = typer.Option(
    None, "--strategy", help="A skill level (repeat for several) \\[default: greedy and lookahead:budget=8,horizon=2]"
)
SeedOpt = typer.Option(1, "--seed", "-s", help="Root seed: every arm plays the groups 0..G-1 of it")
MarginOpt = typer.Option(2.0, "--margin", help="Equivalence margin in percentage points of win share")
WorkersOpt = typer.Option(1, "--workers", "-w", help="Worker processes per arm (1 = in-process)")
OutOpt = typer.Option(..., "--out", "-o", help="Study directory: arm runs, study.json, study.md, study.html")
LadderOpt = typer.Option(
    None,
    "--ladder",
    help="A strength ladder as the skill levels: a search spec with a budget, doubled per rung "
    "(e.g. ismcts:budget=8 gives 8, 16, 32, 64); instead of --strategy",
)
RungsOpt = typer.Option(4, "--rungs", help="Rungs of the --ladder")
EloGroupsOpt = typer.Option(
    100, "--elo-groups", help="Setups of each rung's match against the first rung (its Elo), in every seating"
)


def skill_levels(strategies: list[str] | None, ladder_spec: str | None, rungs: int, elo_groups: int):
    """The skill levels: the --strategy ones, or the rungs of a --ladder (not both)."""
    if ladder_spec is None:
        return strategies
    if strategies:
        raise ValueError("--ladder and --strategy both name the skill levels: give one of them")
    check_at_least(elo_groups, "--elo-groups")
    from palais_sim.study.ladder import rungs as ladder_rungs

    return list(ladder_rungs(ladder_spec, rungs))


def _players(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"--players must be numbers separated by commas, got {text!r}") from None


def _run(fn, allow_failures: bool = False) -> None:
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
    from palais_sim.analytics.runs import RunError
    from palais_sim.tournament.manifest import RunDirError
    from palais_sim.tournament.runner import RunStopped
    from palais_sim.tournament.schedule import ScheduleError

    try:
        paths = fn()
    except RunStopped as exc:
        stopped(exc)
    except (RunDirError, RunError, ScheduleError, *USER_ERRORS) as exc:
        fail(str(exc))
    typer.echo(f"study written to {paths['md'].parent}: study.json, study.md, study.html (charts in charts/)")
    exit_for_failures(paths["md"].parent, "the study's arms", allow_failures)


@app.command("seats", epilog=exits.HELP_AGAIN)
def seats(
    out: Path = OutOpt,
    game: str = GameOpt,
    players: str | None = typer.Option(
        None, "--players", "-p", help="Player counts, comma-separated \\[default: 2,3,4; the game's all]"
    ),
    strategies: list[str] | None = StrategyOpt,
    groups: int = typer.Option(1000, "--groups", "-g", help="Setups per arm (mirror games need no rotation)"),
    start_gold: str | None = typer.Option(
        None, "--start-gold", help="Start gold of seat 1, 2, ... (the first P for P players) \\[default: 0,1,2,3]"
    ),
    gold_factorial: bool = typer.Option(
        False, "--gold-factorial", help="Also permute the start golds over the seats (a Latin square: P arms)"
    ),
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int = WorkersOpt,
    layout: str = typer.Option("random", "--layout", help="'random' (per game), 'first-game' or a code"),
    components: Path | None = ComponentsOpt,
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    tiebreak: str = TiebreakOpt,
    ladder_spec: str | None = LadderOpt,
    rungs: int = RungsOpt,
    elo_groups: int = EloGroupsOpt,
    allow_failures: bool = AllowFailuresOpt,
) -> None:
    """Mirror play: the seat edge per player count at each skill level (and start gold apart, --gold-factorial).

    With --ladder the skill levels are one search player at a doubling budget: the page gives each rung's Elo against
    the first and says per seat whether the edge settled (the top two rungs agree within the margin).
    Size: groups x player counts x skill levels games (x P with --gold-factorial); the defaults play 6,000 games,
    about 20 s for greedy and 15 minutes for the lookahead level on one core. A ladder adds (rungs - 1) x
    elo-groups x 2 games and its top rungs are slow: mind --groups.
    """
    from palais_sim.study.seats import SeatsPlan, run_study

    def go():
        from palais_sim.games import get_game

        the_game = get_game(game)
        counts = _players(players) if players else tuple(range(the_game.min_players, the_game.max_players + 1))
        levels = skill_levels(strategies, ladder_spec, rungs, elo_groups)
        spec = study_spec(
            levels, groups, seed, margin, workers, layout, components, gold_limit, max_rounds, None, game, tiebreak
        )
        plan = SeatsPlan(
            spec, players=counts, start_gold=parse_start_gold(start_gold), factorial=gold_factorial,
            ladder=ladder_spec is not None, elo_groups=elo_groups,
        )  # fmt: skip
        return run_study(plan, out)

    _run(go, allow_failures)


@app.command("nobles", epilog=exits.HELP_AGAIN)
def nobles(
    out: Path = OutOpt,
    game: str = GameOpt,
    players: int = typer.Option(2, "--players", "-p", help="Players, 2 to 4"),
    strategies: list[str] | None = StrategyOpt,
    groups: int = typer.Option(100, "--groups", "-g", help="Seat-rotation groups per arm"),
    subjects: str | None = typer.Option(
        None, "--nobles", help="Nobles and privilege kinds to study, e.g. N01,N17,king_plus1 \\[default: all]"
    ),
    reprice: str = typer.Option(
        "decided",
        "--reprice",
        help="Nobles to play again at other gold costs: decided (a favoured or disfavoured "
        "verdict), all, none, or ids like N17,N18",
    ),
    prices: str = typer.Option("-1,1", "--prices", help="Gold offsets of the repriced variants"),
    looks: int = typer.Option(
        1,
        "--looks",
        help="Play each subject's arm in this many batches of --groups and stop at the first decided "
        "verdict (each look's interval at 95% shared over the looks); 1: a fixed design",
    ),  # fmt: skip
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int = WorkersOpt,
    layout: str = typer.Option("random", "--layout", help="'random' (per game), 'first-game' or a code"),
    components: Path | None = ComponentsOpt,
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int = MaxRoundsOpt,
    start_gold: str | None = typer.Option(
        None, "--start-gold", help="Start gold of seat 1, 2, ... \\[default: 0,1,...]"
    ),
    ladder_spec: str | None = LadderOpt,
    rungs: int = RungsOpt,
    elo_groups: int = EloGroupsOpt,
    allow_failures: bool = AllowFailuresOpt,
) -> None:
    """What each noble and privilege kind is worth at its price: the win share a player loses when forbidden it
    (restricted play) and how often the other players take it when it is within reach; repricing lines.

    Underpriced (favoured) when having it is worth more than the margin; overpriced (disfavoured) when forbidding it
    helps, when nobody can reach it (dead) or when it is rarely taken within reach (passed over).
    Size: 1 arm x groups x players games per subject and skill level; the standard set has 42 nobles and 9 privilege
    kinds, so the defaults (2 players, 100 groups) play 10,200 games per skill level: about a minute for greedy and
    half an hour for the lookahead level on one core (use --nobles to study a few, --workers for more cores).
    Repricing adds 1 arm per price and skill level for each repriced noble. With --ladder the skill levels are one
    search player at a doubling budget: the page gives each rung's Elo and says per subject whether its value
    settled between the top two rungs (study a few nobles: the top rungs are slow).
    """
    from palais_sim.study.nobles import NoblesPlan, run_study

    def go():
        levels = skill_levels(strategies, ladder_spec, rungs, elo_groups)
        spec = study_spec(levels, groups, seed, margin, workers, layout, components, gold_limit, max_rounds,
                     parse_start_gold(start_gold, players), game)  # fmt: skip
        try:
            offsets = tuple(int(x) for x in prices.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"--prices must be whole numbers separated by commas, got {prices!r}") from None
        wanted = tuple(x.strip() for x in subjects.split(",") if x.strip()) if subjects else None
        plan = NoblesPlan(spec, players=players, subjects=wanted, reprice=reprice, offsets=offsets, looks=looks,
                          ladder=ladder_spec is not None, elo_groups=elo_groups)  # fmt: skip
        return run_study(plan, out)

    _run(go, allow_failures)


@app.command("persons", epilog=exits.HELP_AGAIN)
def persons(
    out: Path = OutOpt,
    game: str | None = typer.Option(None, "--game", help="The game \\[default: the game whose persons these are]"),
    players: int = typer.Option(4, "--players", "-p", help="Players, 3 to 5"),
    strategies: list[str] | None = typer.Option(
        None, "--strategy", help="A skill level (repeat for several) \\[default: heuristic and random]"
    ),
    groups: int = typer.Option(200, "--groups", "-g", help="Seat-rotation groups per arm"),
    subjects: str | None = typer.Option(
        None, "--persons", help="Persons to study, e.g. zofe,hofnarr \\[default: all seven]"
    ),
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int = WorkersOpt,
    components: Path | None = ComponentsOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    tiebreak: str = TiebreakOpt,
    ladder_spec: str | None = LadderOpt,
    rungs: int = RungsOpt,
    elo_groups: int = EloGroupsOpt,
    allow_failures: bool = AllowFailuresOpt,
) -> None:
    """Palastgeflüster: restricted play per person (never play it but to escape a repeat vs whenever it is safe).

    Size: 2 arms x groups x players games per person and skill level; the defaults (4 players, 200 groups, seven
    persons, two skill levels) play 22,400 games, about 3 minutes on one core.
    """
    from palais_sim.study.persons import PersonsPlan, run_study

    def go():
        from palais_sim.games import games_with_study

        levels = skill_levels(strategies, ladder_spec, rungs, elo_groups)
        spec = study_spec(levels, groups, seed, margin, workers, "random", components, None, max_rounds, None,
                          game or games_with_study("persons")[0], tiebreak)  # fmt: skip
        wanted = tuple(x.strip().lower() for x in subjects.split(",") if x.strip()) if subjects else None
        plan = PersonsPlan(
            spec, players=players, subjects=wanted, ladder=ladder_spec is not None, elo_groups=elo_groups
        )
        return run_study(plan, out)

    _run(go, allow_failures)


@app.command("layouts", epilog=exits.HELP_AGAIN)
def layouts(
    out: Path = OutOpt,
    game: str = GameOpt,
    players: str = typer.Option("2", "--players", "-p", help="Player counts, comma-separated"),
    strategies: list[str] | None = StrategyOpt,
    groups: int = typer.Option(600, "--groups", "-g", help="Games with a random layout each (the joint model)"),
    n_layouts: int = typer.Option(12, "--layouts", help="Fixed random layouts for the share of variance"),
    setups: int = typer.Option(100, "--setups", help="Setups each fixed layout (and the first-game one) is played on"),
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int = WorkersOpt,
    components: Path | None = ComponentsOpt,
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int = MaxRoundsOpt,
    allow_failures: bool = AllowFailuresOpt,
) -> None:
    """Mirror play over room layouts: one joint model of the layout features, the share of variance the layout
    explains, and the first-game layout against random ones.

    Size: (groups + (layouts + 1) x setups) games per player count and skill level; the defaults play 1,900 games
    per skill level: about 10 s for greedy and 5 minutes for the lookahead level on one core.
    """
    from palais_sim.study.layouts import LayoutsPlan, run_study

    def go():
        spec = study_spec(
            strategies, groups, seed, margin, workers, "random", components, gold_limit, max_rounds, None, game
        )
        return run_study(LayoutsPlan(spec, players=_players(players), layouts=n_layouts, setups=setups), out)

    _run(go, allow_failures)
