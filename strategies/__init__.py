"""Built-in strategies, one module per family; ``palais_sim.registry.BUILTINS`` names them."""
