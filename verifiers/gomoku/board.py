"""Free-style gomoku on an N×N board (N >= 5): five or more in a row wins, a full board draws.

Cells are flat indices r*N + c (row 0 at the top). Stones: 0 empty, 1 black (moves first), 2 white.
Geometry (the lines through each cell) is computed once per size, so a win check after a move
reads at most 32 cells instead of scanning the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # column names in move notation

EMPTY, BLACK, WHITE = 0, 1, 2
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def other(player: int) -> int:
    return 3 - player


@dataclass(frozen=True)
class Geometry:
    size: int
    # rays[cell][d] = (cells going +d, cells going -d), each up to 4 long
    rays: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]
    windows: tuple[tuple[int, ...], ...]  # every run of five cells


@lru_cache(maxsize=None)
def geometry(size: int) -> Geometry:
    if size < 5:
        raise ValueError("gomoku needs a board of at least 5x5")
    if size > len(LETTERS):  # a task's size never builds a board past move notation (or one of 10^10 cells)
        raise ValueError(f"board sizes run up to {len(LETTERS)}x{len(LETTERS)}: one letter per column")

    def ray(r: int, c: int, dr: int, dc: int) -> tuple[int, ...]:
        out = []
        for k in range(1, 5):
            rr, cc = r + dr * k, c + dc * k
            if not (0 <= rr < size and 0 <= cc < size):
                break
            out.append(rr * size + cc)
        return tuple(out)

    rays = tuple(
        tuple((ray(r, c, dr, dc), ray(r, c, -dr, -dc)) for dr, dc in DIRECTIONS)
        for r in range(size)
        for c in range(size)
    )
    windows = tuple(
        tuple((r + dr * k) * size + (c + dc * k) for k in range(5))
        for r in range(size)
        for c in range(size)
        for dr, dc in DIRECTIONS
        if 0 <= r + dr * 4 < size and 0 <= c + dc * 4 < size
    )
    return Geometry(size, rays, windows)


def makes_five(board: list[int], geo: Geometry, cell: int, player: int) -> bool:
    """Would (or did) `player` at `cell` complete five or more in a row?"""
    for forward, backward in geo.rays[cell]:
        run = 1
        for x in forward:
            if board[x] != player:
                break
            run += 1
        for x in backward:
            if board[x] != player:
                break
            run += 1
        if run >= 5:
            return True
    return False


def winning_cells(board: list[int], geo: Geometry, player: int, around: int | None = None) -> set[int]:
    """Empty cells where `player` would make five; only on lines through `around` when given."""
    if around is None:
        candidates = range(len(board))
    else:
        candidates = {x for pair in geo.rays[around] for line in pair for x in line}
    return {c for c in candidates if board[c] == EMPTY and makes_five(board, geo, c, player)}


def winner(board: list[int], geo: Geometry) -> int:
    """BLACK or WHITE if either has five anywhere, else EMPTY (full-board scan: for checking input)."""
    for window in geo.windows:
        first = board[window[0]]
        if first and all(board[x] == first for x in window):
            return first
    return EMPTY
