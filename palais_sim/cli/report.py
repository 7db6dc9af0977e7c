"""`palais report`: the reports of a run's game (``GAME.report_sections``: win rates and each game's own) on a run
directory, with their charts."""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.errors import explain, fail

ALL = "all"


def section_names() -> list[str]:
    """Every registered game's report sections by name (``GAME.report_sections``), then ``all``: what the shell
    completes for WHICH. A registered game that cannot be loaded offers none (``palais report`` on its run says why);
    the run's game decides, with one line naming its own, whether a name is one of its reports."""
    from palais_sim.analytics.sections_common import COMMON_SECTIONS
    from palais_sim.core.game import load_attribute
    from palais_sim.core.games import loadable_games

    found: dict[str, None] = {}
    for game in loadable_games():
        try:
            target = game.report_sections
            found.update(dict.fromkeys(load_attribute(target) if target else COMMON_SECTIONS))
        except Exception:  # noqa: BLE001 - a game's analytics may fail to import in any way: it completes nothing
            continue
    return [*found, ALL]


def _complete(incomplete: str) -> list[str]:
    return [name for name in section_names() if name.startswith(incomplete)]


def _known(value: str) -> str:
    """A usage error for a name no registered game's report has (the run's game then checks it is one of its)."""
    names = section_names()
    if value not in names:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(map(repr, names))}")
    return value


def report(
    which: str = typer.Argument(
        ...,
        metavar="WHICH",
        help="Which report: one of the run's game's report sections (e.g. winrates) or all",
        autocompletion=_complete,
        callback=_known,
    ),
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
    """Write a report on a run (win rates and its game's own sections) with its charts (PNG and SVG); several
    directories: the parts of one run played in parts (`palais simulate --shard`), reported as the one run."""
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
    from palais_sim.analytics import report as report_mod
    from palais_sim.analytics.runs import RunError, open_run

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
