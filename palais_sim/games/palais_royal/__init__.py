"""Palais Royal (Xavier Georges, 2008), 2 to 4 players: its components, rules, seat view, notation and ``GAME``.

The two tuples below are data, read without importing the package (``palais_sim._build``, ``setup.py``): the modules
of this package and of ``strategies/palais_royal/`` the compiled build compiles.
"""

COMPILED = (
    "board.py",
    "components.py",
    "state.py",
    "cards.py",
    "rules.py",
    "scoring.py",
    "setup.py",
    "options.py",
    "view.py",
    "leaf_value.py",
    "play.py",
)
COMPILED_STRATEGIES = (
    "tuning_space.py",
    "valuation.py",
    "budget_moves.py",
    "planning.py",
    "card_play.py",
    "heuristic.py",
    "styles.py",
    "greedy.py",
    "ismcts.py",
    "expert_features.py",
    "expert.py",
)
