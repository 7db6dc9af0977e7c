"""Regenerate the golden replays (``make golden``). Commit the diff only after reviewing it: any change to the
rules, the setup or the built-in strategies shows up here as a change of decisions or scores."""

from __future__ import annotations

from pathlib import Path

from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.notation import ReplayWriter
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategies
from palais_sim.tournament.schedule import group_seed

GOLDEN_DIR = Path(__file__).parent

# name -> (players, game index, strategies, layout, max_rounds); the seed is group_seed(GOLDEN_ROOT, game index),
# the one seed function of every command that plays games.
GOLDEN_ROOT = 1
GOLDEN_GAMES: dict[str, tuple[int, int, str, str, int]] = {
    "greedy-2p-first-game": (2, 1, "greedy", "first-game", 100),
    "greedy-4p-random-layout": (4, 2, "greedy", "random", 100),
    "random-vs-greedy-3p": (3, 3, "random,greedy,greedy", "PMS/KGD/COB", 100),
    "random-2p-short": (2, 4, "random", "random", 12),
    "expert-vs-greedy-2p": (2, 5, "expert,greedy", "random", 100),  # the distilled player and its model file
    "expert-vs-greedy-3p": (3, 6, "expert,greedy,greedy", "random", 100),  # its race (the policy alone at 2 players)
    # the model against itself, as studies play it: its no-pass guard acts (with no_pass_after=off: 41 rounds, not 15)
    "expert-2p-self-play": (2, 7, "expert", "random", 100),
}


def golden_text(name: str, write: bool = False) -> str:
    """The replay log of a golden game, played now with the current engine and strategies."""
    players, index, strategies, layout, max_rounds = GOLDEN_GAMES[name]
    seed = group_seed(GOLDEN_ROOT, index)
    components = load_components()
    options = RuleOptions(players=players, layout=layout, max_rounds=max_rounds)
    seats = load_strategies(strategies, players)
    path = GOLDEN_DIR / f"{name}.jsonl" if write else None
    writer = ReplayWriter(path, components, options, seed, [s.name for s in seats])
    result = play_game(components, options, seed, seats, observer=lambda _b, d, c: writer.record(d, c))
    writer.finish(result)
    return writer.text()


def main() -> None:
    for name in GOLDEN_GAMES:
        golden_text(name, write=True)
        print(f"wrote {GOLDEN_DIR / name}.jsonl")


if __name__ == "__main__":
    main()
