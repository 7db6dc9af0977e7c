"""Palastgeflüster (Roland Winner, 2010), 3 to 5 players: its components, rules, seat view, notation and ``GAME``.

The two tuples below are data, read without importing the package (``palais_sim._build``, ``setup.py``): the modules
of this package and of ``strategies/palastgefluester/`` the compiled build compiles.
"""

COMPILED = ("components.py", "state.py", "rules.py", "view.py", "play.py")
COMPILED_STRATEGIES = ("heuristic.py",)
