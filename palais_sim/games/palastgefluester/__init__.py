"""Palastgeflüster, the second game: a card game for 3 to 5 players (see README, "Palastgeflüster")."""
