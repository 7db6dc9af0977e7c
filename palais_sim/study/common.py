"""What every study shares: its skill levels, size, seed, margin and rule options, and the arm runs it plays."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from palais_sim.core.games import games_with_study, get_game
from palais_sim.study.arms import VERIFIED, play_arm, slug, today_code
from palais_sim.study.evidence import level, min_differing
from palais_sim.study.render import duration
from palais_sim.tournament.manifest import Manifest
from palais_sim.tournament.schedule import Settings

DEFAULT_MARGIN = 2.0  # percentage points of win share: "balanced within +-2 pp"
# One line per arm played (and a study's own lines, e.g. a subject's verdict after a look): a study of many arms
# plays for hours without a progress bar, and a log of `make reports` should say where it is. The study commands show
# it on stderr (``cli.studies``); the library stays silent unless a handler is attached.
progress = logging.getLogger("palais_sim.study.progress")


@dataclass(frozen=True)
class StudySpec:
    strategies: tuple[str, ...] = ()  # the skill levels; none named: the game's (``GAME.skill_levels``)
    groups: int = 200
    seed: int = 1
    margin: float = DEFAULT_MARGIN  # pp
    workers: int | None = 1  # per arm; None: all the cluster's CPUs (backend ray)
    base: Settings = field(default_factory=Settings)  # the game, its rule options, components, max_rounds, ...
    command: str = ""  # the command line that made the study, for the page's header
    backend: str = "local"  # where the arms' chunks run: local (a process pool) or ray (``address``: the cluster)
    address: str | None = None

    def __post_init__(self) -> None:
        if not self.strategies:
            object.__setattr__(self, "strategies", tuple(self.base.game.skill_levels))

    def require_game(self, study: str) -> None:
        """A study of one game's components refuses a game that does not declare it
        (``Game.studies``), naming the games that do."""
        if study in self.base.game.studies:
            return
        games = [get_game(name) for name in games_with_study(study)]
        where = " or ".join(f"{g.title} (--game {g.name})" for g in games) or "no built-in game"
        raise ValueError(f"palais study {study} is a study of {where}, not of {self.base.game.title}")

    def check(self) -> None:
        if not self.strategies:
            raise ValueError("at least one --strategy is needed")
        if self.groups < 2:
            raise ValueError(f"--groups must be at least 2, got {self.groups}")
        if not self.margin > 0:
            raise ValueError(f"--margin must be above 0 (percentage points), got {self.margin}")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {self.workers}")

    def settings(self, **changes: object) -> Settings:
        """The base settings with ``changes``: run fields (players, strategies, ...) and rule options of the game
        by name (``tiebreak="noted"``; None: the option's default)."""
        names = {f.name for f in fields(Settings)}
        rules = {k: v for k, v in changes.items() if k not in names}
        if rules:
            merged = {**self.base.rules, **rules}
            changes = {k: v for k, v in changes.items() if k in names}
            changes["rules"] = {k: v for k, v in merged.items() if v is not None}
        return replace(self.base, seed=self.seed, **changes)  # type: ignore[arg-type]

    def rule_dict(self) -> dict:
        """The rule options of the study's runs with their values (the defaults filled in), the component set and
        the round cap: for the page's header and study.json."""
        b = self.base
        rules = {k: list(v) if isinstance(v, tuple) else v for k, v in b.rule_values.items()}
        return {**rules, "components": b.components, "max_rounds": b.max_rounds}


@dataclass
class Ledger:
    """Games played and wall time per skill level, for the study's header."""

    games: dict[str, int] = field(default_factory=dict)
    played_now: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float | None] = field(default_factory=dict)  # the workers' CPU seconds; None: not recorded
    cores: dict[str, set[int]] = field(default_factory=dict)  # the cores of the machines that played its arms
    code: dict[str, str] = field(default_factory=dict)  # the code fingerprint its arms hold for (played or verified)
    played_by: dict[str, set[str]] = field(default_factory=dict)  # the code fingerprints that played its arms
    verified: dict[str, dict[str, dict]] = field(default_factory=dict)  # its arms of earlier code verified, by arm

    def play(self, spec: StudySpec, strategy: str, settings: Settings, out: Path) -> Path:
        start = time.perf_counter()
        played = play_arm(settings, out, spec.workers, backend=spec.backend, address=spec.address)
        from palais_sim.tournament.schedule import Schedule

        total = Schedule(settings).total
        self.games[strategy] = self.games.get(strategy, 0) + total
        if played:
            self.played_now[strategy] = self.played_now.get(strategy, 0) + played
            seconds = time.perf_counter() - start
        else:
            seconds = _recorded_seconds(out)  # an arm played earlier: the wall time its manifest recorded
        self.seconds[strategy] = self.seconds.get(strategy, 0.0) + seconds
        cpu, cores = recorded_cpu(out)
        before = self.cpu.get(strategy, 0.0)
        self.cpu[strategy] = None if cpu is None or before is None else before + cpu
        self.cores.setdefault(strategy, set()).update(cores)
        self._record_code(strategy, settings, out)
        if played and played == total:
            progress.info("%s played: %s games in %s%s", arm_name(out), f"{total:,}", duration(seconds),
                          "" if cpu is None else f" ({duration(cpu)} of CPU in the workers)")  # fmt: skip
        elif played:
            progress.info("%s finished: %s of its %s games played now, in %s", arm_name(out), f"{played:,}",
                          f"{total:,}", duration(seconds))  # fmt: skip
        return out

    def _record_code(self, strategy: str, settings: Settings, out: Path) -> None:
        """Which code played the arm and, for an arm of earlier code, its check by replay (``arms.verify_arm``):
        every arm play_arm keeps holds for today's code, played by it or verified with it."""
        stored = Manifest.load(out)
        data = stored.data if stored is not None else {}
        played = data.get("code_fingerprint")
        self.played_by.setdefault(strategy, set()).update([played] if played else [])
        today = today_code(settings)
        check = data.get(VERIFIED) or {}
        if played != today["code_fingerprint"] and {k: check.get(k) for k in today} == today:
            name = arm_name(out)  # an arm read again (a search's later round) is listed once
            self.verified.setdefault(strategy, {})[name] = {
                "arm": name, "played_by": played, "verified_with": today["code_fingerprint"],
                "games_replayed": len(check.get("games_replayed", ())), "groups_replayed": check.get("groups_replayed"),
            }  # fmt: skip
            self.code[strategy] = today["code_fingerprint"]
        else:
            self.code[strategy] = played  # type: ignore[assignment]

    def to_dict(self) -> dict:
        """Per skill level: games, games played now, wall time, the workers' CPU time (None where an arm's run did
        not record it) and the machines' cores, the code its arms hold for (``code_fingerprint``: played by it, or
        verified with it by replay), the codes that played them and the arms verified."""
        cpu = {s: None if t is None else round(t, 1) for s, t in self.cpu.items()}
        return {s: {"games": g, "played_now": self.played_now.get(s, 0), "seconds": round(self.seconds.get(s, 0.0), 1),
                    "cpu_seconds": cpu.get(s), "cores": sorted(self.cores.get(s, ())),
                    "code_fingerprint": self.code.get(s), "played_by": sorted(self.played_by.get(s, ())),
                    "verified": list(self.verified.get(s, {}).values())}
                for s, g in self.games.items()}  # fmt: skip


def arm_name(run_dir: Path) -> str:
    """An arm's directory as the study names it: its path under the study's ``runs/`` (``arm_dir``)."""
    parts = run_dir.parts
    if "runs" not in parts:
        return run_dir.name
    last = len(parts) - 1 - parts[::-1].index("runs")
    return "/".join(parts[last + 1 :]) or run_dir.name


def _recorded_seconds(run_dir: Path) -> float:
    """The wall time a finished run recorded: the sum of its sessions' summaries in run.log (the runner writes one
    line per session, "... Wall time 12.3 s ..."), else the manifest's creation-to-update time."""
    import re
    from datetime import datetime

    from palais_sim.tournament.manifest import Manifest

    try:
        found = re.findall(r"Wall time ([0-9.]+) s", (run_dir / "run.log").read_text(encoding="utf-8"))
    except OSError:
        found = []
    if found:
        return sum(float(x) for x in found)
    stored = Manifest.load(run_dir)
    try:
        created, updated = stored.data["created"], stored.data["updated"]  # type: ignore[union-attr]
        return (datetime.fromisoformat(updated) - datetime.fromisoformat(created)).total_seconds()
    except (AttributeError, KeyError, TypeError, ValueError):
        return 0.0


def recorded_cpu(run_dir: Path) -> tuple[float | None, set[int]]:
    """The CPU seconds a finished run's sessions recorded in their run.log summaries ("... Wall time 12.3 s (CPU
    20.1 s in the workers) with 2 workers on 2 cores ..."), None when a session's summary lacks it (an older run),
    and the core counts they name."""
    import re

    try:
        text = (run_dir / "run.log").read_text(encoding="utf-8")
    except OSError:
        return None, set()
    sessions = re.findall(r"Wall time [0-9.]+ s", text)
    cpu = [float(x) for x in re.findall(r"Wall time [0-9.]+ s \(CPU ([0-9.]+) s in the workers\)", text)]
    cores = {int(x) for x in re.findall(r"Wall time [^,]* workers? on (\d+) cores", text)}
    return (sum(cpu) if sessions and len(cpu) == len(sessions) else None), cores


def arm_dir(out: Path, strategy: str, *parts: str) -> Path:
    return out.joinpath("runs", slug(strategy), *(slug(p) for p in parts))


# How an undecided row gets more evidence: a study of fixed size grows its arms (``Manifest.extend``); a sequential
# one (looks of a fixed size, up to a game budget) plays on from its last look.
MORE_GROUPS = (
    "more groups would tell: the same command with a larger `--groups` into the same `--out` plays only the new groups"
)
MORE_LOOKS = (
    "more looks would tell: the same command into the same `--out` plays on, with a larger `--budget` where the "
    "budget stopped a row, with more `--groups` and `--looks` in proportion (looks of the same size) where a row "
    "played every look"
)


def header(page, spec: StudySpec, ledger: Ledger, what: str, confidence: float = 0.95, more: str = MORE_GROUPS) -> None:
    """The page's top: the exact command, seeds, sizes, games, wall and CPU time and the machine per skill level, the
    verdict rule at the rows' real confidence (99% with five looks), and ``more``: how an undecided row gets more
    evidence."""
    page.p(what)
    if spec.command:
        page.code(spec.command)
    rules = ", ".join(f"{k} {v}" for k, v in spec.rule_dict().items() if v is not None)
    page.p(
        f"Root seed {spec.seed} (every arm plays the groups 0..{spec.groups - 1} of this seed: the same setups and "
        f"seatings in every arm); {spec.groups} groups per arm; rule options: {rules}."
    )
    page.table(
        [{"s": s, **v} for s, v in ledger.to_dict().items()],
        [("skill level", lambda r: f"`{r['s']}`"), ("games", lambda r: f"{r['games']:,}"),
         ("wall time (s)", lambda r: f"{r['seconds']:.0f}"), ("CPU time (s)", _cpu_text),
         ("machine", _machine_text)],
    )  # fmt: skip
    verified = verified_text(ledger.to_dict())
    if verified:
        page.p(verified)
    shown = level(confidence)
    misses = round(1 / (1 - confidence))
    page.p(
        f"Verdicts ({shown} intervals, equivalence margin +-{spec.margin:g} pp): **favoured** when the whole interval "
        f"lies above +{spec.margin:g} pp, **disfavoured** below -{spec.margin:g} pp, **balanced** when it lies "
        f"inside +-{spec.margin:g} pp, **undecided** otherwise ({more}). No verdict without "
        f"evidence: a row decides only when at least {min_differing(confidence)} of its groups differ from no "
        "effect at all (fewer cannot be told from chance even if they all agree) and its interval has some width; "
        "an undecided row says how many it has. **Robust**: at least two skill levels, and every one gives the "
        f"same verdict. Each interval misses its true value about one time in {misses}, so among many rows a few "
        "verdicts at a single skill level are expected by chance; read those as leads."
    )


def _cpu_text(level: dict) -> str:
    """The workers' CPU seconds of a skill level's arms ("-" where a run did not record them)."""
    return "-" if level.get("cpu_seconds") is None else f"{level['cpu_seconds']:,.0f}"


def _machine_text(level: dict) -> str:
    """The machines that played a skill level's arms, by their core count as the runs recorded it."""
    cores = level.get("cores") or []
    return " and ".join(f"{c} cores" for c in cores) or "-"


def verified_text(levels: dict[str, dict]) -> str:
    """What a study's arms of earlier code owe to their check by replay (``arms.verify_arm``), in one paragraph
    (the page's header, the published index); "" when every arm was played by the code it holds for."""
    parts = []
    for strategy, info in levels.items():
        checked = info.get("verified") or []
        if checked:
            earlier = ", ".join(f"`{c}`" for c in sorted({str(v["played_by"]) for v in checked}))
            games = sum(v["games_replayed"] for v in checked)
            parts.append(f"{len(checked)} of `{strategy}` (played by {earlier}; {games:,} games replayed)")
    if not parts:
        return ""
    today = ", ".join(sorted({f"`{info['code_fingerprint']}`" for info in levels.values() if info.get("verified")}))
    return (
        f"**Verified** arms, played by earlier code: {'; '.join(parts)}. Each one's first and last rotation groups "
        f"were played again with today's code ({today}) on the arm's own seeds and settings and recorded the same "
        "outcome in every column, so the arm stands for today's code; an arm whose sample differed was played again."
    )
