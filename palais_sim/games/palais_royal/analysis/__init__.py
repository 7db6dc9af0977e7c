"""Palais Royal's analytics: its report sections (``GAME.report_sections``), the nobles' regression and take rates,
the setup and room-layout tables, their charts, and a generator of synthetic runs with planted effects (the tests'
known answers).

They sit at the analytics layer: they read a run's Parquet tables through ``palais_sim.analytics`` and never play.
Not part of the engine: no code fingerprint covers them, the compiled build leaves them out.
"""
