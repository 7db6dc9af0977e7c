"""The games of the simulator besides Palais Royal (the engine in palais_sim.engine)."""
