"""`palais tune`: search a strategy's numeric parameters for the highest win share against a pool, by simulation.

- **Paired games.** Every candidate plays the same games: a gauntlet (the candidate in one seat, its opponents drawn
  per rotation group from the pool by the tournament schedule's own gauntlet sampling), every setup seed in every
  seat rotation, the seeds from ``group_seed`` (the one seed function). Two candidates differ only by their play,
  so the search compares them on equal terms. Games are played with the game's own ``play`` (``--game``: any game
  of ``palais games``) from the schedule's game specs (the runner's Parquet chunks would cost more than a trial's
  few hundred games take to play).
- **The optimiser** is optuna's TPE sampler (multivariate), asked and told one trial at a time; every trial is kept in
  ``DIR/study.journal`` (optuna's journal storage), so an interrupted search resumes where it stopped. The first
  trial is the untuned spec itself.
- **The winner's curse.** Four fifths of the budget searches; the rest re-measures the best few trials on new seeds
  and the winner is chosen on that re-measurement, not on the luck that put it on top.
- **Validation** (not counted in the budget): the winner against the untuned spec on fresh seeds (root seed + 1):
  head to head (the winner in one seat, the untuned spec in the others, seats rotated), and both against the pool on
  the same games, with 95% intervals clustered on the rotation group.

``DIR`` holds ``tune.json`` (the settings: a resume must give the same), ``study.journal``, ``confirm.json`` (the
re-measurements) and ``result.json`` (the final spec and the validation figures).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import multiprocessing
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, fail
from palais_sim.cli.options import ComponentsOpt, GameOpt, GoldLimitOpt, LayoutOpt, MaxRoundsGameOpt
from palais_sim.games import get_game
from palais_sim.registry import (
    DEFAULT_GAME,
    StrategySpecError,
    builtins,
    parse_spec,
    resolve,
    split_strategy_list,
    strategy_parameters,
)
from palais_sim.tournament.schedule import Schedule, Settings

SEARCH_SHARE = 0.8  # of the budget; the rest re-measures the best trials
CONFIRM_TOP = 5
FORMAT = "palais-tune/1"

# (group, the focus strategy's win: 1, 1/k for a shared win, 0; finished)
Row = tuple[int, float, bool]


class TuneError(ValueError):
    """A tuning that cannot run as asked (a parameter that cannot be tuned, a budget too small, another DIR)."""


# ---------------------------------------------------------------------------------------------- the space


@dataclasses.dataclass(frozen=True)
class Dimension:
    name: str
    integer: bool
    low: float
    high: float
    default: float


def search_space(strategy: str, params: str | None, game: str = DEFAULT_GAME) -> list[Dimension]:
    """The parameters to tune: ``params`` names them (``a,b`` or ``a=low:high``), else every numeric parameter of
    the strategy's ``tuning_space()`` (a class without one: its numeric parameters, from 0 to twice the default).
    The default of each is the value in ``strategy`` as given, else the class's."""
    spec, cls, given = resolve(strategy, game)
    defaults = {**strategy_parameters(cls), **dict(given)}
    declared = getattr(cls, "tuning_space", None)
    ranges: dict[str, tuple[float, float]] = dict(declared()) if callable(declared) else {}
    if not ranges:
        for name, value in defaults.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                ranges[name] = _default_range(value)
    wanted: dict[str, tuple[float, float] | None]
    if params:
        wanted = {}
        for item in (p.strip() for p in params.split(",") if p.strip()):
            name, _, bounds = item.partition("=")
            name = name.strip()
            if bounds:
                low, sep, high = bounds.partition(":")
                try:
                    wanted[name] = (float(low), float(high))
                except ValueError:
                    raise TuneError(f"--params {item!r}: a range is written name=low:high") from None
                if not sep or wanted[name][0] >= wanted[name][1]:  # type: ignore[index]
                    raise TuneError(f"--params {item!r}: a range is written name=low:high with low < high")
            else:
                wanted[name] = None
    else:
        wanted = dict.fromkeys(ranges)
    space = []
    for name, bounds in wanted.items():
        default = defaults.get(name)
        if default is None or isinstance(default, bool) or not isinstance(default, int | float):
            numeric = [n for n, v in defaults.items() if isinstance(v, int | float) and not isinstance(v, bool)]
            raise TuneError(
                f"{spec.text}: {name!r} is not a numeric parameter; numeric parameters: {', '.join(numeric) or 'none'}"
            )
        low, high = bounds if bounds is not None else ranges.get(name, _default_range(default))
        integer = isinstance(default, int)
        if integer:
            low, high = math.ceil(low), math.floor(high)
        space.append(Dimension(name, integer, low, high, float(default)))
    if not space:
        raise TuneError(f"{spec.text} has no numeric parameters to tune")
    return space


def _default_range(value: float) -> tuple[float, float]:
    """A numeric parameter's range when its class declares none: 0 to twice the default, or the mirror image for a
    negative default (a penalty stays a penalty)."""
    return (min(2 * value, -1), 0) if value < 0 else (0, max(2 * value, 1))


def spec_with(strategy: str, values: dict[str, float], game: str = DEFAULT_GAME) -> str:
    """The strategy spec with these parameter values (over the ones it gives): ``greedy:gold_weight=0.41,...``."""
    spec = parse_spec(strategy, game)
    merged = {**spec.params, **{k: _text(v) for k, v in values.items()}}
    name = spec.text.split(":", 1)[0]
    head = name if name in builtins(game) else spec.target
    return head + (":" + ",".join(f"{k}={v}" for k, v in merged.items()) if merged else "")


def _text(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{round(value, 3):g}"


# ---------------------------------------------------------------------------------------------- playing


@functools.cache
def _context(game: str, rules: str) -> object:
    """The game's context (component set, rule options) for the rule settings ``rules`` (JSON): built once per
    worker, since every trial of a tuning plays under the same rules."""
    return get_game(game).context(json.loads(rules))


def play_games(task: tuple[dict, int, int]) -> list[Row]:
    """Play games ``first .. first + count - 1`` of a schedule: the first listed strategy's result in each (a
    top-level function: worker processes run it too)."""
    from palais_sim.registry import load_strategy

    settings_dict, first, count = task
    settings = Settings.from_dict(settings_dict)
    schedule = Schedule(settings)
    game = get_game(settings.game)
    rules = {k: v for k, v in settings_dict.items() if k not in ("strategies", "seed", "games", "format")}
    context = _context(game.name, json.dumps(rules, sort_keys=True))
    rows: list[Row] = []
    for spec in schedule.games(first, count):
        result = game.play(context, spec.seed, [load_strategy(s, game.name) for s in spec.matchup])
        seat = spec.rotation % settings.players  # rotation r seats the first listed strategy in seat r + 1
        win = 1.0 / len(result.winners) if seat in result.winners else 0.0  # a shared win counts as a share
        rows.append((spec.group, win, result.finished))
    return rows


class Games:
    """Plays schedules in-process or in a pool of worker processes (``spawn``), whole rotation groups per task."""

    def __init__(self, workers: int, progress: Callable[[int], None]) -> None:
        self.workers = workers
        self.progress = progress
        self._pool: ProcessPoolExecutor | None = None
        if workers > 1:
            self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def play(self, settings: Settings) -> list[Row]:
        schedule = Schedule(settings)
        size = schedule.group_size
        groups = schedule.groups
        per_task = max(1, math.ceil(groups / (4 * self.workers)))
        tasks = [
            (settings.to_dict(), g * size, min(per_task, groups - g) * size) for g in range(0, groups, per_task)
        ]  # fmt: skip
        rows: list[Row] = []
        results: Iterable[list[Row]] = (
            map(play_games, tasks) if self._pool is None else self._pool.map(play_games, tasks)
        )  # fmt: skip
        for part in results:
            rows.extend(part)
            self.progress(len(part))
        return rows

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)


# ---------------------------------------------------------------------------------------------- statistics


@dataclasses.dataclass(frozen=True)
class Share:
    """A win share with its 95% interval, clustered on the rotation group (the games of one setup seed)."""

    share: float
    low: float
    high: float
    games: int
    unfinished: int

    def text(self) -> str:
        return f"{self.share:.3f} [{self.low:.3f}, {self.high:.3f}]"


def share_of(rows: list[Row]) -> Share:
    by_group: dict[int, list[float]] = {}
    for group, win, _finished in rows:
        by_group.setdefault(group, []).append(win)
    means = [sum(v) / len(v) for v in by_group.values()]
    return _interval(means, len(rows), sum(1 for r in rows if not r[2]))


def difference_of(a: list[Row], b: list[Row]) -> Share:
    """``a`` less ``b`` on the same games, with the interval of the paired (per group) differences."""
    ga: dict[int, list[float]] = {}
    gb: dict[int, list[float]] = {}
    for group, win, _ in a:
        ga.setdefault(group, []).append(win)
    for group, win, _ in b:
        gb.setdefault(group, []).append(win)
    diffs = [sum(ga[g]) / len(ga[g]) - sum(gb[g]) / len(gb[g]) for g in ga if g in gb]
    return _interval(diffs, len(a), 0)


def _interval(values: list[float], games: int, unfinished: int) -> Share:
    n = len(values)
    mean = sum(values) / n if n else float("nan")
    if n < 2:
        return Share(mean, float("nan"), float("nan"), games, unfinished)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return Share(mean, mean - half, mean + half, games, unfinished)


# ---------------------------------------------------------------------------------------------- the search


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
    layout: str
    components: str | None
    gold_limit: int | None
    max_rounds: int
    game: str = DEFAULT_GAME

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["format"] = FORMAT
        if self.game == DEFAULT_GAME:
            del data["game"]  # as before games were named: a tuning directory of then still resumes
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
            layout=self.layout,
            components=self.components,
            gold_limit=self.gold_limit,
            max_rounds=self.max_rounds,
            game=self.game,
        )

    def gauntlet(self, focus: str, root: int, games: int) -> Settings:
        return self.schedule(focus, self.against, "gauntlet", root, games)


def _prepare(out: Path, settings: TuneSettings) -> None:
    stored = out / "tune.json"
    if stored.exists():
        if json.loads(stored.read_text(encoding="utf-8")) != settings.to_dict():
            raise TuneError(f"{out} holds a different tuning (see its tune.json); choose another --out")
        return
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TuneError(f"{out} is not empty and holds no tuning; choose a new or empty directory")
    out.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps(settings.to_dict(), indent=1), encoding="utf-8")


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
    finally:
        games.close()
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


# ---------------------------------------------------------------------------------------------- the command


def tune(
    strategy: str = typer.Argument(..., help="The strategy spec to tune, e.g. greedy (its given values are kept)"),
    game: str = GameOpt,
    against: str | None = typer.Option(
        None,
        "--against",
        help="The opponents' pool: comma-separated specs \\[default: the game's tune pool (`palais games --json`)]",
    ),
    players: int | None = typer.Option(None, "--players", "-p", help="Players per game \\[default: 2; the game's]"),
    budget: int = typer.Option(20000, "--budget", help="Games for the search and the re-measurement"),
    params: str | None = typer.Option(
        None, "--params", help="Parameters to tune: a,b or a=low:high (default: all numeric ones)"
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Tuning directory (new, empty, or one to resume)"),
    seed: int = typer.Option(1, "--seed", "-s", help="Root seed of the search (validation: seed + 1)"),
    trial_games: int = typer.Option(400, "--trial-games", help="Games per trial (whole rotation groups)"),
    validate: int = typer.Option(2000, "--validate", help="Games per validation comparison (3 comparisons)"),
    workers: int = typer.Option(1, "--workers", "-w", help="Worker processes (1 = in-process)"),
    layout: str = LayoutOpt,
    components: Path | None = ComponentsOpt,
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int | None = MaxRoundsGameOpt,
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar (default: a tty)"),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON"),
) -> None:
    """Search a strategy's numeric parameters for the highest win share against a pool (optuna, resumable)."""
    try:
        the_game = get_game(game)
        if players is None:
            players = the_game.default_players
        if not the_game.min_players <= players <= the_game.max_players:
            raise TuneError(
                f"--players must be {the_game.min_players} to {the_game.max_players} for {the_game.title}, "
                f"got {players}"
            )
        if workers < 1 or trial_games < 1 or validate < 1 or budget < 1:
            raise TuneError("--workers, --trial-games, --validate and --budget must be at least 1")
        pool = tuple(split_strategy_list(against or the_game.tune_pool, the_game.name))
        for spec in (strategy, *pool):
            resolve(spec, the_game.name)
        settings = TuneSettings(
            strategy=strategy,
            against=pool,
            players=players,
            budget=budget,
            space=tuple(search_space(strategy, params, the_game.name)),
            seed=seed,
            trial_games=trial_games,
            validate_games=validate,
            layout=layout,
            components=str(components.resolve()) if components is not None else None,
            gold_limit=gold_limit,
            max_rounds=max_rounds or the_game.default_max_rounds,
            game=the_game.name,
        )
        Schedule(settings.gauntlet(strategy, seed, 1))  # the pool and the options make a schedule
        the_game.context(settings.gauntlet(strategy, seed, 1).to_dict())  # the rule options suit the game
        result = run_tuning(settings, out, workers, progress)
    except KeyboardInterrupt:
        fail(f"interrupted: the trials played are kept in {out}; run the same command again to go on", 130)
    except (TuneError, StrategySpecError, *USER_ERRORS) as exc:
        fail(str(exc))
    typer.echo(json.dumps(result, indent=2) if as_json else result_text(result))
