"""Palastgeflüster's own studies (``GAME.studies`` names them): the persons (restricted play per person); and its
studies' pages on the published index (``pages``, ``GAME.study_pages``).

They sit at the study layer: they play arms through the shared study machinery (``palais_sim.study``) and read them
with the analytics. Not part of the engine: no code fingerprint covers them, the compiled build leaves them out.
"""
