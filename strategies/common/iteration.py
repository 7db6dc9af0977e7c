"""Expert iteration, one iteration as one command: the current expert's own games analysed by a stronger teacher,
a new student fitted on them with a value head beside its policy, a gate match against the current model, and the
new model written with its provenance.

    python -m strategies.common.iteration palais-royal --out runs/iteration-1 [--install]

The steps, each resumable from ``OUT/state.json`` (the iteration's settings and what is done):

1. **Data**, in chunks of ``--chunk-games`` games: the current model's ``expert`` plays (``--play student``; or the
   teacher, ``--play teacher``) and at every decision it would decide the teacher's analysis of each candidate is
   recorded (``distill.generate``) with the seat's share of the game's win. A chunk is written whole
   (``OUT/chunk-NNNN.parquet``) and then entered in the state; a killed run starts again at the first chunk not
   entered, and a finished chunk is never played again.
2. **Fit**: the policy (the current model's form, linear or a network, unless ``--student``) and the value head
   (``distill.fit_value``) on every chunk, into ``OUT/candidate.json``.
3. **Gate**: ``palais match``'s machinery (``palais_sim.study.match``), the candidate against the current model on
   paired, seat-rotated games, a fixed length (``--gate-games``); its batches are kept in ``OUT/gate`` and resumed.
   The candidate is accepted where its score share is at least ``--gate-share``.
4. **The model**, ``OUT/model.json``: the candidate with its ``iteration`` provenance (the command, the seeds, the
   data size, the gate's figures and decision); with ``--install`` an accepted one is also written over the model
   it started from (the shipped one by default), so the same command with a new ``--out`` runs the next iteration.

Seeds come from :data:`ITERATION_SEEDS`, a range no study or test uses; the iteration's number (one more than the
current model's) picks its block, so a next iteration plays other games. The model holds no times or absolute
paths: the same command gives the same bytes, interrupted or not.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from strategies.common.distill import STUDENTS, TARGETS, fit, fit_value, generate, write_table

# to join palais_sim/core/seeds.py: the root seeds reserved for fitting models (no study's or test's)
ITERATION_SEEDS = range(520_000_000, 530_000_000)
SEEDS_PER_ITERATION = 10_000  # iteration n: chunk k plays from start + n * this + k; its gate from the block's last
PROG = "python -m strategies.common.iteration"
STATE = "state.json"
# what decides the data: another value in a directory's state is another iteration, refused
DATA_SETTINGS = ("game", "model_sha256", "iteration", "teacher", "players", "play", "chunk_games")


@dataclass(frozen=True)
class Pipeline:
    """What the loop needs of a game's ``expert`` (each game's ``expert_train`` declares it as ``PIPELINE``)."""

    game: str
    student: Callable[..., Any]  # the expert class: ``student(model=PATH)`` plays and describes candidates
    load: Callable[[str | Path], Any]  # the expert's own model reader (refuses a model of other features)
    model: Path  # the shipped model
    teacher: str  # the default teacher of an iteration
    players: int


PIPELINES = {"palais-royal": "strategies.palais_royal.expert_train",
             "palastgefluester": "strategies.palastgefluester.expert_train"}  # fmt: skip


def pipeline(game: str) -> Pipeline:
    if game not in PIPELINES:
        raise ValueError(f"no expert to iterate for {game!r}; games with one: {', '.join(PIPELINES)}")
    found: Pipeline = importlib.import_module(PIPELINES[game]).PIPELINE
    return found


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


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


class Iteration:
    """One iteration in its directory: its settings, its state and its steps."""

    def __init__(self, args: argparse.Namespace, command: str) -> None:
        self.pipe = pipeline(args.game)
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
            "game": args.game, "model_sha256": _sha256(self.current),
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

    def data(self, say: Callable[[str], None]) -> None:
        """Every chunk not yet entered in the state, played and written whole."""
        pipe, settings = self.pipe, self.settings
        for k, seed in enumerate(self.chunk_seeds):
            path = self.out / f"chunk-{k:04d}.parquet"
            if str(k) in self.state["chunks"] and path.is_file():
                continue
            start = time.process_time()
            rows = generate(pipe.game, settings["teacher"], lambda: pipe.student(model=str(self.current)),
                            self.args.chunk_games, seed, settings["players"], play=settings["play"])  # fmt: skip
            tmp = path.with_name(path.name + ".tmp")
            write_table(rows, tmp)
            os.replace(tmp, path)
            decisions = len({r["decision"] for r in rows})
            self.state["chunks"][str(k)] = {"file": path.name, "seed": seed, "games": self.args.chunk_games,
                                            "decisions": decisions, "candidates": len(rows),
                                            "cpu_seconds": round(time.process_time() - start, 1)}  # fmt: skip
            self.save()
            say(f"chunk {k + 1}/{len(self.chunk_seeds)}: {len(rows)} candidates, {self.args.chunk_games} games, "
                f"{time.process_time() - start:.0f} CPU-s")  # fmt: skip

    def fit(self) -> dict:
        """The candidate model (policy and value head) fitted on every chunk, with the iteration's provenance."""
        import polars as pl

        args = self.args
        frames = [pl.read_parquet(self.out / self.state["chunks"][str(k)]["file"]).with_columns(file=pl.lit(k))
                  for k in range(len(self.chunk_seeds))]  # fmt: skip
        table = pl.concat(frames)
        features = self.policy.features
        table = table.with_columns(pl.col("features").list.head(len(features)))  # a model on the first features
        student = args.student or self.policy.meta.get("model", "linear")
        target = args.target or self.policy.meta.get("target", "played")
        hidden = args.hidden or self.policy.meta.get("hidden", 32)
        policy, _ = fit(table, features, target, args.l2, seed=args.fit_seed, student=student, hidden=hidden)
        head = fit_value(table, features, args.l2, args.fit_seed)
        chunks = [self.state["chunks"][str(k)] for k in range(len(self.chunk_seeds))]
        games = sum(c["games"] for c in chunks)
        policy.meta.update({
            "command": self.command, "games": games,
            "data": f"{len(chunks)} chunks of {args.chunk_games} games, seeds {chunks[0]['seed']}..{chunks[-1]['seed']}"
                    f" ({self.settings['play']} play, teacher {self.settings['teacher']}, {self.settings['players']}"
                    f" players; {sum(c['candidates'] for c in chunks)} candidates)",
            "value": head.to_json(features),
            "iteration": {
                "number": self.number, "from_sha256": self.settings["model_sha256"],
                "from_iteration": self.number - 1, "teacher": self.settings["teacher"], "play": self.settings["play"],
                "players": self.settings["players"], "chunk_seeds": [c["seed"] for c in chunks],
                "games": games, "decisions": sum(c["decisions"] for c in chunks),
                "candidates": sum(c["candidates"] for c in chunks), "fit_seed": args.fit_seed,
            },
        })  # fmt: skip
        if "why" in policy.meta:
            del policy.meta["why"]
        return policy.to_json()

    def gate(self, candidate: Path, say: Callable[[str], None]) -> dict:
        """The candidate against the current model: ``palais match``'s fixed-length paired match, its figures."""
        from palais_sim.core.games import get_game
        from palais_sim.study.match import MatchPlan, play_match
        from palais_sim.tournament.schedule import Settings

        args, players = self.args, self.settings["players"]
        game = get_game(self.pipe.game)
        a, b = spec_with_model(args.expert, candidate), spec_with_model(args.expert, self.current)
        base = Settings(seed=self.gate_seed, max_rounds=game.default_max_rounds, game=game)
        groups = max(1, math.ceil(args.gate_games / players))
        plan = MatchPlan(a=a, b=b, players=players, sprt=False, max_games=args.gate_games,
                         batch_groups=min(50, groups), base=base)  # fmt: skip
        result = play_match(plan, self.out / "gate", args.workers)
        say(result.text())
        if result.failed_games:
            raise ValueError(f"the gate match had {result.failed_games} failed games: see {self.out / 'gate'}")
        figures = result.to_dict()
        shown = ("games", "groups", "score", "score_ci", "elo", "elo_ci", "confidence", "seed", "distribution")
        accepted = figures["score"] is not None and figures["score"] >= args.gate_share
        shown_b = args.expert if args.model is None else spec_with_model(args.expert, args.model)
        command = [
            "palais match", spec_with_model(args.expert, self.out / "candidate.json"), shown_b, f"--game {game.name}",
            f"--players {players} --no-sprt --max-games {args.gate_games} --batch {plan.batch_groups}",
            f"--seed {self.gate_seed}",
        ]  # fmt: skip
        return {
            "command": " ".join(command), **{k: figures[k] for k in shown}, "gate_share": args.gate_share,
            "decision": "accepted" if accepted else "rejected",
        }  # fmt: skip

    def run(self, say: Callable[[str], None]) -> dict:
        if self.done:
            say(f"{self.out}: done, its model installed at {self.state['installed']}")
            gate: dict = self.state["gate"]
            return gate
        self.out.mkdir(parents=True, exist_ok=True)
        self.save()
        self.data(say)
        candidate = (self.out / "candidate.json").resolve()
        model = self.fit()
        _write_json(candidate, model)
        self.load_check(candidate)
        gate = self.gate(candidate, say)
        model["iteration"]["gate"] = gate
        _write_json(self.out / "model.json", model)
        self.state.update(gate=gate, model="model.json")
        if self.args.install and gate["decision"] == "accepted":
            _write_json(self.current, model)
            self.state["installed"] = str(self.args.model or self.pipe.model.name)
        self.save()
        return gate

    def load_check(self, path: Path) -> None:
        """The new model reads as its expert reads it (features, value head)."""
        self.pipe.load(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help=f"the game: {', '.join(PIPELINES)}")
    parser.add_argument("--out", type=Path, required=True, help="the iteration's directory (resumed if it exists)")
    parser.add_argument("--model", type=Path, help="the current model [default: the shipped one]")
    parser.add_argument("--teacher", help="the labelling search [default: the game's, ismcts:budget=100,horizon=2 "
                                          "for Palais Royal, search:budget=48 for Palastgeflüster]")  # fmt: skip
    parser.add_argument("--players", type=int, help="players of the games and the gate [default: the game's]")
    parser.add_argument("--play", choices=("student", "teacher"), default="student",
                        help="who plays the games: the current expert (its own positions) or the teacher")  # fmt: skip
    parser.add_argument("--chunks", type=int, default=8, help="chunks of data (each written whole)")
    parser.add_argument("--chunk-games", type=int, default=60, help="games per chunk")
    parser.add_argument("--student", choices=STUDENTS, help="the policy's form [default: the current model's]")
    parser.add_argument("--hidden", type=int, help="a network's tanh units [default: the current model's, or 32]")
    parser.add_argument("--target", choices=TARGETS, help="what the policy imitates [default: the current model's]")
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument("--fit-seed", type=int, default=1, help="the fit's held-out games and start")
    parser.add_argument("--expert", default="expert", help="the spec the gate plays both models with")
    parser.add_argument("--gate-games", type=int, default=400, help="games of the gate match")
    parser.add_argument("--gate-share", type=float, default=0.5, help="the score share the new model must reach")
    parser.add_argument("--workers", type=int, default=1, help="worker processes of the gate match")
    parser.add_argument("--install", action="store_true", help="write an accepted model over --model")
    args = parser.parse_args(argv)

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    try:
        for name in ("chunks", "chunk_games", "gate_games", "workers"):
            if getattr(args, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
        if not 0.0 < args.gate_share < 1.0:
            raise ValueError(f"--gate-share must be between 0 and 1, got {args.gate_share}")
        command = " ".join([PROG, *map(shlex.quote, argv if argv is not None else sys.argv[1:])])
        gate = Iteration(args, command).run(say)
    except (ValueError, OSError, KeyError) as exc:
        print(f"error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 1
    low, high = gate["score_ci"]
    interval = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
    print(f"{args.out / 'model.json'}: {gate['decision']} (score share {gate['score']:.3f}{interval} over "
          f"{gate['games']} games)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
