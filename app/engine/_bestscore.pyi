"""The optional C best-score search (_bestscore.c); solver.py calls it."""

from collections.abc import Sequence

def best(
    ranks: Sequence[int],
    uncovers: Sequence[Sequence[tuple[int, int]]],
    fit: Sequence[int],
    stock: Sequence[int],
    pts: Sequence[int],
    bonus: Sequence[int],
    penalty: int,
    peak_mask: int,
    full: int,
    mask: int,
    free: int,
    top: int,
    streak: int,
    max_nodes: int,
    seconds: float,
    max_entries: int,
) -> tuple[int | None, int, list[tuple[int, int]]]: ...
