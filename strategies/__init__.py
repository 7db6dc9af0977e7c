"""Built-in strategies, one module per family; ``palais_sim.registry.BUILTINS`` names them."""

import palais_sim  # noqa: F401 - decides between the compiled and the pure engine before a strategy module loads
