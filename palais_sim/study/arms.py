"""Play one arm of a study (or one batch of a match) as a run of its own: new, resumed, or already done."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

from palais_sim import __version__
from palais_sim.tournament.fingerprint import code_fingerprint
from palais_sim.tournament.manifest import Manifest, RunDirError
from palais_sim.tournament.runner import run
from palais_sim.tournament.schedule import Settings

log = logging.getLogger(__name__)


def slug(text: str) -> str:
    """A directory name for a strategy spec or an arm label."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("_") or "arm"


def play_arm(
    settings: Settings, out: Path, workers: int, progress: bool | None = False, backend: str = "local",
    address: str | None = None,
) -> int:  # fmt: skip
    """Make sure ``out`` holds the complete run of ``settings``; returns the games played now (0: it was done; a
    resumed arm counts only the games of this session, not those played before the interruption).

    A finished run of the same settings is kept as it is, an interrupted one is resumed, anything else in ``out``
    is refused by the runner (a different run) with its one-line error. The same settings are not enough: a run
    whose manifest records another ``components_hash`` than the file the settings name holds today (edited in
    place) is removed and played again.
    """
    stored = Manifest.load(out) if (out / "manifest.json").exists() else None
    if (
        stored is not None
        and stored.settings == settings
        and stored.data.get("components_hash") != (today := components_hash(settings))
    ):
        # the same settings name a component file whose content changed since (a set edited in place, a repriced
        # variant rewritten): the arm measured another game; it is played again from scratch
        log.info("replaying %s: its component file changed (%s, now %s)", out, stored.data.get("components_hash"),
                 today)  # fmt: skip
        shutil.rmtree(out)
        stored = None
    if stored is not None and stored.data.get("state") == "done" and stored.settings == settings:
        if (stored.data.get("code_fingerprint"), stored.data.get("engine_version")) != (
            code_fingerprint(settings.game),
            __version__,
        ):
            raise RunDirError(
                f"{out} was played by other code (engine or strategies changed since); a study does not mix two "
                "versions of the rules in its arms: choose a new --out"
            )
        return 0
    summary = run(
        settings, out, workers, resume=stored is not None, progress=progress, backend=backend, address=address
    )
    return summary.played_now


def components_hash(settings: Settings) -> str:
    """The hash of the component set the settings name, read from its file today (what the runner records)."""
    game = settings.game
    return game.components_hash(game.context(settings.to_dict()))
