"""`palais report`: win-rate, noble-value and setup-balance reports on a run directory, with their charts."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from palais_sim.cli.errors import explain, fail


class Which(StrEnum):
    """The report names of the built-in games' ``GAME.report_sections`` (each refuses the names it has not), and all:
    a literal list, so the shell completes them without importing every game's analytics."""

    winrates = "winrates"
    nobles = "nobles"
    setup = "setup"
    all = "all"


WHICH = tuple(w.value for w in Which)


def report(
    which: Which = typer.Argument(..., metavar="WHICH", help="Which report: winrates, nobles, setup or all"),
    run_dirs: list[Path] = typer.Argument(
        ...,
        metavar="RUN_DIR...",
        help="A run directory written by `palais simulate` (or `palais ladder --out`), or every part's directory of "
        "a run played in parts (`palais simulate --shard K/N`), reported as the one run",
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Output directory \\[default: reports/<run name>/, or <run name>-2, ... when that "
        "holds another run's report]",
    ),
    fmt: str = typer.Option("md", "--format", "-f", help="md, html (one self-contained page) or json"),
    components: Path | None = typer.Option(
        None, "--components", help="The run's component-set TOML, if the manifest's cannot be found"
    ),
) -> None:
    """Write a report on a run (win rates, noble values, setup balance) with its charts (PNG and SVG); several
    directories: the parts of one run played in parts (`palais simulate --shard`), reported as the one run."""
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
    from palais_sim.analytics import report as report_mod
    from palais_sim.analytics.runs import RunError, open_run

    which = Which(which).value
    if fmt not in report_mod.FORMATS:
        fail(f"unknown format {fmt!r}; choose one of {', '.join(report_mod.FORMATS)}")
    import polars as pl
    import pyarrow as pa

    try:
        run = open_run(run_dirs, components)
        for problem in run.problems:  # also at the top of the report
            typer.echo(f"warning: {problem}", err=True)
        target = out or report_mod.default_out(run)
        path = report_mod.write(run, which, target, fmt)
    except (RunError, OSError) as exc:
        fail(explain(exc))
    except (pl.exceptions.PolarsError, pa.ArrowException) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        where = " + ".join(map(str, run_dirs))
        fail(f"cannot read the tables of {where} ({first}); is a chunk file damaged?")
    where = "no charts: JSON" if fmt == "json" else f"charts in {path.parent / 'charts'}"
    typer.echo(f"{which} report written to {path} ({where})")
