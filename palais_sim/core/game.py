"""The game interface: what the tournament runner, the Parquet records, the bench and the game-agnostic reports need
of a game, and nothing more (OpenSpiel's ``Game`` and Pgx's ``make(name)``, kept smaller).

A game plays one seeded game between strategies and turns the result into table rows. Every game writes the
``games`` and ``seats`` tables with the common columns below (what win rates, ratings, head-to-head, seat balance,
game length and the paired tests read) plus columns of its own, and may add tables of its own (a row per thing a
seat takes, per round that ended, ...). The run manifest records the game's name; the analytics find it there.

The interface comes in facets. :class:`Game` is the core every game gives (at most 15 members: its facts and words,
its strategies and sources, its rule options, one game and its turns, its tables); everything else is an optional
facet, a Protocol of its own (:data:`FACETS`): :class:`Defaults` (what the commands start from), :class:`Components`
(component files), :class:`Session` (one game at the command line, and the :class:`Positions` of position files),
:class:`Setup` (what describes a game's setup), :class:`Reports` and :class:`Studies`. A game gives a facet whole or
not at all; the registry completes a game that leaves one out with the facet's fallbacks (:func:`complete`), so a new
game plays, simulates and reports with the core alone.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TextIO, runtime_checkable

from palais_sim.core import dtypes
from palais_sim.core.loop import Turns
from palais_sim.core.rule_options import RuleOption


class Column(NamedTuple):
    """One column of a run table: its name, Parquet type, meaning and the base of its numbers."""

    name: str
    dtype: dtypes.DType | Any  # a DType, or a Polars type (see palais_sim.core.dtypes)
    meaning: str
    base: str = ""  # "1-based" (seats: seat 1 starts), "0-based", or "" where no numbering is involved


ONE = SEAT1 = "1-based"
ZERO = "0-based"

# The columns every game writes in its games and seats tables (what the game-agnostic analytics read). A new game
# builds its tables with :func:`table_columns`; Palais Royal keeps the order its earlier runs were written in.
COMMON_GAMES: tuple[Column, ...] = (
    Column("game", dtypes.Int64(), "index of the game in the run (rotation group * P + rotation)", ZERO),
    Column("seed", dtypes.UInt64(), "the game's setup seed, from the root seed and the group (`group_seed`)"),
    Column("group", dtypes.Int64(), "seat-rotation group: one setup seed played in every rotation", ZERO),
    Column(
        "rotation",
        dtypes.Int8(),
        "rotation within the group: the first listed strategy sits in seat rotation+1",
        ZERO,
    ),
    Column("players", dtypes.Int8(), "number of players"),
    Column("matchup", dtypes.String(), "strategy specs in seat order (seat 1 first), comma-separated", SEAT1),
)
COMMON_GAMES_END: tuple[Column, ...] = (
    Column("rounds", dtypes.Int16(), "the round the game ended in (0 for a failed game)"),
    Column("finished", dtypes.Boolean(), "false if the game was stopped at max_rounds (or failed)"),
    Column("error", dtypes.String(), "null, or why the game failed (it then has no rows in the other tables)"),
    Column(
        "winners",
        dtypes.List(dtypes.Int8()),
        "winning seats (several for a shared win; tie-breaks applied)",
        SEAT1,
    ),
    Column("decisions", dtypes.Int32(), "decisions the strategies made in the game"),
    Column("engine", dtypes.String(), "palais_sim version that played the game"),
)
COMMON_SEATS: tuple[Column, ...] = (
    Column("game", dtypes.Int64(), "the game (games.game)", ZERO),
    Column("group", dtypes.Int64(), "the game's seat-rotation group", ZERO),
    Column("seat", dtypes.Int8(), "seat number; seat 1 starts", SEAT1),
    Column("strategy", dtypes.String(), "strategy spec in this seat"),
    Column("total", dtypes.Int16(), "final score"),
)
COMMON_SEATS_END: tuple[Column, ...] = (
    Column("rank", dtypes.Int8(), "1 = best total; tied totals share the better rank (no tie-break)"),
    Column("win", dtypes.Float64(), "win share: 1, 1/k for a win shared by k seats, or 0"),
)


class GameResult(Protocol):
    """What every game's result holds (seats 0-based)."""

    seed: int
    players: int
    strategies: list[str]
    winners: list[int]
    rounds: int
    finished: bool
    decisions: int


class Defaults(Protocol):
    """The facet of what the commands start from when the user names nothing (fallbacks: the fewest players, 100
    rounds, the ``random`` strategy, its built-in strategies for a ladder and the demo)."""

    default_players: int
    default_max_rounds: int
    default_strategy: str  # the usual player (play, bench, the helper of `palais analyse`)
    demo: Mapping[str, Any]  # `palais simulate`'s run settings (games, players, strategies, format, ...)
    bench_players: int  # `palais bench`'s player count
    comparison_players: int  # the player count of `palais match`, `palais ladder` and `palais play`
    ladder: tuple[str, ...]  # `palais ladder`'s strategies
    tune_pool: str  # `palais tune`'s opponents
    skill_levels: tuple[str, ...]  # every study's default levels, weakest first


@runtime_checkable
class Positions(Protocol):
    """The optional facet of position files (a game's FEN): a file at the start of every turn, going on from one, and
    the commands that read one. A game offers it as ``GAME.positions``; a game without position files has ``None``
    there, and the command line refuses ``--positions``, ``--from``, ``score``, ``inspect`` and ``analyse`` for it
    with one line. Every method raises a ``ValueError`` with a one-line message naming the file for a bad file."""

    format: str  # the "format" field of its position files ("palais-position/1"): how a command tells their game
    analyser: str  # the strategy spec `palais analyse` rates the candidates with when the user names none

    def play_session(
        self, context: Any, seed: int, seats: Callable[[int], Sequence[object]], out: TextIO | None,
        log: Path | None, positions: Path | None, start: Path | None,
    ) -> Any:  # fmt: skip
        """:meth:`Game.play_session`, and with ``positions`` a position file per turn into that directory; with
        ``start``, on from that position file (``context`` is then None: players, rules and components are the
        file's; ``seed`` deals what the file leaves out). Its replay log replays with :meth:`Game.replay_text`."""
        ...

    def score(self, path: Path) -> tuple[dict, str]:
        """A position's final scoring as if the game ended now (with the tie-break): JSON payload and text."""
        ...

    def inspect(self, path: Path) -> tuple[dict, str]:
        """What the seat to move in a position would get now (its legal choices and what they give): payload, text."""
        ...

    def analyse(self, path: Path, seed: int | None, searcher: Any, helper: Any, decision: str | None) -> dict:
        """The candidates at a position's pending decision as ``searcher.analyse(view, decision)`` rates them (the
        decisions before the first of kind ``decision`` in the turn answered by ``helper``): position, round, seat,
        decision, seconds and candidates (choice, description, visits, value, played)."""
        ...


@dataclass(frozen=True)
class SeatValues:
    """The optional facet of a value every seat starts with, one per seat, which the seats study sets and also
    permutes over the seats to tell its effect from the seat order's (``GAME.seat_values``, or None)."""

    option: str  # the rule option that sets it (one value per seat, seat 1 first); the seats table's column too
    label: str  # in words, for pages and messages
    arm: str  # the prefix of the seats study's arm directories ("<arm>-0-1-2")
    factorial_flag: str  # the seats study's flag that permutes the values over the seats (a Latin square)
    usual_text: str  # the rules' values, in words
    usual: Callable[[int], tuple[int, ...]]  # the rules' values at a player count, seat 1 first

    @property
    def flag(self) -> str:
        return "--" + self.option.replace("_", "-")


@runtime_checkable
class StudyPages(Protocol):
    """The optional facet of a game's component studies on the published index (``study.publish``): a game offers it
    as ``GAME.study_pages``, the ``"module:attribute"`` of an object at the study layer (its studies package), or
    None. The index's sources are the published studies (``study.index_page.Source``: name, data, link, rows)."""

    subjects: tuple[str, ...]  # the row subjects its overview shows (they stay out of a study's level table)

    def overview(self, studies: Sequence[Any], searches: Sequence[Any]) -> list[str]:
        """The index's section(s) on its component studies, as Markdown lines ([] when none of them is its)."""
        ...

    def overview_shares(self, studies: Sequence[Any]) -> list[list[str]]:
        """The undecided table's rows for its overview's cells (study, level, undecided rows, share)."""
        ...

    def search_summary(self, name: str, data: dict) -> list[str] | None:
        """The index's lines for a balance search of its own (its ``balance.json``), or None for another's."""
        ...


def load_attribute(target: str) -> Any:
    """The object a ``"module:attribute"`` string names (a game's facets at the layers above it: its report
    sections, study commands and study pages, imported when asked for)."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def position_format(path: Path) -> object:
    """The ``format`` field of a position file (a JSON object), or None where it has none: how a command tells the
    game of a file (each game's :attr:`Positions.format` is its own). The game's reader says what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data.get("format") if isinstance(data, dict) else None


class Game(Protocol):
    """The core every game gives (at most 15 members): its facts, its words, its built-in strategies and source
    files, its rule options, one game and its turns, and its tables. The facets (:data:`FACETS`) are optional."""

    name: str  # as on the command line: "palais-royal"
    title: str  # as printed: "Palais Royal"
    # the nouns of its components and options, single lower-case words: no shared module uses them
    vocabulary: tuple[str, ...]
    min_players: int
    max_players: int
    strategies: Mapping[str, str]  # the built-in strategies by name, as "module:Class" (imported when asked for)
    sources: tuple[Path, ...]  # the files whose contents decide a game's outcome: the code fingerprint
    # Its rule options (core.rule_options.RuleOption: name, default, help, how to read the command line's text):
    # a run carries their values in ``Settings.rules``; every playing command takes them, a report lists them.
    rule_options: tuple[RuleOption, ...]
    turns: Turns  # its rules as the play loop and a search that plays any game ask them (pending, view, apply, reward)

    def context(self, settings: Mapping[str, Any]) -> Any:
        """The static data of a run (component set, rule options), checked: raises ValueError subclasses with a
        one-line message for impossible settings. Picklable: it travels to the workers once."""
        ...

    def play(self, context: Any, seed: int, strategies: Sequence[object]) -> GameResult:
        """Play one game from ``seed``; raises the game's StrategyError when a strategy fails."""
        ...

    def columns(self) -> dict[str, tuple[Column, ...]]:
        """Every table the game writes with all its columns, ``games`` and ``seats`` first."""
        ...

    def rows(self, context: Any, result: Any, game: int, group: int, rotation: int) -> dict[str, list[dict]]:
        """One played game as rows of every table (from the result alone, never the engine state)."""
        ...

    def failed_row(self, context: Any, seed: int) -> dict:
        """The game's own columns of the games row of a failed game (the common ones are filled in by the caller)."""
        ...

    def tie_column(self, settings: Mapping[str, Any]) -> str:
        """The seats column that breaks a tie of totals under a run's settings (for the analytics' tie rates)."""
        ...

    def __hash__(self) -> int: ...  # a game object is a key of the registry's caches


class Components(Protocol):
    """The facet of component files (fallback: one fixed set, no files, nothing taken). A game with files may also
    have ``components_toml() -> str``, its standard set as an editable TOML with a comment on every field (`palais
    components show`)."""

    components_hint: str  # what --components takes, for the help and errors
    taken: tuple[str, str] | None  # (table, column) of what a seat takes, a row each; None: nothing

    def load_components(self, source: str | None) -> Any:
        """The component set in a file (None: the standard set), with ``hash`` and ``name``, for a report of a run
        played with it; raises ValueError or OSError with one line. None for a game without component files."""
        ...

    def components_hash(self, context: Any) -> str: ...

    def components_name(self, context: Any) -> str: ...

    def taken_ids(self, components: Any) -> list[str]: ...  # the component set's ids of what can be taken, in order


class Session(Protocol):
    """The facet of one game at the command line (`palais play`, `palais replay`) and of position files (fallback:
    those commands refuse the game with one line)."""

    positions: Positions | None  # the position-file facet, or None

    def play_session(
        self, context: Any, seed: int, seats: Callable[[int], Sequence[object]], out: TextIO | None, log: Path | None
    ) -> Any:
        """Play one game between ``seats(players)``, narrating it to ``out`` (None: silent) and writing its replay
        log to ``log``; the result has ``to_json()``."""
        ...

    def replay_text(self, log: Path) -> str:
        """Verify a replay log (ValueError at the first difference; "result:" in it for a different result)."""
        ...


class Setup(Protocol):
    """The facet of what describes a game's setup (fallback: nothing, every seat starts alike)."""

    setup_columns: tuple[str, ...]  # games-table columns that describe a game's setup (joined onto its seat rows)
    seat_values: SeatValues | None  # what each seat starts with, which the seats study sets and permutes; or None


class Reports(Protocol):
    """The facet of a game's own report sections (fallback: the common ones, win rates)."""

    report_sections: str | None  # "module:attribute" of its report sections (analytics), loaded when a report asks


class Studies(Protocol):
    """The facet of a game's own studies, beyond the seats study every game has (fallback: none)."""

    studies: Mapping[str, str]  # name -> "module:attribute" of the command (`palais study NAME`, `palais balance`)
    study_pages: str | None  # "module:attribute" of its :class:`StudyPages` on the published index, or None


FACETS: dict[str, type] = {
    "defaults": Defaults, "components": Components, "session": Session, "setup": Setup, "reports": Reports,
    "studies": Studies,
}  # fmt: skip


class CompleteGame(Game, Defaults, Components, Session, Setup, Reports, Studies, Protocol):
    """A game with every facet, its own or their fallbacks: what the registry of games hands out (:func:`complete`),
    so what reads a facet of a looked-up game needs no check of its own."""


def members(protocol: type) -> tuple[str, ...]:
    """The members a Protocol declares itself (its annotated attributes and its methods), in order."""
    own = vars(protocol)
    methods = [name for name, value in own.items() if callable(value) and not name.startswith("_")]
    return (*own.get("__annotations__", {}), *methods)


class NoSession(ValueError):
    """A command-line session of a game without the :class:`Session` facet (one line)."""


def _no_session(game: Any) -> Callable[..., Any]:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise NoSession(f"{game.title} has no command-line session (its GAME gives no play_session, replay_text)")

    return refuse


def _demo(game: Any) -> dict[str, Any]:
    """`palais simulate`'s run of a game without defaults: its built-in strategies in a round robin (or random
    alone), seats rotated."""
    strategies = tuple(game.strategies)
    fmt = "round-robin" if len(strategies) > 1 else "fixed"
    return {"games": 100, "players": game.min_players, "strategies": strategies, "format": fmt, "rotate_seats": True}


# Each optional member's fallback, from the core game: what a game that leaves its facet out gets.
FALLBACKS: dict[str, Callable[[Any], Any]] = {
    "default_players": lambda g: g.min_players,
    "default_max_rounds": lambda g: 100,
    "default_strategy": lambda g: "random",
    "demo": _demo,
    "bench_players": lambda g: g.min_players,
    "comparison_players": lambda g: g.min_players,
    "ladder": lambda g: tuple(g.strategies),
    "tune_pool": lambda g: "random",
    "skill_levels": lambda g: ("random",),
    "components_hint": lambda g: f"nothing: {g.title} has one component set",
    "taken": lambda g: None,
    "load_components": lambda g: lambda source: None,
    "components_hash": lambda g: lambda context: "standard",
    "components_name": lambda g: lambda context: "standard",
    "taken_ids": lambda g: lambda components: [],
    "positions": lambda g: None,
    "play_session": _no_session,
    "replay_text": _no_session,
    "setup_columns": lambda g: (),
    "seat_values": lambda g: None,
    "report_sections": lambda g: None,
    "studies": lambda g: {},
    "study_pages": lambda g: None,
}


class Completed:
    """A game that leaves some facets out, with their fallbacks (:data:`FALLBACKS`) in their place: every other
    attribute is the game's own."""

    def __init__(self, game: Any, missing: tuple[str, ...]) -> None:
        self.game = game
        self.missing = missing
        for name in missing:
            setattr(self, name, FALLBACKS[name](game))

    def __getattr__(self, name: str) -> Any:
        if name == "game":  # not set yet (a copy being made): no game to ask
            raise AttributeError(name)
        return getattr(self.game, name)


def missing_core(game: Any) -> list[str]:
    """The core members (:class:`Game`) an object lacks."""
    return [name for name in members(Game) if not hasattr(game, name)]


_COMPLETED: dict[int, tuple[Any, Completed]] = {}  # id of a game -> (the game, its completion): one per game


def complete(game: Any) -> Any:
    """``game`` itself when it gives every facet, else the game with the fallbacks of what it leaves out (the same
    object every time); raises ValueError with one line naming the core members it lacks."""
    lacking = missing_core(game)
    if lacking:
        raise ValueError(f"{getattr(game, 'name', game)!r} lacks the core members {', '.join(lacking)} of a game")
    missing = tuple(name for facet in FACETS.values() for name in members(facet) if not hasattr(game, name))
    if not missing:
        return game
    known = _COMPLETED.get(id(game))
    if known is None or known[0] is not game or known[1].missing != missing:
        known = _COMPLETED[id(game)] = (game, Completed(game, missing))
    return known[1]


def common_game_row(result: GameResult, game: int, group: int, rotation: int, engine: str) -> tuple[dict, dict]:
    """The common columns of a played game's row: those before the game's own, and those after."""
    head = {
        "game": game,
        "seed": result.seed,
        "group": group,
        "rotation": rotation,
        "players": result.players,
        "matchup": ",".join(result.strategies),
    }
    tail = {
        "rounds": result.rounds,
        "finished": result.finished,
        "error": None,
        "winners": [w + 1 for w in result.winners],
        "decisions": result.decisions,
        "engine": engine,
    }
    return head, tail


def set_name(components: Any, standard: Any) -> str:
    """The name a run's component set goes by: its own, unless it keeps the standard set's name with other data (a
    copy of `palais components show`, edited), which would pass for the standard set: then that it is an edit, and
    of which file. ``components`` and ``standard`` have a ``name``, a content ``hash`` and their ``source``."""
    if components.name != standard.name or components.hash == standard.hash:
        return components.name
    return f"{components.name}, edited in {Path(components.source).name}"


def table_columns(own_games: tuple[Column, ...], own_seats: tuple[Column, ...]) -> dict[str, tuple[Column, ...]]:
    """The games and seats tables of a game: the common columns around the game's own."""
    return {
        "games": (*COMMON_GAMES, *own_games, *COMMON_GAMES_END),
        "seats": (*COMMON_SEATS, *COMMON_SEATS_END, *own_seats),
    }


def missing_common_columns(columns: Mapping[str, tuple[Column, ...]]) -> list[str]:
    """The common columns (name and type) a game's tables lack, as ``table.column`` (a test checks every game)."""
    missing = []
    for table, common in (("games", COMMON_GAMES + COMMON_GAMES_END), ("seats", COMMON_SEATS + COMMON_SEATS_END)):
        have = {c.name: dtypes.polars_dtype(c.dtype) for c in columns.get(table, ())}
        missing += [f"{table}.{c.name}" for c in common if have.get(c.name) != dtypes.polars_dtype(c.dtype)]
    return missing


CORE = Path(__file__).resolve().parent
PROJECT = CORE.parent.parent
COMMON_STRATEGIES = PROJECT / "strategies" / "common"


def game_sources(package: Path, strategies: Path | None = None, models: tuple[Path, ...] = ()) -> tuple[Path, ...]:
    """A game's source files for its code fingerprint: the core play loop, the game's package, its strategies'
    package and the generic strategies (any of them may change how a game of it goes), and the fitted models its
    rules or strategies read (``models``: each beside the module that reads it)."""
    folders = (CORE, package, *(() if strategies is None else (strategies,)), COMMON_STRATEGIES)
    code = tuple(path for folder in folders for path in sorted(folder.glob("*.py")))
    return code + tuple(models)
