"""Setup (RULES.md section 3): park, layout, deck, servants and start gold, from one seed."""

from __future__ import annotations

from typing import Final

from palais_sim.core.streams import seat_stream_keys, shuffle
from palais_sim.games.palais_royal.board import PARADE, PARK_SIZE, STAIRWAY, parse_layout, random_layout_code
from palais_sim.games.palais_royal.components import ComponentSet
from palais_sim.games.palais_royal.state import PH_SETUP, GameState, RuleOptions, sub_rng

SERVANTS_PER_COLOUR: Final = 25
PLAYER_SERVANTS: Final = 18
START_STAIRWAY: Final = 3
START_PARADE: Final = 2
SETUP_PLACEMENT: Final = 5


class SetupError(ValueError):
    """Rule options that cannot start a game."""


def resolve_layout(options: RuleOptions, components: ComponentSet, seed: int) -> str:
    """The layout code for a game: random per game (from the seed), the set's first-game layout, or a code."""
    spec = options.layout.strip()
    if spec.lower() == "random":
        return random_layout_code(sub_rng(seed, "layout"))
    if spec.lower() in ("first-game", "first_game", "firstgame"):
        return components.first_game_layout
    return parse_layout(spec).code


def start_gold(options: RuleOptions) -> list[int]:
    """The gold of each seat at the start: ``options.start_gold`` if set, else seat 1 gets 0, seat 2 gets 1, ..."""
    if options.start_gold is None:
        return list(range(options.players))
    return list(options.start_gold)


def check_options(components: ComponentSet, options: RuleOptions) -> None:
    """Raise :class:`SetupError` (or ``LayoutError``) for rule options that cannot start a game."""
    n = options.players
    if not 2 <= n <= 4:
        raise SetupError(f"players must be 2, 3 or 4, got {n}")
    if options.max_rounds < 1:
        raise SetupError(f"max_rounds must be at least 1, got {options.max_rounds}")
    gold = options.start_gold
    if gold is not None and (
        len(gold) != n or any(isinstance(g, bool) or not isinstance(g, int) or g < 0 for g in gold)
    ):
        raise SetupError(f"start_gold must be {n} whole numbers of at least 0 (one per seat), got {list(gold)}")
    if options.gold_limit is not None and options.gold_limit < sum(start_gold(options)):
        raise SetupError(f"gold_limit {options.gold_limit} is less than the start gold {sum(start_gold(options))}")
    if options.layout.strip().lower() != "random":
        resolve_layout(options, components, 0)


def new_game(components: ComponentSet, options: RuleOptions, seed: int) -> GameState:
    """A game at its first decision: seat 1 placing its five setup servants.

    Each random element has its own stream derived from the seed, so the park of a seed stays the same whatever
    the layout option, which makes A/B comparisons of rule options paired.
    """
    check_options(components, options)
    n = options.players
    gold = start_gold(options)

    order = list(range(len(components.nobles)))
    shuffle(sub_rng(seed, "park"), order)
    deck = components.deck()
    shuffle(sub_rng(seed, "deck"), deck)

    state = GameState.__new__(GameState)
    state.components = components
    state.options = options
    state.layout = parse_layout(resolve_layout(options, components, seed))
    state.seed = seed
    state.seat_keys = seat_stream_keys(seed, n)
    state.n = n
    rooms = [(0,) * n] * 9
    rooms[STAIRWAY], rooms[PARADE] = (START_STAIRWAY,) * n, (START_PARADE,) * n
    state.rooms = tuple(rooms)
    state.supply = (PLAYER_SERVANTS - START_STAIRWAY - START_PARADE,) * n
    state.general = (SERVANTS_PER_COLOUR - PLAYER_SERVANTS,) * n
    state.gold = tuple(gold)
    state.bank = None if options.gold_limit is None else options.gold_limit - sum(gold)
    state.park = tuple(order[:PARK_SIZE])
    state.box = order[PARK_SIZE:]
    state.nobles_left = PARK_SIZE
    state.nobles = ((),) * n
    state.priv = ((0,) * 9,) * n
    state.hands = [[] for _ in range(n)]
    state.played_points = ((),) * n
    state.deck = deck
    state.discard = ()
    state.in_front = ()
    state.shuffles = 0
    state.round = 0
    state.current = 0
    state.final_round = False
    state.finished = False
    state.over = False
    state.turn_no = 0
    state.phase = PH_SETUP
    state.window = 0
    state.setup_seat = 0
    state.recruit_log = []
    state.pause_at_turn = False
    state.chance = None
    state.reset_turn()
    return state
