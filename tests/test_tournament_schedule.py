"""The tournament schedule: seat rotation, seeds independent of run length, formats."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from palais_sim.core.games import get_game
from palais_sim.games.palais_royal.game import rule_options
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.tournament.schedule import Schedule, ScheduleError, Settings, group_seed, rotate


def schedule(**kw) -> Schedule:
    return Schedule(Settings(**kw))


def test_every_group_plays_one_seed_in_every_seat_rotation():
    s = schedule(games=40, players=4, strategies=("a", "b", "c", "d"), format="fixed")
    assert s.group_size == 4 and s.total == 40
    for group in range(s.groups):
        games = s.games(group * 4, 4)
        assert {g.group for g in games} == {group}
        assert len({g.seed for g in games}) == 1
        assert [g.rotation for g in games] == [0, 1, 2, 3]
        assert games[0].matchup == ("a", "b", "c", "d")
        for seat in range(4):  # each strategy sits in each seat exactly once per group
            assert sorted(g.matchup[seat] for g in games) == ["a", "b", "c", "d"]
        assert [g.matchup.index("a") for g in games] == [0, 1, 2, 3]  # rotation r puts the first in seat r+1


def test_rotate():
    assert rotate(("a", "b", "c"), 0) == ("a", "b", "c")
    assert rotate(("a", "b", "c"), 1) == ("c", "a", "b")
    assert rotate(("a", "b", "c"), 2) == ("b", "c", "a")


def test_games_round_up_to_whole_groups():
    s = schedule(games=10, players=3, strategies=("a", "b", "c"))
    assert s.total == 12 and s.groups == 4


def test_seeds_depend_on_root_and_group_only():
    short = schedule(games=20, seed=7)
    long = schedule(games=2000, seed=7)
    assert short.games(0, 20) == long.games(0, 20)
    assert short.game(5).seed == group_seed(7, 2)
    other_root = schedule(games=20, seed=8)
    assert all(a.seed != b.seed for a, b in zip(short.games(0, 20), other_root.games(0, 20), strict=True))
    assert len({group_seed(7, g) for g in range(1000)}) == 1000
    assert all(0 <= group_seed(7, g) < 2**63 for g in range(100))


def test_no_rotation_makes_every_game_its_own_group():
    s = schedule(games=5, rotate_seats=False, strategies=("a", "b"))
    games = s.games(0, 5)
    assert [g.group for g in games] == [0, 1, 2, 3, 4]
    assert all(g.rotation == 0 and g.matchup == ("a", "b") for g in games)
    assert len({g.seed for g in games}) == 5


def test_round_robin_covers_every_combination_evenly():
    s = schedule(games=26, players=2, strategies=("a", "b", "c", "d"))
    counts = Counter(frozenset(s.matchup(g)) for g in range(s.groups))
    assert len(counts) == 6  # 4 choose 2
    assert max(counts.values()) - min(counts.values()) <= 1


def test_gauntlet_puts_the_focus_against_samples_of_the_others():
    s = schedule(games=400, players=3, strategies=("hero", "x", "y", "z"), format="gauntlet", rotate_seats=False)
    seen = Counter()
    for g in range(s.groups):
        m = s.matchup(g)
        assert m[0] == "hero" and len(set(m[1:])) == 2 and set(m[1:]) <= {"x", "y", "z"}
        seen.update(m[1:])
    assert min(seen.values()) > 200  # all opponents sampled
    assert s.matchup(17) == schedule(games=40, players=3, strategies=("hero", "x", "y", "z"), format="gauntlet",
                                     rotate_seats=False).matchup(17)  # fmt: skip


@pytest.mark.parametrize(
    "kw",
    [
        {"format": "fixed", "strategies": ("a", "b", "c"), "players": 2},
        {"format": "round-robin", "strategies": ("a",), "players": 2},
        {"format": "gauntlet", "strategies": ("a",)},
        {"format": "swiss"},
        {"games": 0},
        {"players": 5},
    ],
)
def test_impossible_settings_are_refused(kw):
    with pytest.raises(ScheduleError):
        schedule(**kw)


def test_settings_round_trip():
    s = Settings(games=3, strategies=("greedy:gold_weight=0.5", "random"), rules={"gold_limit": 57})
    assert Settings.from_dict(s.to_dict()) == s
    assert s.to_dict()["rules"] == {"gold_limit": 57}
    pg = Settings(players=4, game=get_game("palastgefluester"), rules={"tiebreak": "noted"}, first_group=3)
    assert Settings.from_dict(pg.to_dict()) == pg and pg.game is get_game("palastgefluester")


def test_rule_options_come_from_the_settings():
    s = Settings(players=3, rules={"layout": "first-game", "gold_limit": "57"}, max_rounds=12, strategies=("a", "b"))
    assert rule_options(s.to_dict()) == RuleOptions(players=3, layout="first-game", gold_limit=57, max_rounds=12)
    assert rule_options(Settings().to_dict()) == RuleOptions(players=2)


def test_rules_are_kept_without_their_defaults_and_checked_by_the_game():
    # the same rules make the same settings, a default spelt out or not
    assert Settings(rules={"layout": "random", "gold_limit": None}) == Settings()
    assert Settings(rules={"start_gold": "1,2"}).rules == {"start_gold": (1, 2)}
    assert Settings(rules={"start_gold": [1, 2]}) == Settings(rules={"start_gold": "1,2"})
    with pytest.raises(ValueError, match=r"--tiebreak: not a rule option of palais-royal \(its rule options: --layout"):
        Settings(rules={"tiebreak": "noted"})
    with pytest.raises(
        ValueError, match="--tiebreak of palastgefluester must be display, noted or variant, got 'draw'"
    ):
        Settings(game=get_game("palastgefluester"), players=4, rules={"tiebreak": "draw"})
    assert Settings(game=get_game("palastgefluester"), players=4, rules={"tiebreak": "variant"}).rules == {
        "tiebreak": "noted"
    }
    with pytest.raises(ValueError, match="--gold-limit of palais-royal: a whole number of gold is needed"):
        Settings(rules={"gold_limit": "lots"})


def test_an_earlier_manifest_maps_its_flat_rule_fields_into_rules():
    """Before the games declared their options, every manifest held layout and gold_limit (and start_gold,
    tiebreak when set) beside the players; they are read into ``rules``, their defaults of then left out."""
    old = {"games": 8, "players": 2, "strategies": ["greedy", "random"], "format": "round-robin", "rotate_seats": True,
           "seed": 3, "layout": "first-game", "components": None, "gold_limit": 57, "max_rounds": 100,
           "start_gold": [1, 1]}  # fmt: skip
    s = Settings.from_dict(old)
    assert s.rules == {"layout": "first-game", "gold_limit": 57, "start_gold": (1, 1)} and s.seed == 3
    plain = Settings.from_dict({**old, "layout": "random", "gold_limit": None, "start_gold": None})
    assert plain.rules == {} and plain == Settings(games=8, seed=3)
    pg = Settings.from_dict({**old, "players": 4, "layout": "random", "gold_limit": None, "start_gold": None,
                             "game": "palastgefluester", "tiebreak": "noted"})  # fmt: skip
    assert pg.game.name == "palastgefluester" and pg.rules == {"tiebreak": "noted"}


def test_settings_travel_to_workers_with_their_game_by_name():
    s = Settings(game=get_game("palastgefluester"), players=4, rules={"tiebreak": "noted"})
    copy = pickle.loads(pickle.dumps(s))
    assert copy == s and copy.game is s.game and hash(copy) == hash(s)
