"""The rule options every command that plays games takes, defined once (`palais simulate` has its own forms: its
defaults are None so that --resume can tell the options given from the stored ones)."""

from __future__ import annotations

import shlex
import sys

import typer

from palais_sim.games import DEFAULT_GAME

GameOpt = typer.Option(
    DEFAULT_GAME, "--game", help="The game, by name (`palais games` lists them: the built-in and registered ones)"
)
TiebreakOpt = typer.Option(
    "display", "--tiebreak", help="Palastgeflüster: display (the rules) or noted (the variant's tie-break)"
)
LayoutOpt = typer.Option("random", "--layout", help="'random' (per game), 'first-game', or a code like PMS/KGD/COB")
ComponentsOpt = typer.Option(None, "--components", help="A component-set TOML file (default: the standard set)")
GoldLimitOpt = typer.Option(None, "--gold-limit", help="Finite bank of gold (e.g. 57); default unlimited")
MaxRoundsOpt = typer.Option(100, "--max-rounds", help="Stop a game after this many rounds (recorded unfinished)")
MaxRoundsGameOpt = typer.Option(
    None,
    "--max-rounds",
    help="Stop a game after this many rounds (recorded unfinished) \\[default: the game's: 100; 200]",
)
StartGoldOpt = typer.Option(
    None,
    "--start-gold",
    help="Start gold of seat 1, 2, ... comma-separated, e.g. 0,1 \\[default: the rulebook's 0,1,2,3]",
)


def parse_start_gold(text: str | None, players: int | None = None) -> tuple[int, ...] | None:
    """``"0,1,2"`` as a tuple (None stays None); raises ValueError for anything else."""
    if text is None:
        return None
    try:
        gold = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"--start-gold must be whole numbers separated by commas, got {text!r}") from None
    if players is not None and len(gold) != players:
        raise ValueError(f"--start-gold needs {players} numbers (one per seat) for {players} players, got {text!r}")
    if any(g < 0 for g in gold):
        raise ValueError(f"--start-gold must not be negative, got {text!r}")
    return gold


AllowFailuresOpt = typer.Option(
    False, "--allow-failures", help="Exit 0 even when some games failed (they are kept with seed and error)"
)


def _command() -> str:
    return "palais " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def study_spec(
    strategies, groups, seed, margin, workers, layout, components, gold_limit, max_rounds, start_gold=None,
    game: str = DEFAULT_GAME, tiebreak: str = "display",
):  # fmt: skip
    """The StudySpec of a study command's options (its skill levels default to its game's)."""
    from palais_sim.games import get_game
    from palais_sim.study.common import StudySpec
    from palais_sim.tournament.schedule import Settings

    the_game = get_game(game)
    base = Settings(
        layout=layout, components=str(components.resolve()) if components is not None else None,
        gold_limit=gold_limit, max_rounds=max_rounds or the_game.default_max_rounds, start_gold=start_gold,
        game=the_game.name, tiebreak=tiebreak,
    )  # fmt: skip
    skills = tuple(strategies) if strategies else the_game.skill_levels
    return StudySpec(
        strategies=skills, groups=groups, seed=seed, margin=margin, workers=workers, base=base, command=_command()
    )
