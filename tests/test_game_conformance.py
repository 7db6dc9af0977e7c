"""One API test run on every registered game (the built-ins, any entry point or ``PALAIS_GAMES`` game, the toy race
of tests/toygame and its core alone), in the spirit of Pgx's ``api_test`` and OpenSpiel's random-simulation tests.

Every check is a promise of :class:`palais_sim.core.game.Game` (quoted where it is made) or of the seat contract the
games share: ``strategy.choose(view, decision)`` with ``view.seat``, ``decision.seat``, ``decision.kind`` and the
decision's own random stream ``view.rng``, ``view.legal_options(decision)`` (or ``NotListed`` where the game lists
none) and ``view.sample_option(decision, rng)`` (one of the listed choices: what the strategies of every game play).
Random play goes through the game's ``random`` strategy and the engine's check of every answer (an answer may take a
shorter form than the listed one, so it is the sampled option that is checked against the list).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import io
import math
import os
import pickle
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from palais_sim import __version__
from palais_sim.core.dtypes import polars_dtype
from palais_sim.core.errors import NotListed, StrategyError
from palais_sim.core.game import (
    COMMON_GAMES,
    COMMON_GAMES_END,
    FACETS,
    FALLBACKS,
    ONE,
    ZERO,
    Column,
    Completed,
    Game,
    Positions,
    members,
    missing_common_columns,
)
from palais_sim.core.games import ENV_VAR, UnknownGame, game_names, get_game
from palais_sim.core.rule_options import RuleOption
from palais_sim.registry import load_strategy, split_strategy_list, strategy_class
from palais_sim.tournament import records
from palais_sim.tournament.schedule import Schedule, Settings
from strategies.common.search import choice_key
from tests.sample_sizes import sample

TOY = "toy=tests.toygame.game:GAME"
CORE_ONLY = "toy-core=tests.toygame.core_only:GAME"  # the toy race's core alone: every facet a fallback
GAMES_PER_GAME = sample(200)  # random games per registered game (each player count in turn): about 9 s for Palais Royal
LIST_EVERY = 4  # the legal options of every 4th decision are listed and checked against the sampled option
PROBE_EVERY = 23  # the view of every 23rd decision (and each seat's first) is walked for the seed and for mutables


def with_toy(value: str | None) -> str:
    """``PALAIS_GAMES`` as the user set it, with the toy race and its core alone added."""
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    for entry in (TOY, CORE_ONLY):
        if not any(e.startswith(entry.split("=")[0] + "=") for e in entries):
            entries.append(entry)
    return ",".join(entries)


def registered_names() -> list[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_VAR, with_toy(os.environ.get(ENV_VAR)))
        return game_names()


NAMES = registered_names()


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, with_toy(os.environ.get(ENV_VAR)))


@pytest.fixture(params=NAMES)
def game(request: pytest.FixtureRequest) -> Game:
    return get_game(request.param)


def one_line(exc: BaseException) -> bool:
    return bool(str(exc).strip()) and "\n" not in str(exc).strip()


def seeds(name: str, count: int) -> list[int]:
    """Large seeds (a view that holds one would show it), the same in every run."""
    rng = random.Random(f"conformance:{name}")
    return [rng.getrandbits(63) for _ in range(count)]


# ------------------------------------------------------------------------------------------------ static facts
SETTINGS = {f.name for f in dataclasses.fields(Settings)}


def test_the_facts_of_a_game(game: Game) -> None:
    assert get_game(game.name) is game and game.name in game_names() and game.name == game.name.lower()
    for text in (game.title, game.components_hint):
        assert isinstance(text, str) and text.strip()
    assert 1 <= game.min_players <= game.default_players <= game.max_players
    for count in (game.bench_players, game.comparison_players):
        assert game.min_players <= count <= game.max_players
    assert isinstance(game.default_max_rounds, int) and game.default_max_rounds >= 1
    # "the files whose contents decide a game's outcome": the game's own module among them, every one there
    sources = [Path(p).resolve() for p in game.sources]
    assert sources and all(p.suffix in (".py", ".json") and p.is_file() for p in sources)  # code and fitted models
    module = Path(inspect.getfile(type(game))).resolve()  # game.py, or a compiled game.cpython-*.so beside it
    assert module.with_name(module.name.split(".")[0] + ".py") in sources
    # "its rule options": each with a name no run setting has, a help line, and its default among its values
    names = [o.name for o in game.rule_options]
    assert len(names) == len(set(names)) and not set(names) & SETTINGS, f"rule options {names} clash"
    for option in game.rule_options:
        assert isinstance(option, RuleOption) and option.help.strip() and option.flag.startswith("--")
        assert option.value(None, game.name) == option.default
        assert option.value(option.default, game.name) == option.default or option.default is None


def test_report_sections_are_functions_of_a_report_and_a_run(game: Game) -> None:
    import importlib

    if game.report_sections is None:  # the common sections only (the Reports facet's fallback)
        return
    module, colon, attribute = game.report_sections.partition(":")
    assert colon and attribute, f"{game.report_sections!r} is not module:attribute"
    sections = getattr(importlib.import_module(module), attribute)
    assert isinstance(sections, Mapping) and sections
    for name, section in sections.items():
        assert isinstance(name, str) and name != "all" and callable(section)
        inspect.signature(section).bind("report", "run")  # called as section(rep, run)


def base_name(spec: str) -> str:
    return spec.split(":", 1)[0]


def test_defaults_name_the_games_own_strategies(game: Game) -> None:
    assert isinstance(game.strategies, Mapping) and "random" in game.strategies, "every game has a random player"
    for target in game.strategies.values():
        assert callable(getattr(strategy_class(target), "choose", None))
    named = [game.default_strategy, *game.ladder, *split_strategy_list(game.tune_pool, game), *game.skill_levels]
    for spec in named:
        assert base_name(spec) in game.strategies, f"{spec!r} is none of {game.name}'s strategies"
        assert load_strategy(spec, game).name == spec  # parameters known and of the right type
    assert len(set(game.ladder)) == len(game.ladder) >= 2
    assert game.skill_levels and len(set(game.skill_levels)) == len(game.skill_levels)


def test_the_demo_is_a_run_of_the_game(game: Game) -> None:
    assert set(game.demo) <= SETTINGS - {"game"}, f"not run settings: {set(game.demo) - SETTINGS}"
    settings = Settings.from_dict({**game.demo, "game": game.name})
    Schedule(settings)  # players, format and strategies fit
    game.context(settings.to_dict())
    assert all(base_name(s) in game.strategies for s in settings.strategies)
    # `palais simulate` starts from the demo: its round cap is the game's own
    assert settings.max_rounds == game.default_max_rounds


# ------------------------------------------------------------------------------------------- context and tables
def test_contexts_travel_to_workers_and_impossible_settings_are_one_line(game: Game, tmp_path: Path) -> None:
    for players in range(game.min_players, game.max_players + 1):
        context = game.context({"players": players})
        copy = pickle.loads(pickle.dumps(context))
        assert (
            game.components_hash(copy)
            == game.components_hash(context)
            == game.components_hash(game.context({"players": players}))
        )
        assert isinstance(game.components_hash(context), str) and game.components_hash(context)
        assert isinstance(game.components_name(context), str) and game.components_name(context)
        specs = [game.default_strategy] * players
        assert rows_of(game, copy, 5, specs) == rows_of(game, context, 5, specs)
    impossible = [
        {"players": game.max_players + 1},
        {"players": game.min_players - 1},
        {"max_rounds": -1},
        {"components": str(tmp_path / "no-such-components.toml")},
    ]
    for settings in impossible:
        with pytest.raises(ValueError) as info:
            game.context(settings)
        assert one_line(info.value), settings


def tie_settings(game: Game) -> list[dict]:
    """The default settings, and those the game's demo names."""
    return [{}, dict(game.demo)]


def test_the_tables_have_the_common_columns_and_a_tie_column(game: Game) -> None:
    columns = game.columns()
    assert list(columns)[:2] == ["games", "seats"] and missing_common_columns(columns) == []
    for table, cols in columns.items():
        names = [c.name for c in cols]
        assert len(set(names)) == len(names), f"{table} names a column twice"
        types = [polars_dtype(c.dtype) for c in cols]  # a game may name its types without polars (core.dtypes)
        assert "game" in names and dict(zip(names, types, strict=True))["game"] == pl.Int64()
        for c, dtype in zip(cols, types, strict=True):
            assert isinstance(c, Column) and isinstance(dtype, pl.DataType) and c.meaning.strip()
            assert c.base in ("", ONE, ZERO)
    seats = {c.name: polars_dtype(c.dtype) for c in columns["seats"]}
    for settings in tie_settings(game):
        tie = game.tie_column(settings)
        assert tie in seats and seats[tie].is_numeric(), f"tie column {tie!r}"
    own = {c.name for c in columns["games"]} - {c.name for c in COMMON_GAMES + COMMON_GAMES_END}
    context = game.context({})
    failed = game.failed_row(context, 12345)
    assert failed and set(failed) <= own, "failed_row gives the game's own columns of the games table"
    row = records.failed_game_row(game, context, 3, 12345, 1, 0, ["random"] * game.default_players, "boom")
    assert records.frame([row], "games", game).height == 1
    # "games-table columns that describe a game's setup (joined onto its seat rows)": own columns of the games table
    assert isinstance(game.setup_columns, tuple) and set(game.setup_columns) <= own
    for study, target in game.studies.items():  # each names a command function ("balance x": `palais balance x`)
        module, _, attribute = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute)), f"study {study!r}: {target}"
        assert study.replace("balance ", "", 1).isidentifier(), f"study {study!r}: a command name"
    # what a seat takes (a bit mask per seat in the analytics): a column of one of its tables, ids from its components
    if game.taken is not None:
        table, column = game.taken
        assert column in {c.name for c in columns[table]} and {"game", "seat"} <= {c.name for c in columns[table]}
        standard = game.load_components(None)
        assert standard is not None and all(isinstance(i, str) for i in game.taken_ids(standard))


def test_the_standard_components_are_those_a_run_records(game: Game) -> None:
    """ "The component set in a file (None: the standard set) ... for a report of a run played with it": the default
    run's component hash is the standard set's, so its report finds the set; a missing file is one line."""
    standard = game.load_components(None)
    context = game.context({})
    if standard is not None:
        assert standard.hash == game.components_hash(context) and standard.name == game.components_name(context)
    with pytest.raises((ValueError, OSError)) as info:
        game.load_components("no/such/components.toml")
        if standard is None:
            raise ValueError("no component files")
    assert one_line(info.value)


# ----------------------------------------------------------------------------------------------- random play
@dataclasses.dataclass
class Call:
    seat: int  # the seat whose strategy was asked
    view_seat: int
    decision_seat: int
    kind: str
    stream: float  # the first number of the decision's own random stream
    choice: str
    options: int | None  # how many legal options the view listed (None: it lists none)
    legal: bool | None  # the view's sample_option is one of them


class Spy:
    """A seat's strategy, watched: every view and decision it gets and every answer it gives."""

    def __init__(self, inner: Any, seat: int, calls: list[Call], probe: ViewProbe) -> None:
        self.inner, self.seat, self.calls, self.probe = inner, seat, calls, probe
        self.name = inner.name

    def choose(self, view: Any, decision: Any) -> object:
        if len(self.calls) % PROBE_EVERY == 0 or self.seat not in self.probe.seats:
            self.probe.seats.add(self.seat)
            self.probe(view)
        copy = random.Random()
        copy.setstate(view.rng.getstate())  # the strategy's own stream stays untouched
        choice = self.inner.choose(view, decision)
        listed = sampled = None
        if len(self.calls) % LIST_EVERY == 0:  # listing every choice is dear in Palais Royal: one decision in four
            sampled = view.sample_option(decision, random.Random(len(self.calls)))
            try:
                listed = [choice_key(o) for o in view.legal_options(decision)]
            except NotListed:  # a decision whose choices the game does not list (Palais Royal's movement)
                listed = None
        self.calls.append(
            Call(self.seat, view.seat, decision.seat, decision.kind, copy.random(), repr(choice),
                 None if listed is None else len(listed), None if listed is None else choice_key(sampled) in listed)
        )  # fmt: skip
        return choice


def attribute_values(obj: object) -> Iterator[object]:
    """An object's data: its instance dict, and the slots and data descriptors of its class (how a compiled class
    exposes its attributes)."""
    yield from getattr(obj, "__dict__", {}).values()
    for name in dir(type(obj)):
        if name.startswith("__") and name.endswith("__"):
            continue
        descriptor = inspect.getattr_static(type(obj), name, None)
        if type(descriptor).__name__ in ("member_descriptor", "getset_descriptor"):
            try:
                yield getattr(obj, name)
            except AttributeError:
                continue


def reachable(root: object) -> list[object]:
    """Everything reachable from ``root`` through data (attributes, containers, closures); not classes or modules."""
    seen: set[int] = set()
    out: list[object] = []
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or inspect.ismodule(obj):
            continue
        seen.add(id(obj))
        out.append(obj)
        if isinstance(obj, dict | Mapping):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif not isinstance(obj, str | int | float | bytes | bool | complex) and obj is not None:
            stack.extend(attribute_values(obj))
            stack.extend(cell.cell_contents for cell in getattr(obj, "__closure__", None) or ())
    return out


class ViewProbe:
    """Walks a view: the seed is nowhere in it, and it holds no mutable container (copies, never the state)."""

    def __init__(self, seed: int) -> None:
        self.seed, self.walked = seed, 0
        self.problems: list[str] = []
        self.seats: set[int] = set()

    def __call__(self, view: object) -> None:
        self.walked += 1
        for obj in reachable(view):
            if isinstance(obj, int) and not isinstance(obj, bool) and obj == self.seed:
                self.problems.append(f"the seed is in the view of seat {getattr(view, 'seat', '?')}")
            elif isinstance(obj, str) and str(self.seed) in obj:
                self.problems.append(f"the seed is in a string of the view: {obj[:60]!r}")
            elif type(obj) in (list, dict, set, bytearray):
                self.problems.append(f"a mutable {type(obj).__name__} in the view: {str(obj)[:60]}")


def matchups(game: Game) -> Iterator[tuple[int, int, list[str]]]:
    """(index, seed, strategy specs): each player count in turn, random players mixed with the game's usual player
    (a game of random players alone may never end)."""
    for index, seed in enumerate(seeds(game.name, GAMES_PER_GAME)):
        players = game.min_players + index % (game.max_players - game.min_players + 1)
        rng = random.Random(seed)
        yield index, seed, [rng.choice(("random", game.default_strategy)) for _ in range(players)]


def rows_of(game: Game, context: Any, seed: int, specs: list[str]) -> dict:
    """The rows of one game between fresh strategies."""
    return game.rows(context, game.play(context, seed, [load_strategy(s, game) for s in specs]), 0, 0, 0)


def check_rows(game: Game, context: Any, result: Any, rows: dict, where: str, index: int, tie: str) -> None:
    columns = game.columns()
    assert set(rows) <= set(columns) and {"games", "seats"} <= set(rows), where
    for table, table_rows in rows.items():
        names = [c.name for c in columns[table]]
        for row in table_rows:
            assert list(sorted(row)) == sorted(names), f"{where}: {table} row keys {sorted(set(row) ^ set(names))}"
            assert row["game"] == index, where
        records.frame(table_rows, table, game)  # casts to the schema
    (g,) = rows["games"]
    n = result.players
    assert (g["seed"], g["group"], g["rotation"], g["players"]) == (result.seed, index // 7, index % 7, n), where
    assert g["matchup"] == ",".join(result.strategies) and g["error"] is None and g["engine"] == __version__, where
    assert (g["rounds"], g["finished"], g["decisions"]) == (result.rounds, result.finished, result.decisions), where
    assert g["winners"] == [w + 1 for w in result.winners], where
    seats = rows["seats"]
    assert [s["seat"] for s in seats] == list(range(1, n + 1)), where
    assert [s["strategy"] for s in seats] == result.strategies and all(s["group"] == index // 7 for s in seats)
    totals = [s["total"] for s in seats]
    assert [s["rank"] for s in seats] == [1 + sum(t > mine for t in totals) for mine in totals], where
    # "winning seats (several for a shared win; tie-breaks applied)": the best totals, then the best tie column
    top = [s for s in seats if s["total"] == max(totals)]
    best = max(s[tie] for s in top)
    assert g["winners"] == [s["seat"] for s in top if s[tie] == best], f"{where}: winners by total, then {tie}"
    shares = [s["win"] for s in seats]
    k = len(g["winners"])
    assert shares == [1 / k if s["seat"] in g["winners"] else 0.0 for s in seats], where
    assert math.isclose(sum(shares), 1.0), where


def test_random_games_keep_every_promise(game: Game) -> None:
    kinds: Counter[str] = Counter()
    walked = finished = 0
    outcomes = set()
    for index, seed, specs in matchups(game):
        settings = {"players": len(specs)}
        context = game.context(settings)
        tie = game.tie_column(settings)
        where = f"{game.name} game {index} (seed {seed}, {','.join(specs)})"
        calls: list[Call] = []
        probe = ViewProbe(seed)
        spies = [Spy(load_strategy(spec, game), seat, calls, probe) for seat, spec in enumerate(specs)]
        result = game.play(context, seed, spies)
        # the result: "seats 0-based"; the game ends finished or at its round cap
        assert (result.seed, result.players, result.strategies) == (seed, len(specs), specs), where
        assert 1 <= result.rounds <= game.default_max_rounds and isinstance(result.finished, bool), where
        assert result.finished or result.rounds == game.default_max_rounds, f"{where}: stopped before the cap"
        assert result.decisions == len(calls), f"{where}: {result.decisions} decisions, {len(calls)} asked"
        assert result.winners and len(set(result.winners)) == len(result.winners), where
        assert all(0 <= w < len(specs) for w in result.winners), where
        # the seat contract: a seat is asked only its own decisions, each with a stream of its own
        for c in calls:
            assert c.seat == c.view_seat == c.decision_seat, f"{where}: seat {c.seat} got {c}"
            assert isinstance(c.kind, str) and c.kind, where
            assert c.options is None or (c.options > 0 and c.legal), f"{where}: {c}"
        streams = [c.stream for c in calls]
        assert len(set(streams)) == len(streams), f"{where}: two decisions share a random stream"
        assert probe.problems == [], f"{where}: {probe.problems[:3]}"
        rows = game.rows(context, result, index, index // 7, index % 7)
        check_rows(game, context, result, rows, where, index, tie)
        # determinism: the same seed, fresh strategies, no watching: the same game
        if index % 3 == 0:
            again = game.play(context, seed, [load_strategy(s, game) for s in specs])
            assert game.rows(context, again, index, index // 7, index % 7) == rows, f"{where}: not deterministic"
        kinds.update(c.kind for c in calls)
        walked += probe.walked
        finished += result.finished
        outcomes.add((len(specs), tuple(s["total"] for s in rows["seats"])))
    assert walked >= GAMES_PER_GAME and kinds
    assert finished >= GAMES_PER_GAME // 2, f"only {finished} of {GAMES_PER_GAME} games finished"
    assert len(outcomes) >= GAMES_PER_GAME // 3, "different seeds, hardly different games"


def test_the_probe_sees_a_seed_or_a_list_in_a_view() -> None:
    class Leaky:
        def __init__(self, seed: int) -> None:
            self.seat, self.info = 0, (("deck", [1, 2]), {"seed": f"x{seed}y"})

    probe = ViewProbe(987654321987)
    probe(Leaky(987654321987))
    assert any("seed is in a string" in p for p in probe.problems) and any("mutable list" in p for p in probe.problems)


# ------------------------------------------------------------------------------------------- failing strategies
class Failing:
    """Answers its ``at``-th decision by raising, or with an answer no decision accepts."""

    name = "failing"

    def __init__(self, inner: Any, at: int, how: str) -> None:
        self.inner, self.at, self.how, self.asked = inner, at, how, 0

    def choose(self, view: Any, decision: Any) -> object:
        self.asked += 1
        if self.asked == self.at:
            if self.how == "raise":
                raise RuntimeError("deliberately")
            return object()
        return self.inner.choose(view, decision)


@pytest.mark.parametrize("how", ["raise", "illegal"])
def test_a_failing_strategy_fails_its_game_with_the_core_strategy_error(game: Game, how: str) -> None:
    """ "raises StrategyError when a strategy fails" (the core's, which the runner and the CLI catch), in one line
    naming the seed, picklable so it travels back from a worker; an illegal answer is never applied."""
    context = game.context({"players": game.default_players})
    for at, seed in zip((1, 2, 3), seeds(game.name + how, 3), strict=True):
        players = [load_strategy(game.default_strategy, game) for _ in range(game.default_players)]
        players[-1] = Failing(players[-1], at, how)
        with pytest.raises(StrategyError) as info:
            game.play(context, seed, players)
        error = info.value
        assert one_line(error) and str(seed) in str(error)
        assert str(pickle.loads(pickle.dumps(error))) == str(error)
        assert "failing" in str(error)


# ------------------------------------------------------------------------------------ one game at the command line
def gives(game: Game, facet: str) -> bool:
    """Whether the game gives a facet itself (a game that leaves it out has the facet's fallbacks)."""
    return not (isinstance(game, Completed) and set(members(FACETS[facet])) & set(game.missing))


def test_a_logged_game_is_the_same_game_and_replays(game: Game, tmp_path: Path) -> None:
    if not gives(game, "session"):
        with pytest.raises(ValueError) as info:
            game.play_session(game.context({}), 1, lambda n: [], None, tmp_path / "log")
        assert one_line(info.value) and not (tmp_path / "log").exists()
        return
    context = game.context({"players": game.default_players})
    specs = (["random", game.default_strategy] * game.max_players)[: game.default_players]
    seed = seeds(game.name + "session", 1)[0]

    def seats(n: int) -> list:
        assert n == len(specs)
        return [load_strategy(s, game) for s in specs]

    out, log = io.StringIO(), tmp_path / "game.log"
    result = game.play_session(context, seed, seats, out, log)
    assert out.getvalue().strip() and log.is_file()
    assert game.rows(context, result, 0, 0, 0) == game.rows(
        context, game.play(context, seed, seats(len(specs))), 0, 0, 0
    )
    silent = game.play_session(context, seed, seats, None, None)
    assert game.rows(context, silent, 0, 0, 0) == game.rows(context, result, 0, 0, 0)
    assert isinstance(game.replay_text(log), str)
    text = log.read_text(encoding="utf-8")
    log.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(ValueError) as info:
        game.replay_text(log)
    assert one_line(info.value)


# ---------------------------------------------------------------------------------------------------- facets
def test_the_core_of_a_game_is_at_most_15_members() -> None:
    assert len(members(Game)) <= 15, members(Game)
    every = [name for facet in FACETS.values() for name in members(facet)]
    assert len(every) == len(set(every)) and not set(every) & set(members(Game)), "a member in two places"


@pytest.mark.parametrize("facet", list(FACETS))
def test_a_game_gives_a_facet_whole_or_not_at_all(game: Game, facet: str) -> None:
    """Every facet (a Protocol of :mod:`palais_sim.core.game`) is given whole or left out (the registry then puts its
    fallbacks in its place); either way each of its methods is callable and each attribute is not."""
    own = game.game if isinstance(game, Completed) else game
    wanted = members(FACETS[facet])
    given = [name for name in wanted if hasattr(own, name)]
    assert given in ([], list(wanted)), f"{game.name} gives {given} of the {facet} facet's {list(wanted)}"
    methods = {name for name, value in vars(FACETS[facet]).items() if callable(value) and not name.startswith("_")}
    for name in wanted:
        assert callable(getattr(game, name)) == (name in methods), name
    for name in members(Game):
        assert hasattr(game, name), name


def simulated_and_reported(game: str, which: str, out: Path) -> Path:
    """``palais simulate`` of a few cheap games of a registered toy ``game`` into ``out/run``, then ``palais report
    which`` of it into ``out/rep``: the report's Markdown page."""
    from typer.testing import CliRunner

    from palais_sim.cli import app

    runner = CliRunner()
    played = runner.invoke(app, ["simulate", "--game", game, "--games", "8", "--players", "2", "--strategies",
                                 "greedy,random", "--workers", "1", "--out", str(out / "run")])  # fmt: skip
    assert played.exit_code == 0, played.output
    report = runner.invoke(app, ["report", which, str(out / "run"), "--out", str(out / "rep")])
    assert report.exit_code == 0, report.output
    return out / "rep" / f"{'report' if which == 'all' else which}.md"


def test_a_game_of_the_core_alone_plays_simulates_and_reports(tmp_path: Path) -> None:
    """A game that gives only the core (the toy race's core members) is completed by the registry: it simulates
    through the runner, its run reports the common sections, and the commands of a facet it lacks refuse it in one
    line."""
    from typer.testing import CliRunner

    from palais_sim.cli import app

    game = get_game("toy-core")
    assert isinstance(game, Completed) and set(game.missing) == set(FALLBACKS)
    assert "Win rates" in simulated_and_reported("toy-core", "all", tmp_path).read_text()
    refused = CliRunner().invoke(app, ["play", "--game", "toy-core"])
    assert refused.exit_code != 0 and "has no command-line session" in refused.output
    assert len(refused.output.strip().splitlines()) == 1


def test_a_game_without_a_core_member_is_refused_in_one_line(monkeypatch) -> None:
    from tests.toygame import core_only

    monkeypatch.setenv(ENV_VAR, "toy-core=tests.toygame.core_only:GAME")
    monkeypatch.delattr(core_only.GAME, "turns")
    with pytest.raises(UnknownGame) as info:
        get_game("toy-core")
    assert one_line(info.value) and "lacks the core members turns" in str(info.value)


def test_the_facets_a_game_offers(game: Game) -> None:
    """The positions facet is ``None`` or whole: a format of its own (a command tells a file's game by it) and an
    analyser among its strategies that can analyse."""
    facet = game.positions
    if facet is None:
        return
    assert isinstance(facet, Positions)
    others = [get_game(n).positions for n in NAMES if n != game.name]
    assert isinstance(facet.format, str) and facet.format not in [o.format for o in others if o is not None]
    assert base_name(facet.analyser) in game.strategies
    assert callable(getattr(load_strategy(facet.analyser, game), "analyse", None))


def cheap(spec: str, game: Game) -> str:
    """The analyser ``spec`` at a budget of 8, where it takes one (a test's time)."""
    name = base_name(spec)
    if "budget" not in inspect.signature(strategy_class(game.strategies[name])).parameters:
        return spec
    return f"{name}:budget=8"


def test_positions_round_trip_or_are_refused_in_one_line(game: Game, tmp_path: Path) -> None:
    """A game with the positions facet writes a file per turn, scores and inspects it, analyses its pending decision,
    and plays on from it the same game (the files written from there on are the first game's); a file that is no
    position is one line naming the file."""
    facet = game.positions
    if facet is None:
        return
    context = game.context({"players": game.default_players})
    seed = seeds(game.name + "positions", 1)[0]

    def seats(n: int) -> list:
        return [load_strategy(game.default_strategy, game) for _ in range(n)]

    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    asks: list[Callable[[Path], object]] = [
        facet.score,
        facet.inspect,
        lambda path: facet.analyse(path, 1, None, None, None),
        lambda path: facet.play_session(None, seed, seats, None, None, None, path),
    ]
    for ask in asks:
        with pytest.raises(ValueError) as info:
            ask(bad)
        assert one_line(info.value) and str(bad) in str(info.value)
    first, again = tmp_path / "first", tmp_path / "again"
    first.mkdir()
    again.mkdir()
    result = facet.play_session(context, seed, seats, None, None, first, None)
    written = sorted(first.iterdir())
    assert len(written) >= 3, "asked for positions, wrote hardly any"
    searcher = load_strategy(cheap(facet.analyser, game), game)
    helper = load_strategy(game.default_strategy, game)
    for path in (written[0], written[len(written) // 2]):
        for payload, text in (facet.score(path), facet.inspect(path)):
            assert isinstance(payload, dict) and payload and isinstance(text, str) and text.strip()
        analysis = facet.analyse(path, None, searcher, helper, None)
        assert analysis["candidates"] and sum(c["played"] for c in analysis["candidates"]) == 1
    middle = written[len(written) // 2]
    on = facet.play_session(None, seed, seats, None, None, again, middle)
    ends = [(r.winners, r.rounds, r.finished, [s["total"] for s in game.rows(context, r, 0, 0, 0)["seats"]])
            for r in (on, result)]  # fmt: skip
    assert ends[0] == ends[1], "played on from a position, another game"
    later = sorted(again.iterdir())
    assert [p.name for p in later] == [p.name for p in written[written.index(middle) :]]
    assert all(p.read_text() == (first / p.name).read_text() for p in later)


def test_every_registered_game_is_tested() -> None:
    assert {"palais-royal", "palastgefluester", "toy", "toy-core"} <= set(NAMES)
