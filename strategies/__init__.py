"""Built-in strategies, one module per family. ``BUILTINS`` maps a strategy name to ``module:Class``."""

BUILTINS: dict[str, str] = {
    "random": "strategies.random_play:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
    "economy": "strategies.styles:EconomyStrategy",
    "seals": "strategies.styles:SealsStrategy",
    "park": "strategies.styles:ParkStrategy",
    "cards": "strategies.styles:CardsStrategy",
    "lookahead": "strategies.lookahead:LookaheadStrategy",
}
