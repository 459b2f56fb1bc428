"""Use cases: load a game, rehydrate it, apply a move, persist it."""
