"""The search: optuna's TPE sampler over the space, a trial's games on the same seeds, the best few re-measured on
new seeds, and the winner validated against the untuned spec on fresh ones (see the package's docstring)."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from palais_sim.core.game import Game
from palais_sim.core.games import get_game
from palais_sim.core.rule_options import RuleOption, Rules, canonical_rules, legacy_names, rules_of
from palais_sim.tournament.schedule import Settings
from palais_sim.tuning.measure import Games, Share, difference_of, share_of
from palais_sim.tuning.space import Dimension, TuneError, spec_with

SEARCH_SHARE = 0.8  # of the budget; the rest re-measures the best trials
CONFIRM_TOP = 5
FORMAT = "palais-tune/1"


@dataclasses.dataclass(frozen=True)
class TuneSettings:
    strategy: str
    against: tuple[str, ...]
    players: int
    budget: int
    space: tuple[Dimension, ...]
    seed: int
    trial_games: int
    validate_games: int
    components: str | None
    max_rounds: int
    game: Game = dataclasses.field(default_factory=get_game)  # the command line's; else the default game
    rules: Mapping[str, Any] = dataclasses.field(default_factory=Rules)  # the game's rule options (Settings.rules)

    def __post_init__(self) -> None:
        game = self.game
        object.__setattr__(self, "rules", Rules(canonical_rules(game.rule_options, self.rules or {}, game.name)))

    def to_dict(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("game", "rules")}
        data["space"] = [dataclasses.asdict(d) for d in self.space]
        data["rules"] = dict(self.rules)
        data["format"] = FORMAT
        if self.game is not get_game():  # the default game's name none: a tuning directory of before still resumes
            data["game"] = self.game.name
        return json.loads(json.dumps(data))  # tuples as lists, as read back

    def groups(self, games: int) -> int:
        return max(1, math.ceil(games / self.players))

    def trials(self) -> int:
        return int(self.budget * SEARCH_SHARE) // (self.groups(self.trial_games) * self.players)

    def schedule(self, focus: str, others: tuple[str, ...], fmt: str, root: int, games: int) -> Settings:
        return Settings(
            games=self.groups(games) * self.players,
            players=self.players,
            strategies=(focus, *others),
            format=fmt,
            rotate_seats=True,
            seed=root,
            components=self.components,
            max_rounds=self.max_rounds,
            game=self.game,
            rules=self.rules,
        )

    def gauntlet(self, focus: str, root: int, games: int) -> Settings:
        return self.schedule(focus, self.against, "gauntlet", root, games)


def _prepare(out: Path, settings: TuneSettings) -> None:
    stored = out / "tune.json"
    if stored.exists():
        earlier = json.loads(stored.read_text(encoding="utf-8"))
        if _normalised(earlier, settings.game.rule_options) != settings.to_dict():
            raise TuneError(f"{out} holds a different tuning (see its tune.json); choose another --out")
        return
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TuneError(f"{out} is not empty and holds no tuning; choose a new or empty directory")
    out.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps(settings.to_dict(), indent=1), encoding="utf-8")


def _normalised(data: dict, options: tuple[RuleOption, ...]) -> dict:
    """A stored tune.json as this version writes it: one written before the games declared their rule options has
    them as flat fields (the game's ``legacy`` options), mapped into ``rules``."""
    if "rules" in data:
        return data
    legacy = legacy_names(options)
    return {**{k: v for k, v in data.items() if k not in legacy}, "rules": rules_of(data, options)}


def _values(space: tuple[Dimension, ...], params: dict) -> dict[str, float]:
    return {d.name: (int(params[d.name]) if d.integer else float(params[d.name])) for d in space}


def _defaults(space: tuple[Dimension, ...]) -> dict[str, float]:
    """The untuned values, inside the searched ranges (and on their 0.01 grid)."""
    out: dict[str, float] = {}
    for d in space:
        v = min(max(d.default, d.low), d.high)
        out[d.name] = int(round(v)) if d.integer else round(v, 2)
    return out


def run_tuning(settings: TuneSettings, out: Path, workers: int, progress: bool | None) -> dict:
    """The search, the re-measurement and the validation (each resumed from ``out`` as far as it got)."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState
    from tqdm import tqdm

    _prepare(out, settings)

    def spec_of(values: dict[str, float]) -> str:
        return spec_with(settings.strategy, values, settings.game)

    result_path = out / "result.json"
    if result_path.exists():
        return json.loads(result_path.read_text(encoding="utf-8"))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = settings.space
    n_trials = settings.trials()
    if n_trials < 2:
        raise TuneError(
            f"--budget {settings.budget} leaves room for {n_trials} trial(s) of {settings.trial_games} games: "
            "raise --budget or lower --trial-games"
        )
    trial_games = settings.groups(settings.trial_games) * settings.players
    confirm_games = int(settings.budget * (1 - SEARCH_SHARE)) // CONFIRM_TOP
    validate = settings.groups(settings.validate_games) * settings.players
    storage = JournalStorage(JournalFileBackend(str(out / "study.journal")))
    sampler = optuna.samplers.TPESampler(seed=settings.seed, multivariate=True, n_startup_trials=min(10, n_trials))
    study = optuna.create_study(
        study_name="tune", storage=storage, direction="maximize", sampler=sampler, load_if_exists=True
    )
    # A trial left running by an interrupted search is played again.
    for stale in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(stale.number, state=TrialState.FAIL)
        study.enqueue_trial(stale.params)
    done = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if not study.get_trials(deepcopy=False):
        study.enqueue_trial(_defaults(space))
    confirm_path = out / "confirm.json"
    confirmed: dict[str, list[float]] = (
        json.loads(confirm_path.read_text(encoding="utf-8")) if confirm_path.exists() else {}
    )
    total = n_trials * trial_games + CONFIRM_TOP * settings.groups(confirm_games) * settings.players + 3 * validate
    played = len(done) * trial_games + len(confirmed) * settings.groups(confirm_games) * settings.players
    show = sys.stderr.isatty() if progress is None else progress
    bar = tqdm(total=total, initial=played, unit="game", disable=not show, dynamic_ncols=True, file=sys.stderr)
    games = Games(workers, bar.update)
    try:
        # The search: every trial on the same games (root seed).
        while len(done) < n_trials:
            trial = study.ask()
            values = {}
            for d in space:
                if d.integer:
                    values[d.name] = trial.suggest_int(d.name, int(d.low), int(d.high))
                else:
                    values[d.name] = trial.suggest_float(d.name, d.low, d.high, step=0.01)
            rows = games.play(settings.gauntlet(spec_of(values), settings.seed, trial_games))
            study.tell(trial, share_of(rows).share)
            done.append(trial)
            bar.set_postfix(best=f"{study.best_value:.3f}", trials=len(done))
        # The best few, re-measured on new seeds (root seed + 2): the winner is chosen there.
        ranked = sorted(
            (t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE),
            key=lambda t: -(t.value or 0.0),
        )[:CONFIRM_TOP]
        for t in ranked:
            if str(t.number) in confirmed:
                continue
            spec = spec_of(_values(space, t.params))
            s = share_of(games.play(settings.gauntlet(spec, settings.seed + 2, confirm_games)))
            confirmed[str(t.number)] = [s.share, s.low, s.high]
            confirm_path.write_text(json.dumps(confirmed, indent=1), encoding="utf-8")
        best = max(ranked, key=lambda t: confirmed[str(t.number)][0])
        tuned = spec_of(_values(space, best.params))
        untuned = settings.strategy
        # Validation on fresh seeds (root seed + 1).
        root = settings.seed + 1
        others = (untuned,) * (settings.players - 1)
        head = share_of(games.play(settings.schedule(tuned, others, "fixed", root, validate)))
        tuned_rows = games.play(settings.gauntlet(tuned, root, validate))
        untuned_rows = games.play(settings.gauntlet(untuned, root, validate))
    except BaseException:
        games.terminate()  # an error or Ctrl-C: the games in flight are lost, the trials told are in the journal
        raise
    else:
        games.close()
    finally:
        bar.close()
    search_best = study.best_trial
    result = {
        "tuned": tuned,
        "untuned": untuned,
        "players": settings.players,
        "against": list(settings.against),
        "trials": n_trials,
        "trial_games": trial_games,
        "search_best": {"spec": spec_of(_values(space, search_best.params)),
                        "share": search_best.value},
        "remeasured": [[spec_of(_values(space, t.params)), *confirmed[str(t.number)]]
                       for t in ranked],
        "validation_root_seed": root,
        "head_to_head": dataclasses.asdict(head),
        "tuned_vs_pool": dataclasses.asdict(share_of(tuned_rows)),
        "untuned_vs_pool": dataclasses.asdict(share_of(untuned_rows)),
        "difference_vs_pool": dataclasses.asdict(difference_of(tuned_rows, untuned_rows)),
    }  # fmt: skip
    result_path.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


def result_text(result: dict) -> str:
    def fmt(d: dict) -> str:
        return Share(**d).text()

    p = result["players"]
    lines = [
        f"tuned: {result['tuned']}",
        f"search: {result['trials']} trials of {result['trial_games']} games against {','.join(result['against'])}; "
        f"best trial {result['search_best']['share']:.3f}, the best {len(result['remeasured'])} re-measured on new "
        "seeds:",
    ]
    for spec, share, low, high in result["remeasured"]:
        lines.append(f"  {share:.3f} [{low:.3f}, {high:.3f}]  {spec}")
    lines += [
        f"validation on fresh seeds (root seed {result['validation_root_seed']}), win share with 95% interval "
        "clustered on the rotation group:",
        f"  tuned against the untuned {result['untuned']} ({p} players, seats rotated): "
        f"{fmt(result['head_to_head'])} ({result['head_to_head']['games']} games; even is {1 / p:.3f})",
        f"  against the pool: tuned {fmt(result['tuned_vs_pool'])}, untuned {fmt(result['untuned_vs_pool'])}, "
        f"difference {result['difference_vs_pool']['share']:+.3f} [{result['difference_vs_pool']['low']:+.3f}, "
        f"{result['difference_vs_pool']['high']:+.3f}] ({result['tuned_vs_pool']['games']} games each)",
    ]
    return "\n".join(lines)
