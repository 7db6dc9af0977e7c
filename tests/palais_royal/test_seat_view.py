"""The seat contract: a strategy sees only what its seat may know, and nothing reachable from its view lets it
derive hidden information (the deck order, the other hands, the game seed).

The main test plays a strategy that walks every object reachable from its view (attributes, slots, containers,
closures), tries every integer and string it finds as a game seed, and predicts the next card drawn from the best
of them. Over many games it does no better than chance. Against the old view, which carried the game seed, it
predicted every card.
"""

from __future__ import annotations

import contextlib
import inspect
import pickle
import random
from collections import Counter

import pytest

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import FIELDS, OWN, PUBLIC, SECRET, SIZE, RuleOptions
from palais_sim.games.palais_royal.view import VIEW_ATTRIBUTES, PlayerView
from strategies.palais_royal.greedy import GreedyStrategy

STANDARD = standard_components()
GAMES = 300


def attribute_values(obj: object) -> list[object]:
    """The values of an object's attributes: slots, instance dict, and the data descriptors of its class (which
    is how a compiled class exposes its attributes: it has no ``__slots__`` to read)."""
    values = list(getattr(obj, "__dict__", {}).values())
    for name in dir(type(obj)):
        if name.startswith("__") and name.endswith("__"):
            continue
        descriptor = inspect.getattr_static(type(obj), name, None)
        if hasattr(descriptor, "__set__") or type(descriptor).__name__ in ("member_descriptor", "getset_descriptor"):
            with contextlib.suppress(AttributeError):
                values.append(getattr(obj, name))
    return values


def reachable(root: object, limit: int = 200_000) -> list[object]:
    """Every object reachable from ``root`` through instance data: attributes, slots, containers, closures and
    bound methods. Classes and modules are not followed (they hold code, not this game's data)."""
    seen: set[int] = set()
    out: list[object] = []
    stack = [root]
    while stack and len(out) < limit:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or type(obj).__name__ == "module":
            continue
        seen.add(id(obj))
        out.append(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif isinstance(obj, str | int | float | bytes | bool) or obj is None:
            continue
        else:
            stack.extend(attribute_values(obj))
            closure = getattr(obj, "__closure__", None) or ()
            stack.extend(cell.cell_contents for cell in closure)
            if hasattr(obj, "__self__"):
                stack.append(obj.__self__)
    return out


class Peeker:
    """A strategy that tries to cheat: at its first decision it looks for the game seed among everything its view
    leads to, and predicts the top card of the deck."""

    name = "peeker"

    def __init__(self) -> None:
        self.helper = GreedyStrategy()
        self.prediction: str | None = None
        self.found_seed = False

    def choose(self, view: PlayerView, decision: rules.Decision) -> object:
        self.predict(view)
        return self.helper.choose(view, decision)

    def predict(self, view: PlayerView) -> None:
        if self.prediction is None:
            candidates = {o for o in reachable(view) if isinstance(o, int | str) and not isinstance(o, bool)}
            candidates |= {int(o) for o in candidates if isinstance(o, str) and o.isdigit()}
            options = RuleOptions(players=view.n)
            for candidate in sorted((c for c in candidates if isinstance(c, int) and c >= 0), reverse=True):
                game = new_game(view.components, options, candidate)
                if tuple(game.park) == view.park:  # this candidate reproduces the visible park: it is the seed
                    self.found_seed = True
                    self.prediction = game.deck[0]
                    break
            else:
                # No seed: the best guess is the most common card it cannot see.
                self.prediction = view.unknown_cards().most_common(1)[0][0]


def test_no_strategy_can_find_the_seed_or_predict_the_deck_from_its_view() -> None:
    hits = 0
    found = 0
    for game in range(GAMES):
        seed = random.Random(f"peek:{game}").getrandbits(63)
        state = new_game(STANDARD, RuleOptions(players=2), seed)
        peeker = Peeker()
        dec = rules.decision(state)
        peeker.choose(PlayerView(state, dec.seat), dec)
        found += peeker.found_seed
        hits += peeker.prediction == state.deck[0]
    assert found == 0, f"the view led to the game seed in {found} of {GAMES} games"
    # Chance: a card kind is on top with probability 4/36; the guess (the "most common" of nine equally common
    # kinds) hits 1/9 of the time. Allow five standard deviations.
    chance = 1 / 9
    bound = chance + 5 * (chance * (1 - chance) / GAMES) ** 0.5
    assert hits / GAMES <= bound, f"predicted the next card in {hits} of {GAMES} games (chance: {chance:.0%})"


def test_the_peeker_would_notice_a_seed_in_the_view() -> None:
    """The probe works: given a view that leaks the seed (as the old ``seed_key`` did), it predicts every card."""

    class LeakyView:
        def __init__(self, view: PlayerView, seed: int) -> None:
            self.inner = view
            self.seed_key = seed

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    hits = 0
    for game in range(20):
        seed = random.Random(f"leak:{game}").getrandbits(63)
        state = new_game(STANDARD, RuleOptions(players=2), seed)
        peeker = Peeker()
        dec = rules.decision(state)
        peeker.predict(LeakyView(PlayerView(state, dec.seat), seed))  # type: ignore[arg-type]
        hits += peeker.prediction == state.deck[0]
    assert hits == 20


def test_the_view_is_built_from_the_field_list_and_holds_no_secret() -> None:
    state = new_game(STANDARD, RuleOptions(players=3), 5)
    view = PlayerView(state, 1)
    for f in FIELDS:
        if f.seen == SECRET:
            assert not hasattr(view, f.name), f"secret field {f.name} is in the view"
        elif f.seen == PUBLIC:
            assert hasattr(view, f.name), f"public field {f.name} is missing from the view"
    assert "deck" not in VIEW_ATTRIBUTES and "hands" not in VIEW_ATTRIBUTES
    assert {f.name for f in FIELDS if f.seen in (OWN, SIZE)} == {"hands", "deck"}
    state.hands[0] = ["gold4", "move5"]
    state.hands[1] = ["points4"]
    assert PlayerView(state, 1).hand == ("points4",) and PlayerView(state, 1).hand_sizes == (2, 1, 0)
    assert PlayerView(state, 1).deck_size == len(state.deck)


def test_the_view_holds_copies_not_the_state() -> None:
    state = new_game(STANDARD, RuleOptions(players=2), 9)
    view = PlayerView(state, 0)
    assert not any(o is state for o in reachable(view))
    mutable = [o for o in reachable(view) if isinstance(o, list | set) or type(o) is dict]
    assert mutable == [], "the view exposes a mutable object"
    with pytest.raises(TypeError):
        view.components.card_prices["gold4"] = -10  # type: ignore[index]
    assert pickle.loads(pickle.dumps(view.components)).card_prices == view.components.card_prices


def test_drawn_cards_are_seen_only_by_the_seat_that_drew_them() -> None:
    state = new_game(STANDARD, RuleOptions(players=2), 3)
    state.drawn = ["gold4"]
    assert PlayerView(state, state.current).drawn == ("gold4",)
    assert PlayerView(state, 1 - state.current).drawn == ()


def test_decision_streams_differ_between_seats_and_decisions_and_repeat_for_the_same_decision() -> None:
    state = new_game(STANDARD, RuleOptions(players=2), 4)
    a = PlayerView(state, 0).rng.random()
    assert a == PlayerView(state, 0).rng.random()
    assert a != PlayerView(state, 1).rng.random()
    state.step += 1
    assert a != PlayerView(state, 0).rng.random()


def test_sample_state_re_deals_hidden_information_with_fresh_chance() -> None:
    state = new_game(STANDARD, RuleOptions(players=3), 8)
    state.hands[1] = [state.deck.pop() for _ in range(4)]
    view = PlayerView(state, 0)
    decks = set()
    for k in range(20):
        sampled = view.sample_state(random.Random(k))
        assert Counter(sampled.deck + sampled.hands[1] + sampled.hands[2]) == Counter(state.deck + state.hands[1])
        assert len(sampled.hands[1]) == 4 and sampled.hands[0] == state.hands[0]
        assert sampled.seed != state.seed and sampled.seat_keys != state.seat_keys
        assert sampled.park == state.park and sampled.rooms == state.rooms
        decks.add(tuple(sampled.deck[:5]))
    assert len(decks) > 15  # re-dealt, not the true order
    assert tuple(state.deck[:5]) not in decks


def test_a_new_game_and_its_copy_and_a_sampled_state_set_every_field() -> None:
    from palais_sim.games.palais_royal.state import FIELD_NAMES

    state = new_game(STANDARD, RuleOptions(players=4), 12)
    sampled = PlayerView(state, 2).sample_state(random.Random(0))
    for candidate in (state, state.copy(), sampled):
        missing = [name for name in FIELD_NAMES if not hasattr(candidate, name)]
        assert not missing, f"fields not set: {missing}"


def test_the_code_generated_from_the_field_list_is_up_to_date() -> None:
    from palais_sim.games.palais_royal import codegen

    stale = codegen.stale()
    assert not stale, f"the generated part of {stale} is out of date: run `make generate`"
