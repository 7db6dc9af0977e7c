"""palais-sim: a tournament simulator and strategy-analytics toolkit for the board game Palais Royal."""

from palais_sim._build import build_info, install

__version__ = "0.1.0"

install()  # the compiled engine, or its Python source (PALAIS_PURE=1, or a source edited since it was compiled)

__all__ = ["__version__", "build_info"]
