"""palais-sim: a tournament simulator and strategy-analytics toolkit for the board game Palais Royal."""

__version__ = "0.1.0"
