"""Play one arm of a study (or one batch of a match) as a run of its own: new, resumed, or already done."""

from __future__ import annotations

import logging
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

from palais_sim import __version__
from palais_sim.study.environment import RENDER_ONLY_ENV
from palais_sim.study.verify import check_arm
from palais_sim.tournament.fingerprint import code_fingerprint
from palais_sim.tournament.manifest import Manifest, now
from palais_sim.tournament.runner import longer_run, run
from palais_sim.tournament.schedule import Settings
from palais_sim.tournament.shards import schedule_hash

log = logging.getLogger(__name__)

VERIFIED = "verified"  # a run manifest's record of a check by replay (:func:`verify_arm`)


class MissingArm(ValueError):
    """An arm a render-only study needs is not in its evidence (or is another arm)."""


def stored_arm(settings: Settings, out: Path) -> int:
    """Accept the finished arm in ``out`` as the run of ``settings`` without playing anything (0 games played now),
    else raise :class:`MissingArm`. The component file may lie elsewhere than where it was played (a repriced
    variant written under the evidence): its path is not compared, its content hash is."""
    stored = Manifest.load(out) if (out / "manifest.json").exists() else None
    if stored is None or stored.data.get("state") != "done":
        raise MissingArm(f"{out}: no finished arm there (rendering from evidence plays nothing)")
    if not same_run_wherever_its_components(stored, settings):
        raise MissingArm(f"{out}: the arm there was played with other settings or components than the study asks")
    return 0


def same_run_wherever_its_components(stored: Manifest, settings: Settings) -> bool:
    """Whether ``stored`` is the run of ``settings`` but perhaps for where its component file lay: the settings
    equal without the file's path, and the content hash recorded equal to that of the file named today."""
    recorded, wanted = stored.settings.to_dict(), settings.to_dict()
    recorded.pop("components", None)
    wanted.pop("components", None)
    return recorded == wanted and stored.data.get("components_hash") == components_hash(settings)


def relocate(stored: Manifest, settings: Settings, out: Path) -> None:
    """A run whose component file lay at another path of the same content (an arm restored from published evidence
    in another checkout, whose study writes its variants under today's run directory) is the same run: its manifest
    is made to name today's path, so it is kept, verified or resumed like any other, and not refused as another."""
    if stored.settings == settings or not same_run_wherever_its_components(stored, settings):
        return
    log.info("%s: its component file is now %s (the same content)", out, settings.components)
    stored.data["settings"] = replace(stored.settings, components=settings.components).to_dict()
    if "schedule_hash" in stored.data:
        stored.data["schedule_hash"] = schedule_hash(stored.data)
    stored.save(out)


def slug(text: str) -> str:
    """A directory name for a strategy spec or an arm label."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("_") or "arm"


def play_arm(
    settings: Settings, out: Path, workers: int | None, progress: bool | None = False, backend: str = "local",
    address: str | None = None,
) -> int:  # fmt: skip
    """Make sure ``out`` holds the complete run of ``settings``; returns the games played now (0: it was done; a
    resumed arm counts only the games of this session, not those played before the interruption).

    A finished run of the same settings is kept as it is, an interrupted one is resumed, a run of the same settings
    with fewer games is extended (its games kept), anything else in ``out`` is refused by the runner (a different
    run) with its one-line error. The same settings are not enough: a run whose manifest records another
    ``components_hash`` than the file the settings name holds today (edited in place) is removed and played again.
    A finished run played by other code (another code fingerprint or engine version) is re-validated
    (:func:`verify_arm`): kept and marked verified when a sample of its games replays identically today, else played
    again whole; an unfinished one of other code, or one to extend, is played again from the start.
    """
    if os.environ.get(RENDER_ONLY_ENV) == "1":
        return stored_arm(settings, out)
    stored = Manifest.load(out) if (out / "manifest.json").exists() else None
    if stored is not None:
        relocate(stored, settings, out)
    # the same run, or its first games (a study asked for more groups: the run grows, nothing is played twice)
    ours = stored is not None and (stored.settings == settings or longer_run(stored.settings, settings))
    if ours and stored.data.get("evidence") and stored.settings != settings:
        # a compact run restored from published evidence (``study.compact``) holds its games in one file: it is
        # not extended but played again at the new size
        log.info("replaying %s: a restored compact run, and the study asks for more games", out)
        shutil.rmtree(out)
        stored, ours = None, False
    if ours and stored.data.get("components_hash") != (today := components_hash(settings)):
        # the same settings name a component file whose content changed since (a set edited in place, a repriced
        # variant rewritten): the arm measured another game; it is played again from scratch
        log.info("replaying %s: its component file changed (%s, now %s)", out, stored.data.get("components_hash"),
                 today)  # fmt: skip
        shutil.rmtree(out)
        stored, ours = None, False
    if ours and not holds_for_today(stored, settings):
        if stored.data.get("state") == "done" and stored.settings == settings and verify_arm(out, stored, settings):
            return 0
        if stored.settings != settings:
            log.warning("replaying %s: it grows to %d games, and its first %d were played by other code (%s); "
                        "started again", out, settings.games, stored.settings.games,
                        code_of(stored)["code_fingerprint"])  # fmt: skip
        elif stored.data.get("state") != "done":
            log.warning("replaying %s: unfinished, and played by other code (%s); started again", out,
                        code_of(stored)["code_fingerprint"])  # fmt: skip
        shutil.rmtree(out)
        stored, ours = None, False
    if ours and stored.data.get("state") == "done" and stored.settings == settings:
        return 0
    summary = run(settings, out, workers, resume=ours, progress=progress, backend=backend, address=address)
    return summary.played_now


def today_code(settings: Settings) -> dict[str, str]:
    """The code that plays ``settings`` today: the game's code fingerprint and the engine's version."""
    return {"code_fingerprint": code_fingerprint(settings.game), "engine_version": __version__}


def code_of(stored: Manifest) -> dict[str, str | None]:
    """The code that played a stored run, as its manifest records it."""
    return {k: stored.data.get(k) for k in ("code_fingerprint", "engine_version")}


def holds_for_today(stored: Manifest, settings: Settings) -> bool:
    """The stored run was played by today's code, or verified with it (:func:`verify_arm`)."""
    now = today_code(settings)
    verified = stored.data.get(VERIFIED) or {}
    return code_of(stored) == now or {k: verified.get(k) for k in now} == now


def verify_arm(out: Path, stored: Manifest, settings: Settings) -> bool:
    """Replay the finished arm's first and last rotation groups with today's code (``study.verify``). Identical:
    record the check in its manifest (``verified``: today's code, the code that played it, the games replayed) and
    return True; any difference: log why and return False (the caller plays the arm again)."""
    played_by = code_of(stored)
    check = check_arm(out, settings, int(stored.data["chunk_size"]))
    if not check.same:
        log.warning("replaying %s: played by code %s, and today's %s plays its sample otherwise (%s)", out,
                 played_by["code_fingerprint"], today_code(settings)["code_fingerprint"], check.difference)  # fmt: skip
        return False
    stored.data[VERIFIED] = {
        **today_code(settings), "played_by": played_by, "games_replayed": list(check.games),
        "groups_replayed": list(check.groups), "at": now(),
    }  # fmt: skip
    stored.save(out)
    log.info("verified %s: played by code %s, its first and last groups (%d games) replay identically with %s", out,
             played_by["code_fingerprint"], len(check.games), today_code(settings)["code_fingerprint"])  # fmt: skip
    return True


def components_hash(settings: Settings) -> str:
    """The hash of the component set the settings name, read from its file today (what the runner records)."""
    game = settings.game
    return game.components_hash(game.context(settings.to_dict()))
