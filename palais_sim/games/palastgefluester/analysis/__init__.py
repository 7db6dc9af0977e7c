"""Palastgeflüster's analytics: its report sections (``GAME.report_sections``) and its own tables (the seat balance
by player count, how rounds end, ties for the win).

They sit at the analytics layer: they read a run's Parquet tables through ``palais_sim.analytics`` and never play.
Not part of the engine: no code fingerprint covers them, the compiled build leaves them out.
"""
