"""Palastgeflüster behind the game interface (:mod:`palais_sim.core.game`): its rule options from a run's settings,
one game through its play loop, and its tables (games, seats and round_ends, one row per round that ended)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from palais_sim import __version__
from palais_sim.core import dtypes
from palais_sim.core.game import PROJECT, SEAT1, Column, common_game_row, game_sources, set_name, table_columns
from palais_sim.core.game import ZERO as ZERO_BASED
from palais_sim.core.rule_options import RuleOption, rules_of
from palais_sim.games.palastgefluester.components import PgComponents, load_pg_components
from palais_sim.games.palastgefluester.play import PG_TURNS, PgResult, continue_game, seat_json
from palais_sim.games.palastgefluester.rule_options import OPTIONS, PgRules
from palais_sim.games.palastgefluester.rules import new_game
from palais_sim.games.palastgefluester.session import POSITIONS, play_session, replay_text
from palais_sim.games.palastgefluester.state import PgOptions

ROUND_END_KINDS = ("repeat", "six", "jester")


class Context(NamedTuple):
    """A run's static data: the component set and the rule options of every game."""

    components: PgComponents
    options: PgOptions


GAMES_OWN = (
    Column("components", dtypes.String(), "content hash of the component set"),
    Column("tiebreak", dtypes.String(), "rule option: display (the rules) or noted (the variant)"),
    Column("max_rounds", dtypes.Int16(), "rule option: a game still going after this round is stopped, unfinished"),
    Column("ends_repeat", dtypes.Int16(), "rounds ended by a repeated person (every other player scores)"),
    Column("ends_six", dtypes.Int16(), "rounds ended by six different persons in a display (its owner scores)"),
    Column(
        "ends_jester",
        dtypes.Int16(),
        "rounds ended by the Hofnarr under the Hofnarr king (every other player scores)",
    ),
)
SEATS_OWN = (
    Column("display", dtypes.Int8(), "cards in the seat's display when the game ended"),
    Column("noted", dtypes.Int16(), "the variant's noted total (display sizes at each round end, repeats excepted)"),
    Column("rounds_won_six", dtypes.Int16(), "rounds this seat ended with six different persons"),
    Column("repeats", dtypes.Int16(), "rounds this seat ended by a repeat"),
    Column("plays", dtypes.Int16(), "cards this seat played"),
    Column("own_colour_replays", dtypes.Int16(), "cards of its own colour it played (so it played again)"),
    Column("brown_played", dtypes.Int16(), "brown cards it played"),
)
COLUMNS: dict[str, tuple[Column, ...]] = {
    **table_columns(GAMES_OWN, SEATS_OWN),
    "round_ends": (
        Column("game", dtypes.Int64(), "the game (games.game)", ZERO_BASED),
        Column("round", dtypes.Int16(), "the round that ended", "1-based"),
        Column("kind", dtypes.String(), "how it ended: repeat, six or jester"),
        Column("seat", dtypes.Int8(), "the seat whose card ended it (it starts the next round)", SEAT1),
        Column("scorers", dtypes.List(dtypes.Int8()), "the seats that scored a point", SEAT1),
        Column("cards", dtypes.Int16(), "cards played in the round, the last one included"),
    ),
}


def rule_options(settings: Mapping[str, Any]) -> PgOptions:
    """The rule options of every game of a run, from the run's settings (its ``rules`` read by :class:`PgRules`)."""
    return PgOptions(
        players=int(settings.get("players", 4)),
        tiebreak=PgRules.parse(rules_of(settings, OPTIONS)).tiebreak,
        max_rounds=int(settings.get("max_rounds") or 200),
    )


# The built-in strategies by name, as ``module:Class`` (imported only when asked for).
STRATEGIES: dict[str, str] = {
    "random": "strategies.common.random_play:RandomStrategy",
    "heuristic": "strategies.palastgefluester.heuristic:HeuristicStrategy",
    "restricted": "strategies.palastgefluester.restricted:RestrictedStrategy",
    "search": "strategies.common.search:SearchStrategy",
    "expert": "strategies.palastgefluester.expert:ExpertStrategy",
}


class Palastgefluester:
    """Palastgeflüster (Roland Winner, 2010), 3 to 5 players: the engine in this package."""

    name = "palastgefluester"
    title = "Palastgeflüster"
    # the nouns of its components and options (its persons by their German names): no shared module uses them
    vocabulary = (
        "person", "king", "jester", "hofmarschall", "schatzmeister", "zauberer", "zofe", "mundschenk", "waechter",
        "hofnarr",
    )  # fmt: skip
    min_players = 3
    max_players = 5
    default_players = 4
    default_max_rounds = 200
    strategies: Mapping[str, str] = STRATEGIES
    sources = game_sources(
        Path(__file__).parent,
        PROJECT / "strategies" / "palastgefluester",
        (PROJECT / "strategies" / "palastgefluester" / "expert.json",),
    )  # the model file expert reads is part of the code fingerprint
    default_strategy = "heuristic"
    # its heuristic against random opponents (a gauntlet, seats rotated) at its usual player count
    demo: Mapping[str, Any] = {
        "games": 1000, "players": 4, "strategies": ("heuristic", "random"), "format": "gauntlet", "max_rounds": 200,
    }  # fmt: skip
    bench_players = 4
    comparison_players = 4
    ladder = ("random", "heuristic", "search")
    tune_pool = "heuristic"
    skill_levels = ("heuristic", "expert")  # its heuristic, and the distilled search at study speed
    rule_options: tuple[RuleOption, ...] = OPTIONS  # tiebreak (rule_options.py)
    report_sections = "palais_sim.games.palastgefluester.analysis.sections:SECTIONS"
    setup_columns = ()
    seat_values = None  # every seat starts alike
    study_pages = "palais_sim.games.palastgefluester.studies.pages:PAGES"  # its studies on the published index
    # its own studies (beyond the seats study every game has), each a command of `palais study`
    studies: Mapping[str, str] = {"persons": "palais_sim.games.palastgefluester.studies.commands:persons"}
    taken = None  # a seat takes nothing from a common supply
    turns = PG_TURNS
    positions = POSITIONS  # position files, score, inspect, analyse (session.py)

    def tie_column(self, settings: Mapping[str, Any]) -> str:
        return "noted" if PgRules.parse(rules_of(settings, OPTIONS)).tiebreak == "noted" else "display"

    components_hint = "a Palastgeflüster component TOML (default: the standard set)"

    def context(self, settings: Mapping[str, Any]) -> Context:
        options = rule_options(settings)
        components = load_pg_components(settings.get("components"))
        if options.players not in components.player_counts:
            raise ValueError(f"component set {components.name!r} has no win threshold for {options.players} players")
        return Context(components, options)

    def load_components(self, source: str | None) -> PgComponents:
        return load_pg_components(source)

    def components_toml(self) -> str:
        from palais_sim.games.palastgefluester.components_guide import standard_toml

        return standard_toml()

    def components_hash(self, context: Context) -> str:
        return context.components.hash

    def components_name(self, context: Context) -> str:
        return set_name(context.components, load_pg_components(None))

    def taken_ids(self, components: Any) -> list[str]:
        return []

    def play(self, context: Context, seed: int, strategies: Sequence[Any]) -> PgResult:
        if len(strategies) != context.options.players:
            raise ValueError(f"{context.options.players} players need as many strategies, got {len(strategies)}")
        return continue_game(new_game(context.options, seed, context.components), strategies)

    def play_session(
        self, context: Context, seed: int, seats: Callable[[int], Sequence[Any]], out: TextIO | None, log: Path | None
    ) -> PgResult:
        """Play one game; with ``log``, write its replay log (JSON, ``palais replay --game palastgefluester`` checks
        it); with ``out``, its seats' totals and the winner (no turn-by-turn account yet)."""
        return play_session(context, seed, seats, out, log)

    def replay_text(self, log: Path) -> str:
        """Replay a log written by :meth:`play_session`; the summary line, or NotationError at the first difference."""
        return replay_text(log)

    def columns(self) -> dict[str, tuple[Column, ...]]:
        return COLUMNS

    def rows(self, context: Context, result: PgResult, game: int, group: int, rotation: int) -> dict[str, list]:
        head, tail = common_game_row(result, game, group, rotation, __version__)
        kinds = Counter(r.kind for r in result.round_ends)
        own = {
            **self.failed_row(context, result.seed),
            **{f"ends_{kind}": kinds.get(kind, 0) for kind in ROUND_END_KINDS},
        }
        seats = [{"game": game, "group": group, **seat_json(s)} for s in result.seats]
        ends = [
            {
                "game": game,
                "round": r.round,
                "kind": r.kind,
                "seat": r.seat + 1,
                "scorers": [s + 1 for s in r.scorers],
                "cards": r.cards,
            }  # fmt: skip
            for r in result.round_ends
        ]
        return {"games": [{**head, **own, **tail}], "seats": seats, "round_ends": ends}

    def failed_row(self, context: Context, seed: int) -> dict:
        return {
            "components": context.components.hash,
            "tiebreak": context.options.tiebreak,
            "max_rounds": context.options.max_rounds,
        }


GAME = Palastgefluester()
