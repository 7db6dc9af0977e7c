"""The built-in games, one package each (``palais_royal``, ``palastgefluester``): rules, game object (``GAME``),
studies, report sections. The registry that finds a game by name is :mod:`palais_sim.core.games`: it sits below
every layer that looks a game up, while these packages sit beside the layers their studies and sections use."""
