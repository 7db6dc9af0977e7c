"""`palais verify DIR`: does the committed evidence of published studies still hold with the installed code?

Each arm of each study's evidence (``study.compact``) is replayed on sampled rotation groups (the first and the last,
plus ``--sample`` more drawn from ``--seed``) with today's code on its own settings, and every stored column is
compared (``study.verify.check_compact``): per arm "holds" or the first difference, then a count line. Exit 0 only
when every arm holds (1 otherwise); a DIR without evidence is one error line and exit 2.
"""

from __future__ import annotations

from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, explain, fail


def verify(
    directory: Path = typer.Argument(..., metavar="DIR", help="A published study, or a set (reports/standard)"),
    sample: int = typer.Option(0, "--sample", min=0, help="Groups to replay per arm beyond the first and last"),
    seed: int = typer.Option(1, "--seed", help="Seed that draws the sampled groups (the same seed, the same groups)"),
    record: bool = typer.Option(False, "--record", help="Write each arm's check into its evidence/MANIFEST.json"),
) -> None:  # fmt: skip
    """Replay sampled groups of every arm in DIR's evidence with the installed code and say whether each holds."""
    from palais_sim import __version__
    from palais_sim.study import compact
    from palais_sim.study.verify import check_compact
    from palais_sim.tournament.fingerprint import code_fingerprint
    from palais_sim.tournament.manifest import now
    from palais_sim.tournament.schedule import Settings

    try:
        studies = compact.evidence_studies(directory)
    except USER_ERRORS as exc:
        fail(explain(exc))
    held = total = 0
    for study in studies:
        records: dict[str, dict] = {}
        for lost in compact.missing_arms(study):
            typer.echo(f"{study.name}/{lost}: missing (listed in its MANIFEST.json, not on disk)")
            total += 1
        for arm in compact.evidence_arms(study):
            name = f"{study.name}/{arm.relative_to(study / compact.EVIDENCE).as_posix()}"
            try:
                check = check_compact(arm, sample, seed)
            except USER_ERRORS as exc:
                typer.echo(f"{name}: cannot be replayed ({explain(exc)})")
                total += 1
                continue
            total += 1
            groups = ", ".join(str(g) for g in check.groups)
            if check.difference is None:
                held += 1
                typer.echo(f"{name}: holds ({check.games} games of groups {groups} replayed)")
            else:
                typer.echo(f"{name}: differs at {check.difference}")
            settings = Settings.from_dict(compact.read_manifest(arm)["settings"])
            records[arm.relative_to(study / compact.EVIDENCE).as_posix()] = {
                "holds": check.difference is None, "difference": check.difference, "groups": list(check.groups),
                "games": check.games, "code_fingerprint": code_fingerprint(settings.game),
                "engine_version": __version__, "at": now(), "sample": sample, "seed": seed,
            }  # fmt: skip
        if record:
            compact.record_verification(study, records)
    typer.echo(f"{held} of {total} arms hold")
    if held != total or total == 0:  # no arm checked is no evidence that anything holds
        raise typer.Exit(1)
