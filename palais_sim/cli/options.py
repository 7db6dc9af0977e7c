"""The rule options every command that plays games takes, defined once (`palais simulate` has its own forms: its
defaults are None so that --resume can tell the options given from the stored ones)."""

from __future__ import annotations

import typer

LayoutOpt = typer.Option("random", "--layout", help="'random' (per game), 'first-game', or a code like PMS/KGD/COB")
ComponentsOpt = typer.Option(None, "--components", help="A component-set TOML file (default: the standard set)")
GoldLimitOpt = typer.Option(None, "--gold-limit", help="Finite bank of gold (e.g. 57); default unlimited")
MaxRoundsOpt = typer.Option(100, "--max-rounds", help="Stop a game after this many rounds (recorded unfinished)")
