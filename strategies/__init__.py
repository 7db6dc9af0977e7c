"""Built-in strategies, one module per family. ``BUILTINS`` maps a strategy name to ``module:Class``."""

BUILTINS: dict[str, str] = {
    "random": "strategies.random_play:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
}
