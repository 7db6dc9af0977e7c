"""Strategies for Palais Royal: the heuristic and its styles, the searches, the restricted player and random."""
