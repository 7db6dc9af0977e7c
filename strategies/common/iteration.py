"""Expert iteration, one iteration as one command: the current expert's own games analysed by a stronger teacher,
a new student fitted on them with a value head beside its policy, a gate match against the current model, and the
new model written with its provenance.

    palais train --game palais-royal --out runs/iteration-1 [--install]

(the command is ``palais_sim.cli.train``: it plays the gate with ``palais match``'s machinery, a layer above
this module, and hands it in as ``gate``.)

The steps, each resumable from ``OUT/state.json`` (the iteration's settings and what is done):

1. **Data**, in chunks of ``--chunk-games`` games: the current model's ``expert`` plays (``--play student``; or the
   teacher, ``--play teacher``) and at every decision it would decide the teacher's analysis of each candidate is
   recorded (``distill.generate``) with the seat's share of the game's win. A chunk is written whole
   (``OUT/chunk-NNNN.parquet``) and then entered in the state; a killed run starts again at the first chunk not
   entered, and a finished chunk is never played again.
2. **Fit**: the policy (the current model's form, linear or a network, unless ``--student``) and the value head
   (``distill.fit_value``) on every chunk, into ``OUT/candidate.json``. ``--with-data DIR`` (repeatable) adds the
   chunks of earlier iterations' directories, first and in the order given: the teacher's labels are the expensive
   part, and an earlier iteration's positions are as good a lesson for the next student. Where the game's expert
   declares screens (``screen_sets``: feature sets, each a prefix of the next, and how many candidates each keeps),
   those on fewer features than the policy are fitted too (``distill.fit_screens``, the same form, target and
   held-out games): at play they choose the few candidates worth the longer rollouts the policy's features cost.
3. **Gate**: ``palais match``'s machinery (``palais_sim.study.match``, played by the command), the candidate
   against the current model on paired, seat-rotated games, a fixed length (``--gate-games``); its batches are
   kept in ``OUT/gate`` and resumed.
   The candidate is accepted where its score share is at least ``--gate-share``. With ``--gate-anchor SPEC`` the
   gate asks instead whether the candidate is stronger than the current model against a fixed player: both play
   ``SPEC`` on the same seeds (``OUT/gate-candidate``, ``OUT/gate-current``), and the candidate is accepted where the
   lower bound of the paired difference of their score shares (a 95% t interval over seat-rotation groups) is above
   0. Head to head a new policy can beat its predecessor by exploiting it and still be no stronger against the
   player it is meant to catch (Palais Royal's first iteration: 57% against its predecessor, +1 point against
   ``ismcts:budget=100``), and "at least 0.50" passes an equal model half the time.
   **Self-play**: studies play the expert against itself, and a policy can be strong against another player and
   still stall against itself (Palais Royal's iteration 2 alone: both seats passed their movements for rounds on
   end in 24 of 100 two-player games, up to round 46; the shipped model none). The candidate and the current
   model each play ``--self-play-games`` games against themselves on the gate's seed, as studies play them
   (``expert`` at its defaults, whatever ``--expert``); a game longer than twice the current model's median length
   is stalled, and a candidate that stalls more often than the current model is rejected whatever its gate.
4. **The model**, ``OUT/model.json``: the candidate with its ``iteration`` provenance (the command, the seeds, the
   data size, the gate's figures and decision); with ``--install`` an accepted one is also written over the model
   it started from (the shipped one by default), so the same command with a new ``--out`` runs the next iteration.

Seeds come from :data:`ITERATION_SEEDS`, a range no study or test uses; the iteration's number (one more than the
current model's) picks its block, so a next iteration plays other games. The model holds no times or absolute
paths: the same command gives the same bytes, interrupted or not.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palais_sim.core.game import Game
from palais_sim.core.games import get_game
from palais_sim.core.seeds import ITERATION_ROOT_SEEDS
from palais_sim.registry import load_strategy, resolve
from strategies.common.distill import STUDENTS, TARGETS, fit, fit_screens, fit_value, generate, write_table

# the root seeds reserved for the iterations (palais_sim/core/seeds.py: no study's or test's, refused by the CLI)
ITERATION_SEEDS = ITERATION_ROOT_SEEDS
SEEDS_PER_ITERATION = 10_000  # iteration n: chunk k plays from start + n * this + k; its gate from the block's last
STATE = "state.json"
STUDY_SPEC = "expert"  # how studies play a game's expert (its defaults): the self-play check plays each model so
# what decides the data: another value in a directory's state is another iteration, refused
# the features a new model is fitted on: the current model's, or every one the expert's data records
FEATURE_CHOICES = ("model", "all")
DATA_SETTINGS = ("game", "model_sha256", "iteration", "teacher", "players", "play", "chunk_games")


@dataclass(frozen=True)
class Options:
    """An iteration's settings, as ``palais train`` takes them (``None``: the game's or the current model's)."""

    out: Path
    model: Path | None = None  # the current model [the shipped one]
    teacher: str | None = None  # the labelling search [the expert's ``iteration_teacher``]
    players: int | None = None  # of the games and the gate [the expert's ``iteration_players``]
    play: str = "student"  # who plays the recorded games: the current expert (its own positions) or the teacher
    chunks: int = 8
    chunk_games: int = 60
    student: str | None = None  # the policy's form [the current model's]
    hidden: int | None = None  # a network's units [the current model's, or 32]
    target: str | None = None  # what the policy imitates [the current model's]
    features: str = "model"  # the features fitted on: the current model's, or ``all`` the data records
    l2: float = 1e-3
    fit_seed: int = 1
    expert: str = "expert"  # the spec the gate plays both models with
    gate_games: int = 400
    gate_share: float = 0.5  # the score share the new model must reach
    gate_anchor: str | None = None  # a fixed opponent both models play instead (the paired difference decides)
    install: bool = False  # write an accepted model over the current one
    with_data: tuple[Path, ...] = ()  # earlier iterations' directories whose chunks the fit reads too
    self_play_games: int = 100  # each model against itself: a candidate that stalls more often is rejected

    def check(self) -> None:
        for name in ("chunks", "chunk_games", "gate_games", "self_play_games"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.gate_anchor is not None and not self.gate_anchor.strip():
            raise ValueError("--gate-anchor must name a strategy spec, e.g. ismcts:budget=30,horizon=2")
        if not 0.0 < self.gate_share < 1.0:
            raise ValueError(f"--gate-share must be between 0 and 1, got {self.gate_share}")
        if self.play not in ("student", "teacher"):
            raise ValueError(f"--play must be student or teacher, not {self.play!r}")
        if self.student not in (None, *STUDENTS):
            raise ValueError(f"--student must be one of {', '.join(STUDENTS)}, not {self.student!r}")
        if self.features not in FEATURE_CHOICES:
            raise ValueError(f"--features must be one of {', '.join(FEATURE_CHOICES)}, not {self.features!r}")
        if self.target not in (None, *TARGETS):
            raise ValueError(f"--target must be one of {', '.join(TARGETS)}, not {self.target!r}")


@dataclass(frozen=True)
class GateMatch:
    """The gate's fixed-length match, for the command to play (``palais match``'s machinery)."""

    a: str  # the candidate
    b: str  # the current model
    players: int
    games: int
    batch_groups: int
    seed: int
    out: Path  # its batches, kept and resumed


# the gate: plays the match and gives ``MatchResult.to_dict()``'s figures
Gate = Callable[[GateMatch], dict]
# the anchored gate: plays both matches (the same seeds, the same opponent) and gives each one's figures
# (``candidate``, ``current``) and their paired ``difference`` (``Estimate.to_dict()``: mean, se, ci, n_groups)
Compare = Callable[[GateMatch, GateMatch], dict]
SHOWN = ("games", "groups", "score", "score_ci", "elo", "elo_ci", "confidence", "seed", "distribution")


@dataclass(frozen=True)
class Pipeline:
    """What the loop needs of a game's ``expert``, found through the registry: its class (``cls(model=PATH)`` plays
    and describes candidates, and reads the model as the expert reads it), its shipped model, the default teacher
    and player count of an iteration (the class's ``iteration_teacher`` and ``iteration_players``), and the features
    its data records (``data_features``: the names of a ``featurize`` row)."""

    game: Game
    student: Callable[..., Any]
    model: Path
    teacher: str
    players: int
    data_features: tuple[str, ...]
    screen_sets: tuple[tuple[tuple[str, ...], int], ...] = ()

    def load(self, path: Path) -> Any:
        """The model at ``path`` as the expert reads it (a model of other features refused in one line)."""
        return self.student(model=str(path)).policy


def pipeline(game: Game) -> Pipeline:
    if "expert" not in game.strategies:
        raise ValueError(f"{game.name} has no expert to iterate")
    cls = resolve("expert", game)[1]
    expert = cls()  # read from an instance: a compiled class keeps its attributes' defaults on its instances
    screen_sets = tuple((tuple(features), int(keep)) for features, keep in getattr(expert, "screen_sets", ()))
    return Pipeline(game, cls, Path(expert.model), expert.iteration_teacher, expert.iteration_players,
                    tuple(expert.data_features), screen_sets)  # fmt: skip


def seeds(iteration: int, chunks: int) -> tuple[list[int], int]:
    """The root seeds of an iteration's chunks and of its gate match."""
    start = ITERATION_SEEDS.start + iteration * SEEDS_PER_ITERATION
    if chunks >= SEEDS_PER_ITERATION or start + SEEDS_PER_ITERATION > ITERATION_SEEDS.stop:
        raise ValueError(f"iteration {iteration} with {chunks} chunks leaves the reserved seed range")
    return [start + k for k in range(chunks)], start + SEEDS_PER_ITERATION - 1


def spec_with_model(expert: str, model: Path) -> str:
    """The strategy spec ``expert`` playing the model at ``model``."""
    if "," in str(model) or "=" in str(model):
        raise ValueError(f"a model path in a strategy spec cannot hold ',' or '=': {model}")
    return f"{expert}{',' if ':' in expert else ':'}model={model}"


def _write_json(path: Path, data: dict) -> None:
    """``data`` at ``path`` whole or not at all (a kill leaves the previous file)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _without_failures(figures: dict, match: GateMatch) -> dict:
    """A gate match's figures, refused where a game failed (a failed group would leave the pairing uneven)."""
    if figures["failed_games"]:
        raise ValueError(f"the gate match had {figures['failed_games']} failed games: see {match.out}")
    return figures


def _finite_or_none(x: float) -> float | None:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


@dataclass(frozen=True)
class DataChunk:
    """One chunk of an iteration's data, picklable for a worker process: the games it plays and where it goes."""

    game: str
    model: str  # the current model's path
    teacher: str
    players: int
    play: str
    games: int
    seed: int
    index: int
    path: str


def play_chunk(task: DataChunk) -> tuple[int, dict]:
    """The chunk's games played and its table written whole (a kill leaves no partial file); its index and its
    entry in the iteration's state."""
    cls = resolve("expert", get_game(task.game))[1]
    start = time.process_time()
    rows = generate(task.game, task.teacher, lambda: cls(model=task.model), task.games, task.seed, task.players,
                    play=task.play)  # fmt: skip
    path = Path(task.path)
    tmp = path.with_name(path.name + ".tmp")
    write_table(rows, tmp)
    os.replace(tmp, path)
    return task.index, {"file": path.name, "seed": task.seed, "games": task.games,
                        "decisions": len({r["decision"] for r in rows}), "candidates": len(rows),
                        "cpu_seconds": round(time.process_time() - start, 1)}  # fmt: skip


# plays the chunk tasks and gives each one's result as it finishes (``map``, or a process pool's ``imap_unordered``)
Chunks = Callable[[Callable[[DataChunk], tuple[int, dict]], list[DataChunk]], Iterable[tuple[int, dict]]]


class Iteration:
    """One iteration in its directory: its settings, its state and its steps."""

    def __init__(self, game: Game, args: Options, command: str) -> None:
        args.check()
        self.pipe = pipeline(game)
        self.out: Path = args.out
        self.current = (args.model or self.pipe.model).resolve()
        if not self.current.is_file():
            raise ValueError(f"no model at {self.current}")
        self.policy = self.pipe.load(self.current)  # refuses a model of other features, in one line
        previous = self.policy.meta.get("iteration", {}).get("number", 0)
        self.number = int(previous) + 1
        self.args = args
        self.command = command
        self.chunk_seeds, self.gate_seed = seeds(self.number, args.chunks)
        self.settings = {
            "game": game.name, "model_sha256": _sha256(self.current),
            "iteration": self.number, "teacher": args.teacher or self.pipe.teacher,
            "players": args.players or self.pipe.players, "play": args.play, "chunk_games": args.chunk_games,
        }  # fmt: skip
        self.state: dict[str, Any] = {"settings": self.settings, "chunks": {}}
        stored_path = self.out / STATE
        stored = json.loads(stored_path.read_text(encoding="utf-8")) if stored_path.is_file() else None
        # an iteration that installed its model: the current model is now its own, and the run is done
        self.done = (
            stored is not None and "installed" in stored and _sha256(self.current) == _sha256(self.out / "model.json")
        )
        if stored is not None and not self.done:
            for key in DATA_SETTINGS:
                if stored["settings"].get(key) != self.settings[key]:
                    raise ValueError(f"{self.out} holds an iteration of another {key} ({stored['settings'].get(key)}"
                                     f", not {self.settings[key]}): use another --out")  # fmt: skip
        if stored is not None:
            self.state = stored

    def save(self) -> None:
        _write_json(self.out / STATE, self.state)

    def data(self, say: Callable[[str], None], chunks: Chunks = map) -> None:
        """Every chunk not yet entered in the state, played and written whole; ``chunks`` plays the tasks (the
        built-in ``map`` in this process, or a pool's ``imap_unordered``) and gives each chunk's state entry as it
        finishes."""
        settings = self.settings
        paths = [self.out / f"chunk-{k:04d}.parquet" for k in range(len(self.chunk_seeds))]
        tasks = [
            DataChunk(self.pipe.game.name, str(self.current), settings["teacher"], settings["players"],
                      settings["play"], self.args.chunk_games, seed, k, str(paths[k]))
            for k, seed in enumerate(self.chunk_seeds)
            if not (str(k) in self.state["chunks"] and paths[k].is_file())
        ]  # fmt: skip
        for k, entry in chunks(play_chunk, tasks):
            self.state["chunks"][str(k)] = entry
            self.save()
            say(f"chunk {k + 1}/{len(self.chunk_seeds)}: {entry['candidates']} candidates, {entry['games']} games, "
                f"{entry['cpu_seconds']:.0f} CPU-s")  # fmt: skip

    def earlier_data(self) -> list[tuple[Path, dict]]:
        """The chunk files every ``--with-data`` directory's state has entered (an iteration of this game and player
        count; a stopped one gives the chunks it finished), each with what that state says of its directory."""
        found = []
        for where in self.args.with_data:
            path = where / STATE
            if where.resolve() == self.out.resolve():
                raise ValueError(f"--with-data {where} is this iteration's own directory")
            if not path.is_file():
                raise ValueError(f"--with-data {where}: no iteration there (no {STATE})")
            state = json.loads(path.read_text(encoding="utf-8"))
            settings = state["settings"]
            for key in ("game", "players"):
                if settings.get(key) != self.settings[key]:
                    raise ValueError(f"--with-data {where} holds an iteration of another {key} ({settings.get(key)}, "
                                     f"not {self.settings[key]})")  # fmt: skip
            chunks = [state["chunks"][k] for k in sorted(state["chunks"], key=int)]
            missing = [c["file"] for c in chunks if not (where / c["file"]).is_file()]
            if not chunks or missing:
                raise ValueError(f"--with-data {where}: {'no chunks' if not chunks else 'missing ' + missing[0]}")
            summary = {"dir": str(where), "iteration": settings["iteration"], "teacher": settings["teacher"],
                       "play": settings["play"], "chunk_seeds": [c["seed"] for c in chunks],
                       "games": sum(c["games"] for c in chunks), "decisions": sum(c["decisions"] for c in chunks),
                       "candidates": sum(c["candidates"] for c in chunks)}  # fmt: skip
            found.extend((where / c["file"], summary) for c in chunks)
        return found

    def fitted_features(self) -> list[str]:
        """The features the new model is fitted on (``--features``: the current model's, or all the data records)."""
        return list(self.policy.features if self.args.features == "model" else self.pipe.data_features)

    def check_earlier_data(self) -> None:
        """Refuse (one line) ``--with-data`` directories that are no iteration of this game and player count, or
        whose chunks record fewer features than the fit needs (data recorded before the expert described more)."""
        import polars as pl

        need = len(self.fitted_features())
        for path, _ in self.earlier_data():
            recorded = pl.read_parquet(path, columns=["features"], n_rows=1)["features"][0].len()
            if recorded < need:
                raise ValueError(f"--features {self.args.features}: {path} records {recorded} features, not the "
                                 f"{need} the fit needs")  # fmt: skip

    def fit(self) -> dict:
        """The candidate model (policy and value head) fitted on every chunk (``--with-data``'s first), with the
        iteration's provenance."""
        import polars as pl

        args = self.args
        earlier = self.earlier_data()
        own = [self.out / self.state["chunks"][str(k)]["file"] for k in range(len(self.chunk_seeds))]
        files = [path for path, _ in earlier] + own
        table = pl.concat([pl.read_parquet(path).with_columns(file=pl.lit(k)) for k, path in enumerate(files)])
        features = self.fitted_features()
        fewest = table["features"].list.len().min()
        if fewest is not None and fewest < len(features):  # chunks recorded before the expert described more
            raise ValueError(f"--features {args.features}: the data records {fewest} features in places, not the "
                             f"{len(features)} the fit needs")  # fmt: skip
        table = table.with_columns(pl.col("features").list.head(len(features)))  # a model on the first features
        student = args.student or self.policy.meta.get("model", "linear")
        target = args.target or self.policy.meta.get("target", "played")
        hidden = args.hidden or self.policy.meta.get("hidden", 32)
        policy, _ = fit(table, features, target, args.l2, seed=args.fit_seed, student=student, hidden=hidden)
        head = fit_value(table, features, args.l2, args.fit_seed)
        # the cheaper policies that choose which candidates the new one reads: those on fewer features than it
        screens = fit_screens(table, self.pipe.screen_sets, features, target, args.l2, args.fit_seed, student, hidden)
        if screens:
            policy.meta["screens"] = screens
        chunks = [self.state["chunks"][str(k)] for k in range(len(self.chunk_seeds))]
        games = sum(c["games"] for c in chunks)
        with_data = list({id(summary): summary for _, summary in earlier}.values())
        also = "".join(f"; with {d['games']} games of iteration {d['iteration']} ({d['dir']}, teacher {d['teacher']})"
                       for d in with_data)  # fmt: skip
        policy.meta.update({
            "command": self.command, "games": games + sum(d["games"] for d in with_data),
            "data": f"{len(chunks)} chunks of {args.chunk_games} games, seeds {chunks[0]['seed']}..{chunks[-1]['seed']}"
                    f" ({self.settings['play']} play, teacher {self.settings['teacher']}, {self.settings['players']}"
                    f" players; {sum(c['candidates'] for c in chunks)} candidates){also}",
            "value": head.to_json(features),
            # how the current model is played (its model file's ``play``) goes with the candidate: the gate and the
            # self-play check play the candidate as an installed one would be played
            **({"play": self.policy.meta["play"]} if "play" in self.policy.meta else {}),
            "iteration": {
                "number": self.number, "from_sha256": self.settings["model_sha256"],
                "from_iteration": self.number - 1, "teacher": self.settings["teacher"], "play": self.settings["play"],
                "players": self.settings["players"], "chunk_seeds": [c["seed"] for c in chunks],
                "games": games, "decisions": sum(c["decisions"] for c in chunks),
                "candidates": sum(c["candidates"] for c in chunks), "fit_seed": args.fit_seed,
                "features": args.features,
                **({"with_data": with_data} if with_data else {}),
            },
        })  # fmt: skip
        return policy.to_json()

    def _gate_match(self, a: str, b: str, out: Path) -> GateMatch:
        """A gate match of ``a`` against ``b``: the gate's games, seat rotations and seed, its batches in ``out``."""
        players = self.settings["players"]
        groups = max(1, math.ceil(self.args.gate_games / players))
        return GateMatch(a=a, b=b, players=players, games=self.args.gate_games, batch_groups=min(50, groups),
                         seed=self.gate_seed, out=out)  # fmt: skip

    def gate(self, candidate: Path, play: Gate) -> dict:
        """The candidate against the current model in a fixed-length paired match, its figures and decision."""
        args = self.args
        match = self._gate_match(spec_with_model(args.expert, candidate), spec_with_model(args.expert, self.current),
                                 self.out / "gate")  # fmt: skip
        figures = _without_failures(play(match), match)
        accepted = figures["score"] is not None and figures["score"] >= args.gate_share
        command = self._command(spec_with_model(args.expert, self.out / "candidate.json"), self._shown_current(), match)
        return {
            "command": command, **{k: figures[k] for k in SHOWN}, "gate_share": args.gate_share,
            "decision": "accepted" if accepted else "rejected",
        }  # fmt: skip

    def gate_against_anchor(self, candidate: Path, compare: Compare) -> dict:
        """The candidate and the current model each against ``--gate-anchor`` on the same seeds; accepted where the
        lower bound of their paired score difference is above 0."""
        args, anchor = self.args, str(self.args.gate_anchor)
        matches = {
            role: self._gate_match(spec, anchor, self.out / f"gate-{role}")
            for role, spec in (("candidate", spec_with_model(args.expert, candidate)),
                               ("current", spec_with_model(args.expert, self.current)))
        }  # fmt: skip
        figures = compare(matches["candidate"], matches["current"])
        for role, match in matches.items():
            _without_failures(figures[role], match)
        difference = figures["difference"]
        low = difference["ci"][0]
        accepted = low is not None and math.isfinite(low) and low > 0.0
        shown_a = spec_with_model(args.expert, self.out / "candidate.json")
        return {
            "anchor": anchor,
            "commands": [self._command(shown_a, anchor, matches["candidate"]),
                         self._command(self._shown_current(), anchor, matches["current"])],
            **{role: {k: figures[role][k] for k in SHOWN} for role in matches},
            "difference": {k: _finite_or_none(difference[k]) for k in ("mean", "se")}
                          | {"ci": [_finite_or_none(v) for v in difference["ci"]], "groups": difference["n_groups"]},
            "rule": "accepted where the 95% interval of the paired difference (candidate minus current) lies above 0",
            "decision": "accepted" if accepted else "rejected",
        }  # fmt: skip

    def self_play(self, candidate: Path) -> dict:
        """Each model's self-play lengths on the gate's seed, played as studies play it (``expert`` at its defaults,
        not ``--expert``: Palais Royal's shipped policy alone stalls in 3 of 100 games, its race in none); stalled: a
        game longer than twice the current model's median; the candidate passes where it stalls no more often than
        the current model."""
        game, players = self.pipe.game, self.settings["players"]
        context = game.context({"players": players})

        def rounds(model: Path) -> list[int]:
            spec, rng = spec_with_model(STUDY_SPEC, model), random.Random(self.gate_seed)
            return [game.play(context, rng.getrandbits(63), [load_strategy(spec, game) for _ in range(players)]).rounds
                    for _ in range(self.args.self_play_games)]  # fmt: skip

        lengths = {"candidate": rounds(candidate), "current": rounds(self.current)}
        limit = 2 * statistics.median(lengths["current"])
        figures = {role: {"median_rounds": statistics.median(r), "max_rounds": max(r),
                          "stalled": sum(n > limit for n in r)} for role, r in lengths.items()}  # fmt: skip
        passed = figures["candidate"]["stalled"] <= figures["current"]["stalled"]
        return {
            "games": self.args.self_play_games, "seed": self.gate_seed, "stalled_above_rounds": limit, **figures,
            "rule": "a game longer than twice the current model's median is stalled; the candidate may stall no more "
                    "often than the current model",
            "decision": "passed" if passed else "failed",
        }  # fmt: skip

    def _shown_current(self) -> str:
        """The current model's spec as a recorded command shows it (the shipped model by the expert's own name)."""
        return self.args.expert if self.args.model is None else spec_with_model(self.args.expert, self.args.model)

    def _command(self, a: str, b: str, match: GateMatch) -> str:
        """The `palais match` command that plays ``match`` again."""
        return " ".join([
            "palais match", a, b,
            f"--game {self.pipe.game.name} --players {match.players} --no-sprt --max-games {match.games}",
            f"--batch {match.batch_groups} --seed {match.seed} --iteration-gate",
        ])  # fmt: skip

    def run(self, play: Gate, say: Callable[[str], None], compare: Compare | None = None, chunks: Chunks = map) -> dict:
        """Every step not yet done; the gate's figures and decision (``compare`` plays the anchored gate, ``chunks``
        the data's chunks)."""
        if self.done:
            say(f"{self.out}: done, its model installed at {self.state['installed']}")
            gate: dict = self.state["gate"]
            return gate
        self.check_earlier_data()  # before the data's hours, not after
        self.out.mkdir(parents=True, exist_ok=True)
        self.save()
        self.data(say, chunks)
        candidate = (self.out / "candidate.json").resolve()
        model = self.fit()
        _write_json(candidate, model)
        self.pipe.load(candidate)  # the new model reads as its expert reads it (features, value head)
        if self.args.gate_anchor is None:
            gate = self.gate(candidate, play)
        elif compare is None:
            raise ValueError("--gate-anchor needs a gate that plays two matches")
        else:
            gate = self.gate_against_anchor(candidate, compare)
        gate["self_play"] = self.self_play(candidate)
        if gate["self_play"]["decision"] == "failed":
            gate["decision"] = "rejected"  # a study level must end its own games as the rules end them
        model["iteration"]["gate"] = gate
        _write_json(self.out / "model.json", model)
        self.state.update(gate=gate, model="model.json")
        if self.args.install and gate["decision"] == "accepted":
            _write_json(self.current, model)
            self.state["installed"] = str(self.args.model or self.pipe.model.name)
        self.save()
        return gate
