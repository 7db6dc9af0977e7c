"""Palais Royal behind the game interface (:mod:`palais_sim.core.game`): its rule options from a run's settings,
one game through the engine's play loop, and its three tables (games, seats, recruits)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from palais_sim import __version__
from palais_sim.core import dtypes
from palais_sim.core.game import ONE, PROJECT, SEAT1, ZERO, Column, SeatValues, common_game_row, game_sources, set_name
from palais_sim.core.rule_options import RuleOption, rules_of
from palais_sim.games.palais_royal.components import ComponentSet, load_components
from palais_sim.games.palais_royal.play import PR_TURNS, PrResult, play_game
from palais_sim.games.palais_royal.rule_options import OPTIONS, PrRules
from palais_sim.games.palais_royal.session import POSITIONS
from palais_sim.games.palais_royal.setup import check_options, resolve_layout
from palais_sim.games.palais_royal.state import RuleOptions


class Context(NamedTuple):
    """A run's static data: the component set and the rule options of every game."""

    components: ComponentSet
    options: RuleOptions

    def __reduce__(self):
        """Picklable for the workers: the compiled rule options travel as their dict."""
        return (_context, (self.components, self.options.to_dict()))


def _context(components: ComponentSet, options: dict) -> Context:
    return Context(components, RuleOptions(**options))


# Every column of the three tables, defined here only. The README's table and each Parquet file's metadata
# (``schema_markdown`` and ``parquet_metadata``) are written from these lines; a test checks the README.
COLUMNS: dict[str, tuple[Column, ...]] = {
    "games": (
        Column("game", dtypes.Int64(), "index of the game in the run (rotation group * P + rotation)", ZERO),
        Column("seed", dtypes.UInt64(), "the game's setup seed, from the root seed and the group (`group_seed`)"),
        Column("group", dtypes.Int64(), "seat-rotation group: one setup seed played in every rotation", ZERO),
        Column(
            "rotation",
            dtypes.Int8(),
            "rotation within the group: the first listed strategy sits in seat rotation+1",
            ZERO,
        ),
        Column("players", dtypes.Int8(), "number of players, 2 to 4"),
        Column("matchup", dtypes.String(), "strategy specs in seat order (seat 1 first), comma-separated", SEAT1),
        Column("layout", dtypes.String(), "the room layout code, rows top to bottom, e.g. PMS/KGD/COB"),
        Column("components", dtypes.String(), "content hash of the component set"),
        Column("rounds", dtypes.Int16(), "the round the game ended in (0 for a failed game)"),
        Column("finished", dtypes.Boolean(), "false if the game was stopped at max_rounds (or failed)"),
        Column("error", dtypes.String(), "null, or why the game failed (it then has no seat or recruit rows)"),
        Column(
            "winners",
            dtypes.List(dtypes.Int8()),
            "winning seats (several for a shared win; Cardinal tie-break applied)",
            SEAT1,
        ),
        Column("decisions", dtypes.Int32(), "decisions the strategies made in the game"),
        Column("engine", dtypes.String(), "palais_sim version that played the game"),
        Column("gold_limit", dtypes.Int16(), "rule option: the bank's gold, null = unlimited"),
        Column("max_rounds", dtypes.Int16(), "rule option: a game still going after this round is stopped, unfinished"),
    ),
    "seats": (
        Column("game", dtypes.Int64(), "the game (games.game)", ZERO),
        Column("group", dtypes.Int64(), "the game's seat-rotation group", ZERO),
        Column("seat", dtypes.Int8(), "seat number; seat 1 starts with 0 gold, seat 2 with 1, ...", SEAT1),
        Column("strategy", dtypes.String(), "strategy spec in this seat"),
        Column("total", dtypes.Int16(), "final score: nobles_points + cards_played + cards_unplayed + park"),
        Column("nobles_points", dtypes.Int16(), "points of the nobles taken"),
        Column("cards_played", dtypes.Int16(), "points of the point cards played"),
        Column("cards_unplayed", dtypes.Int16(), "points for cards left in hand (at most 6)"),
        Column("park", dtypes.Int16(), "points from the four park rows"),
        Column("rank", dtypes.Int8(), "1 = best total; tied totals share the better rank (no Cardinal tie-break)"),
        Column("win", dtypes.Float64(), "win share: 1, 1/k for a win shared by k seats, or 0"),
        Column("cardinal", dtypes.Int8(), "servants in the Cardinal at the end"),
        Column("gold", dtypes.Int16(), "gold left at the end"),
        Column("nobles_taken", dtypes.Int16(), "number of nobles taken"),
        Column("start_gold", dtypes.Int8(), "gold at the start (seat - 1)"),
        Column("servants_in_park", dtypes.Int8(), "servants in the park at the end"),
        Column("hand_size", dtypes.Int8(), "privilege cards in hand at the end"),
    ),
    "recruits": (
        Column("game", dtypes.Int64(), "the game (games.game)", ZERO),
        Column("seat", dtypes.Int8(), "the recruiting seat", SEAT1),
        Column("strategy", dtypes.String(), "strategy spec of the recruiting seat"),
        Column("noble", dtypes.String(), "noble id in the component set, e.g. N17"),
        Column("field", dtypes.Int8(), "park field, numbered row by row from the top left (0..35)", ZERO),
        Column("round", dtypes.Int16(), "round of the recruitment", ONE),
        Column("gold_paid", dtypes.Int16(), "gold paid, after any privileges"),
        Column("base_cost", dtypes.Int16(), "the noble's printed gold cost"),
        Column("edge", dtypes.Boolean(), "taken from an edge field (a servant was placed there)"),
        Column("order", dtypes.Int16(), "order of recruitment in the game", ZERO),
    ),
}


def rule_options(settings: Mapping[str, Any]) -> RuleOptions:
    """The rule options of every game of a run: built here only, from the run's settings (its ``rules`` mapping
    read by :class:`PrRules`)."""
    rules = PrRules.parse(rules_of(settings, OPTIONS))
    return RuleOptions(
        players=int(settings.get("players", 2)),
        layout=rules.layout,
        gold_limit=rules.gold_limit,
        max_rounds=int(settings.get("max_rounds") or 100),
        start_gold=rules.start_gold,
    )


# The built-in strategies by name, as ``module:Class``: imported only when asked for (the strategies sit above the
# games in the layers; the lookahead strategy loads its candidate styles through the registry).
STRATEGIES: dict[str, str] = {
    "random": "strategies.common.random_play:RandomStrategy",
    "greedy": "strategies.palais_royal.greedy:GreedyStrategy",
    "economy": "strategies.palais_royal.styles:EconomyStrategy",
    "seals": "strategies.palais_royal.styles:SealsStrategy",
    "park": "strategies.palais_royal.styles:ParkStrategy",
    "cards": "strategies.palais_royal.styles:CardsStrategy",
    "lookahead": "strategies.palais_royal.lookahead:LookaheadStrategy",
    "restricted": "strategies.palais_royal.restricted:RestrictedStrategy",
    "ismcts": "strategies.palais_royal.ismcts:IsmctsStrategy",
    "expert": "strategies.palais_royal.expert:ExpertStrategy",
    "search": "strategies.common.search:SearchStrategy",
}


def seat_order_gold(players: int) -> tuple[int, ...]:
    """The rulebook's start gold: seat 1 has 0, seat 2 has 1, ..."""
    return tuple(range(players))


# The seats study sets the start gold (``--start-gold``) and permutes it over the seats (``--gold-factorial``).
START_GOLD = SeatValues(
    option="start_gold", label="start gold", arm="gold", factorial_flag="--gold-factorial",
    usual_text="the rulebook's 0, 1, 2, 3", usual=seat_order_gold,
)  # fmt: skip


class PalaisRoyal:
    """Palais Royal (Xavier Georges, 2008), 2 to 4 players: the engine in ``palais_sim.games.palais_royal``."""

    name = "palais-royal"
    title = "Palais Royal"
    # the nouns of its components and options: no shared module uses them (tests/test_vocabulary.py)
    vocabulary = ("noble", "privilege", "seal", "servant", "layout", "gold", "cardinal", "recruit", "park")
    min_players = 2
    max_players = 4
    default_players = 2
    default_max_rounds = 100
    components_hint = "a component-set TOML (default: the standard set)"
    strategies: Mapping[str, str] = STRATEGIES
    sources = game_sources(
        Path(__file__).parent, PROJECT / "strategies" / "palais_royal",
        (Path(__file__).parent / "leaf_value.json", PROJECT / "strategies" / "palais_royal" / "expert.json"),
    )  # fmt: skip
    default_strategy = "greedy"
    # `palais simulate` alone shows what the tool is for: the five heuristic styles in a two-player round robin, each
    # setup seed played in both seatings (`random` loses every game and its games drag on).
    demo: Mapping[str, Any] = {
        "games": 1000, "players": 2, "strategies": ("greedy", "economy", "seals", "park", "cards"),
        "format": "round-robin", "rotate_seats": True,
    }  # fmt: skip
    bench_players = 4
    comparison_players = 2
    ladder = ("random", "greedy", "economy", "seals", "park", "cards")
    tune_pool = "greedy,economy,seals,park,cards"
    # a heuristic and the distilled search (+127 Elo over lookahead:budget=8,horizon=2, which stays available by
    # name; docs/notes/2026-11-26-expert.md)
    skill_levels = ("greedy", "expert")
    rule_options: tuple[RuleOption, ...] = OPTIONS  # layout, gold_limit, start_gold (rule_options.py)
    report_sections = "palais_sim.games.palais_royal.analysis.sections:SECTIONS"
    setup_columns = ("layout",)  # the room layout a game was played on
    seat_values = START_GOLD
    # its own studies (beyond the seats study every game has), each a command of `palais study` (or `palais balance`)
    studies: Mapping[str, str] = {
        "nobles": "palais_sim.games.palais_royal.studies.commands:nobles",
        "layouts": "palais_sim.games.palais_royal.studies.commands:layouts",
        "balance nobles": "palais_sim.games.palais_royal.studies.commands:balance_nobles",
    }
    study_pages = "palais_sim.games.palais_royal.studies.pages:PAGES"  # its studies on the published index
    taken = ("recruits", "noble")  # a seat takes nobles, a recruits row each
    turns = PR_TURNS
    positions = POSITIONS  # position files, score, inspect, analyse (session.py)

    def tie_column(self, settings: Mapping[str, Any]) -> str:
        return "cardinal"  # the Cardinal's holder wins a tie of totals

    def context(self, settings: Mapping[str, Any]) -> Context:
        comps = load_components(settings.get("components"))
        options = rule_options(settings)
        check_options(comps, options)  # raises on impossible options (layout code, gold limit, ...)
        return Context(comps, options)

    def load_components(self, source: str | None) -> ComponentSet:
        return load_components(Path(source) if source else None)

    def components_toml(self) -> str:
        from palais_sim.games.palais_royal.components_guide import standard_toml

        return standard_toml()

    def components_hash(self, context: Context) -> str:
        return context.components.hash

    def components_name(self, context: Context) -> str:
        return set_name(context.components, load_components(None))

    def taken_ids(self, components: ComponentSet) -> list[str]:
        return [noble.id for noble in components.nobles]

    def play(self, context: Context, seed: int, strategies: Sequence[Any]) -> PrResult:
        return play_game(context.components, context.options, seed, strategies)

    def columns(self) -> dict[str, tuple[Column, ...]]:
        return COLUMNS

    def rows(self, context: Context, result: PrResult, game: int, group: int, rotation: int) -> dict[str, list]:
        game_row, seat_rows, recruit_rows = result_rows(result, game, group, rotation)
        return {"games": [game_row], "seats": seat_rows, "recruits": recruit_rows}

    def play_session(
        self, context: Context, seed: int, seats: Callable[[int], Sequence[Any]], out: TextIO | None, log: Path | None
    ) -> PrResult:
        return POSITIONS.play_session(context, seed, seats, out, log, None, None)

    def replay_text(self, log: Path) -> str:
        from palais_sim.games.palais_royal.session import replay_text

        return replay_text(log)

    def failed_row(self, context: Context, seed: int) -> dict:
        try:
            layout = resolve_layout(context.options, context.components, seed)
        except Exception:  # noqa: BLE001 - the layout of a game that failed in its setup
            layout = context.options.layout
        return {
            "layout": layout,
            "components": context.components.hash,
            "gold_limit": context.options.gold_limit,
            "max_rounds": context.options.max_rounds,
        }


GAME = PalaisRoyal()


def result_rows(result: PrResult, game: int, group: int, rotation: int) -> tuple[dict, list[dict], list[dict]]:
    """One game's row, its seat rows and its recruit rows (from the result alone, never the engine state)."""
    head, tail = common_game_row(result, game, group, rotation, __version__)
    game_row = {
        **head,
        "layout": result.layout,
        "components": result.components_hash,
        **tail,
        "gold_limit": result.options.gold_limit,
        "max_rounds": result.options.max_rounds,
    }
    seat_rows = [
        {
            "game": game,
            "group": group,
            "seat": s.seat + 1,
            "strategy": s.strategy,
            "total": s.score.total,
            "nobles_points": s.score.nobles,
            "cards_played": s.score.cards_played,
            "cards_unplayed": s.score.cards_unplayed,
            "park": s.score.park,
            "rank": s.rank,
            "win": s.win,
            "cardinal": s.score.cardinal,
            "gold": s.gold,
            "nobles_taken": len(s.nobles_taken),
            "start_gold": s.start_gold,
            "servants_in_park": s.servants_in_park,
            "hand_size": s.hand_size,
        }
        for s in result.seats
    ]
    recruit_rows = [
        {
            "game": game,
            "seat": r.seat + 1,
            "strategy": result.strategies[r.seat],
            "noble": r.noble,
            "field": r.field,
            "round": r.round,
            "gold_paid": r.gold_paid,
            "base_cost": r.base_cost,
            "edge": r.edge,
            "order": r.order,
        }
        for r in result.recruits
    ]
    return game_row, seat_rows, recruit_rows
