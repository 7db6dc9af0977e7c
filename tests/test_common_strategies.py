"""The strategies of every game (``strategies/common``): they play each game through its seat contract and its
``GAME.turns`` alone, legally and reproducibly, and the search is better than chance."""

from __future__ import annotations

import random

import pytest

from palais_sim.core.errors import NotListed
from palais_sim.core.games import GAMES, get_game
from palais_sim.registry import load_strategy
from strategies.common.random_play import RandomStrategy
from strategies.common.search import SearchStrategy, choice_key, clearly_better

REAL_GAMES = tuple(GAMES)  # the built-in games


def play(game_name: str, specs: list[str], seed: int):
    game = get_game(game_name)
    context = game.context({"players": len(specs)})
    return game.play(context, seed, [load_strategy(s, game) for s in specs])


@pytest.mark.parametrize("game_name", REAL_GAMES)
def test_search_plays_legal_reproducible_games(game_name: str) -> None:
    """Every choice the search makes is applied by the game's own rules (an illegal one would fail the game), and the
    same seed gives the same game."""
    players = get_game(game_name).min_players
    specs = ["search:budget=6"] + ["random"] * (players - 1)
    first, second = play(game_name, specs, 11), play(game_name, specs, 11)
    assert first.finished and first.decisions > 20
    assert (first.winners, first.decisions, [s.rank for s in first.seats]) == (
        second.winners, second.decisions, [s.rank for s in second.seats])  # fmt: skip


def test_search_beats_random_in_palastgefluester() -> None:
    """A search over heuristic rollouts wins far more than its fair share against random players (3 players, a
    third each by chance; seats rotated over the seeds): at least 5 of 12 (it won 7.5, and 14.5 of 24; at 4 players,
    since random play no longer plays a repeat it could avoid, 3 of 12 against 6.5 before)."""
    wins = 0.0
    games = 12
    for seed in range(games):
        specs = ["random"] * 3
        seat = seed % 3
        specs[seat] = "search:budget=6"
        wins += play("palastgefluester", specs, 100 + seed).seats[seat].win
    assert wins >= 5


def test_the_rollout_players_choice_stands_unless_another_is_clearly_better() -> None:
    same = [[0.5, 0.6, 0.4, 0.5], [0.5, 0.6, 0.4, 0.5]]
    assert clearly_better(same, 0.01) == 0
    noisy = [[0.5, 0.6, 0.4, 0.5], [0.9, 0.2, 0.8, 0.3]]  # better on average, not clearly
    assert clearly_better(noisy, 0.01) == 0
    clear = [[0.2, 0.3, 0.25, 0.2], [0.8, 0.9, 0.85, 0.7]]
    assert clearly_better(clear, 0.01) == 1


class _Movement:
    """A view whose decision is not listed (as Palais Royal's movement): choices come from sample_option."""

    def legal_options(self, decision: object) -> list:
        raise NotListed("too many")

    def sample_option(self, decision: object, rng: random.Random) -> list[tuple[int, int, int]]:
        return [(rng.randrange(3), rng.randrange(3), 1)]


def test_candidates_where_choices_are_not_listed_are_distinct_samples_after_the_base() -> None:
    search = SearchStrategy(width=4)
    base = [(0, 0, 1)]
    found = search.candidates(_Movement(), None, base, random.Random(5))
    assert found[0] is base and 2 <= len(found) <= 4
    assert len({choice_key(c) for c in found}) == len(found)


def test_bad_parameters_are_one_line_errors() -> None:
    for bad in ("search:budget=0", "search:width=1", "search:horizon=-1"):
        with pytest.raises(ValueError, match="must be"):
            load_strategy(bad, get_game("palastgefluester"))


@pytest.mark.parametrize("game_name", REAL_GAMES)
def test_random_is_the_same_player_in_every_game(game_name: str) -> None:
    assert type(load_strategy("random", get_game(game_name))) is RandomStrategy
