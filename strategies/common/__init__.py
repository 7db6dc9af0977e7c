"""Strategies that play any game through the seat contract every game's view keeps (``rng``, ``legal_options``,
``sample_option``, ``sample_state``), so a new game has them without a line of its own."""
