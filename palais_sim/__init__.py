"""palais-sim: a tournament simulator and balance-analysis toolkit for board games (Palais Royal, Palastgeflüster)."""

from palais_sim import _moved
from palais_sim._build import build_info, install

__version__ = "0.1.0"

_moved.install()  # the module names of release 0.1.0 that moved still import
install()  # the compiled engine, or its Python source (PALAIS_PURE=1, or a source edited since it was compiled)

__all__ = ["__version__", "build_info"]
