"""The game-agnostic core: the game interface every game implements, the one play loop and its errors."""
