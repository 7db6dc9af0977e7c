"""Palais Royal's study commands, as ``GAME.studies`` names them: `palais study nobles`, `palais study layouts` and
`palais balance nobles`.

The command line of its studies, so at the CLI layer (the studies beside it are at the study layer and know no
command line): it imports the CLI's shared modules (``errors``, ``options``, ``studies``) and its own studies, and
`palais study` / `palais balance` register these functions by name.
"""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.errors import check_at_least, exit_for_failures
from palais_sim.cli.options import (
    NO_RULES,
    AddressOpt,
    AllowFailuresOpt,
    BackendOpt,
    ComponentsOpt,
    GameOpt,
    MaxRoundsOpt,
    root_seed_option,
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
    echo_balance_verdicts,
    played,
    player_counts,
    require_study,
    run_study_command,
    skill_levels,
)
from palais_sim.core.game import Game


@with_rule_options
def nobles(
    out: Path = OutOpt,
    game: Game = GameOpt,
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
        "verdict (each look's interval the repeated 95% interval of an alpha-spending design); 1: a fixed design",
    ),  # fmt: skip
    spending: str = typer.Option(
        "obf",
        "--spending",
        help="The looks' alpha-spending function: obf (O'Brien-Fleming shape: strict early "
        "looks, a last look nearly a fixed design's) or pocock (about the same level at every look)",
    ),  # fmt: skip
    budget: int | None = typer.Option(
        None,
        "--budget",
        help="Games the study may play: the subjects' looks in rounds (every undecided subject's "
        "next look, then the next round) until it is spent; rerun with a larger one to carry on \\[default: no cap]",
    ),  # fmt: skip
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int | None = WorkersOpt,
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    components: Path | None = ComponentsOpt,
    max_rounds: int = MaxRoundsOpt,
    ladder_spec: str | None = LadderOpt,
    rungs: int = RungsOpt,
    elo_groups: int = EloGroupsOpt,
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """What each noble and privilege kind is worth at its price: the win share a player loses when forbidden it
    (restricted play) and how often the other players take it when it is within reach; repricing lines.

    Underpriced (favoured) when having it is worth more than the margin; overpriced (disfavoured) when forbidding it
    helps, when nobody can reach it (dead) or when it is rarely taken within reach (passed over).
    Size: 1 arm x groups x players games per subject and skill level at most; the standard set has 42 nobles and 9
    privilege kinds, so the defaults (2 players, 100 groups) play 10,200 games per skill level: at greedy about 45 s
    with --workers 2 (30 CPU-seconds), at expert about 13 CPU-minutes (13 games a CPU-second: 7 minutes on 2 cores),
    more with repricing (use --nobles to study a few; --workers spreads each arm over more cores). 100 groups give
    intervals of about +-2 to +-7 pp; a balanced verdict within +-2 pp needs about 1,000 (ten times the time). With
    --looks K a subject stops at its first decided look (the repeated 95% intervals of a Lan-DeMets spending design,
    --spending), so clear subjects cost a fraction of their groups; --budget caps the games of the whole study,
    played look by look over the undecided subjects (each row gives the games it cost, the page the games per
    decided row).
    Repricing adds 1 arm per price and skill level for each repriced noble. With --ladder the skill levels are one
    search player at a doubling budget: the page gives each rung's Elo and says per subject whether its value
    settled between the top two rungs (study a few nobles: the top rungs are slow).
    """
    from palais_sim.games.palais_royal.studies.nobles import NoblesPlan, run_study

    def go():
        require_study("nobles", game)
        levels = skill_levels(strategies, ladder_spec, rungs, elo_groups)
        spec = study_spec(levels, groups, seed, margin, workers, components=components, max_rounds=max_rounds,
                          game=game, rules=rules, backend=backend, address=address)  # fmt: skip
        try:
            offsets = tuple(int(x) for x in prices.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"--prices must be whole numbers separated by commas, got {prices!r}") from None
        wanted = tuple(x.strip() for x in subjects.split(",") if x.strip()) if subjects else None
        plan = NoblesPlan(spec, players=players, subjects=wanted, reprice=reprice, offsets=offsets, looks=looks,
                          spending=spending, budget=budget, ladder=ladder_spec is not None,
                          elo_groups=elo_groups)  # fmt: skip
        return run_study(plan, out)

    run_study_command(go, allow_failures)


@with_rule_options
def layouts(
    out: Path = OutOpt,
    game: Game = GameOpt,
    players: str = typer.Option("2", "--players", "-p", help="Player counts, comma-separated"),
    strategies: list[str] | None = StrategyOpt,
    groups: int = typer.Option(600, "--groups", "-g", help="Games with a random layout each (the joint model)"),
    n_layouts: int = typer.Option(12, "--layouts", help="Fixed random layouts for the share of variance"),
    setups: int = typer.Option(100, "--setups", help="Setups each fixed layout is played on"),
    first_game_setups: int | None = typer.Option(
        None,
        "--first-game-setups",
        help="Games of the first-game layout (against the random-layout games' mean) \\[default: --groups]",
    ),
    seed: int = SeedOpt,
    margin: float = MarginOpt,
    workers: int | None = WorkersOpt,
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    components: Path | None = ComponentsOpt,
    max_rounds: int = MaxRoundsOpt,
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Mirror play over room layouts: the distances from the Gate and the Stairway (the primary rows), what the
    room in the centre and the Stairway's neighbours add beyond them (a row per block), the first-game layout against
    random ones, and the share of variance the layout explains.

    Size: (groups + first-game-setups + layouts x setups) games per player count and skill level, the first-game
    layout's games as many as --groups unless given; the defaults play 2,400 games per skill level: at one player
    count a few seconds at greedy (about 1,000 games a CPU-second) and about 3 CPU-minutes at expert (13 games a
    CPU-second at 2 players), nearly all of it the expert level. 600 random-layout games give intervals of about
    +-4.5 pp per step of a distance: the largest distance effects at greedy (about -5 pp per step) decide from
    about 2,000, a balanced distance from about 5,000. A first look: --strategy greedy --groups 5000 (about 12
    CPU-seconds).
    """
    from palais_sim.games.palais_royal.studies.layouts import LayoutsPlan, run_study

    def go():
        require_study("layouts", game)
        spec = study_spec(strategies, groups, seed, margin, workers, components=components, max_rounds=max_rounds,
                          game=game, rules=rules, backend=backend, address=address)  # fmt: skip
        return run_study(LayoutsPlan(spec, players=player_counts(players), layouts=n_layouts, setups=setups,
                                     first_game_setups=first_game_setups), out)  # fmt: skip

    run_study_command(go, allow_failures)


@with_rule_options
def balance_nobles(
    out: Path = typer.Option(..., "--out", "-o", help="Folder of the search: its arms, balanced.toml and the page"),
    game: Game = GameOpt,
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
    seals: bool = typer.Option(
        True, "--seals/--no-seals", help="Let the search change each seal colour (after gold); --no-seals keeps them"
    ),
    max_seal_step: int = typer.Option(
        4, "--max-seal-step", help="The most seal units (both colours together) a price may move"
    ),
    points: bool = typer.Option(
        True, "--points/--no-points", help="Let the search change points (after gold and seals); --no-points keeps them"
    ),
    max_point_step: int = typer.Option(4, "--max-point-step", help="The most points a price may move"),
    looks: int = typer.Option(1, "--looks", help="The nobles study's looks per arm (stop at the first decided one)"),
    rounds: int = typer.Option(2, "--rounds", help="Search rounds (each after the first studies the proposal again)"),
    validation_groups: int | None = typer.Option(
        None, "--validation-groups", help="The validation's setups per arm \\[default: --groups]"
    ),
    validation_looks: int | None = typer.Option(
        None, "--validation-looks", help="The validation's looks per arm \\[default: --looks]"
    ),
    seed: int = root_seed_option(1, "Root seed of the search (the validation uses another)"),
    workers: int = typer.Option(
        1, "--workers", "-w", help="Worker processes (with --backend ray: CPUs of the cluster)"
    ),
    backend: str = BackendOpt,
    address: str | None = AddressOpt,
    max_rounds: int = MaxRoundsOpt,
    allow_failures: bool = AllowFailuresOpt,
    rules: dict[str, str] = NO_RULES,
) -> None:
    """Search the prices of the nobles the nobles study calls under- or overpriced, one at a time (the worst first),
    for the cheapest change that balances each: gold first, then its seals, then its points (--no-seals, --no-points
    keep those fixed), within --max-step, --max-seal-step and --max-point-step; then validate the proposal with the
    nobles study on fresh seeds. A noble no price within the limits balances is named with why. Gold alone cannot
    balance a noble nobody can pay the seals of, nor one worth too many points for any gold: so the whole price is
    the default.

    Writes OUT/balanced.toml (a complete component set with a comment per changed noble), OUT/balance.json (the
    study's rows before and on validation), OUT/balance.md and .html. Re-running the command reuses every arm
    already played (an interrupted search resumes).

    Size: up to --budget games for the search and its validation. The search may screen at a few hundred groups;
    the validation alone decides whether the proposal holds, so give it the size of a decisive nobles study
    (--validation-groups 6000 --validation-looks 10: each arm stops at its first decided look). The question (every
    noble of a set within the margin at every skill level, the expert one included) takes hours on 2 cores (make
    reports runs it). A first look: --nobles N19,N20 --strategy greedy --groups 300 --validation-groups 1000,
    about 16 CPU-seconds (N19 moves from 0 to 1 gold and is balanced on the validation's seeds).
    """
    from palais_sim.games.palais_royal.studies.balance import BalancePlan, run_balance

    check_at_least(budget, "--budget")
    check_at_least(max_seal_step, "--max-seal-step")
    check_at_least(max_point_step, "--max-point-step")

    def go() -> dict[str, Path]:
        require_study("balance nobles", game)
        spec = study_spec(strategies, groups, seed, margin, workers, components=components, max_rounds=max_rounds,
                          game=game, rules=rules, backend=backend, address=address)  # fmt: skip
        wanted = tuple(x.strip() for x in subjects.split(",") if x.strip()) if subjects else None
        plan = BalancePlan(spec, players=players, subjects=wanted, budget=budget, max_changes=max_changes,
                           max_step=max_step, max_seal_step=max_seal_step if seals else 0,
                           max_point_step=max_point_step if points else 0, rounds=rounds, looks=looks,
                           validation_groups=validation_groups, validation_looks=validation_looks)  # fmt: skip
        return run_balance(plan, out)

    paths = played(go)
    echo_balance_verdicts(paths["md"].parent / "balance.json")
    typer.echo(f"balance written to {paths['md'].parent}: balanced.toml, balance.json, balance.md, balance.html")
    exit_for_failures(paths["md"].parent, "the search's arms", allow_failures)
