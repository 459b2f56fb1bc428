"""The optional C searches (accel.h lists their sources); accel.py is their glue."""

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
def layers(
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
    walk_limit: int,
    share: float,
    ceiling: int,
    room: int,
    wraps: bool,
    longest: int,
) -> tuple[int, int, bool, int, list[tuple[int, int]]]: ...
def longest(
    ranks: Sequence[int],
    uncovers: Sequence[Sequence[tuple[int, int]]],
    fit: Sequence[int],
    stock: Sequence[int],
    mask: int,
    free: int,
    top: int,
    streak: int,
    length: int,
    max_nodes: int,
    seconds: float,
    max_entries: int,
    wraps: bool,
) -> tuple[bool | None, int]: ...
def streak(
    ranks: Sequence[int],
    uncovers: Sequence[Sequence[tuple[int, int]]],
    fit: Sequence[int],
    mask: int,
    free: int,
    top: int,
    end: int,
) -> list[int]: ...

class Clear:
    """The clearing search of one deal and stock, its table kept between questions."""

    def __init__(
        self,
        ranks: Sequence[int],
        uncovers: Sequence[Sequence[tuple[int, int]]],
        fit: Sequence[int],
        stock: Sequence[int],
        full: int,
        hall: Sequence[tuple[int, int]],
    ) -> None: ...
    def wins(
        self,
        mask: int,
        free: int,
        index: int,
        top: int,
        max_nodes: int,
        seconds: float,
        max_entries: int,
    ) -> tuple[bool | None, int, list[int]]: ...
    def lost(self) -> int: ...
