"""Plain minimax over every move, for checking the threat search on small horizons, and an exact
solver (`solve`, `move_values`) for positions with few empty cells.

Independent of `threats.py`: it reads five-cells with `board.winning_cells` and tries every
empty cell for both sides. The last three plies use an exact shortcut (after the attacker's move,
every answer loses at once iff the defender has no five-cell and the attacker has two), which
keeps five plies to about a second a move on 9x9. `wins_within(..., plies=5)` is "the side to move makes
five by its third move whatever the opponent does".
"""

from __future__ import annotations

from .board import EMPTY, Geometry, geometry, makes_five, other, winning_cells


def wins_within(board: list[int], size: int, attacker: int, plies: int) -> bool:
    """Can `attacker`, to move, force five within `plies` plies (odd: its own moves count)?"""
    return _wins(list(board), geometry(size), attacker, plies)


def move_wins_within(board: list[int], size: int, mover: int, cell: int, plies: int) -> bool:
    """Does `mover` playing `cell` force five within `plies` plies, this move included?"""
    board = list(board)
    board[cell] = mover
    return _after(board, geometry(size), mover, cell, plies - 1)


def move_loses_within(board: list[int], size: int, mover: int, cell: int, plies: int) -> bool:
    """After `mover` plays `cell`, can the opponent force five within `plies` plies?"""
    board = list(board)
    board[cell] = mover
    geo = geometry(size)
    if makes_five(board, geo, cell, mover):
        return False
    return _wins(board, geo, other(mover), plies)


def _wins(board: list[int], geo: Geometry, attacker: int, plies: int) -> bool:
    if plies < 1:
        return False
    if plies < 3:
        return bool(winning_cells(board, geo, attacker))
    if plies < 5:
        return _wins_in_three(board, geo, attacker)
    for move in range(len(board)):
        if board[move] != EMPTY:
            continue
        board[move] = attacker
        try:
            if _after(board, geo, attacker, move, plies - 1):
                return True
        finally:
            board[move] = EMPTY
    return False


def _wins_in_three(board: list[int], geo: Geometry, attacker: int) -> bool:
    """Five now, or a move after which the defender has no five-cell and the attacker two.
    The five-cells after a move are those before it, less the move, plus any on its lines."""
    mine = winning_cells(board, geo, attacker)
    if mine:
        return True
    theirs = winning_cells(board, geo, other(attacker))
    for move in range(len(board)):
        if board[move] != EMPTY or theirs - {move}:
            continue
        board[move] = attacker
        try:
            if len(winning_cells(board, geo, attacker, around=move)) >= 2:
                return True
        finally:
            board[move] = EMPTY
    return False


def _after(board: list[int], geo: Geometry, attacker: int, move: int, plies: int) -> bool:
    """The attacker has just played `move`; `plies` remain; does every defender answer lose?"""
    if makes_five(board, geo, move, attacker):
        return True
    if plies < 2 or EMPTY not in board:
        return False
    defender = other(attacker)
    if plies < 4:  # the answer must block every five-cell at once
        return not winning_cells(board, geo, defender) and len(winning_cells(board, geo, attacker)) >= 2
    for answer in range(len(board)):
        if board[answer] != EMPTY:
            continue
        board[answer] = defender
        try:
            if makes_five(board, geo, answer, defender) or not _wins(board, geo, attacker, plies - 1):
                return False
        finally:
            board[answer] = EMPTY
    return True


def solve(board: list[int], size: int, to_move: int) -> float:
    """The exact value of the position for `to_move` under perfect play by both sides: 1.0 a win,
    0.5 a draw (the board fills), 0.0 a loss. Full width to the end, memoised: for small boards with
    few empty cells (a 7x7 board with 10 empty cells is a few thousand positions)."""
    return _solve(tuple(board), geometry(size), to_move, {})


def move_values(board: list[int], size: int, mover: int) -> dict[int, float]:
    """The exact value for `mover` of each empty cell, under perfect play afterwards."""
    geo, memo, out = geometry(size), {}, {}
    after = list(board)
    for cell in [c for c in range(len(board)) if board[c] == EMPTY]:
        after[cell] = mover
        if makes_five(after, geo, cell, mover):
            out[cell] = 1.0
        elif EMPTY not in after:
            out[cell] = 0.5
        else:
            out[cell] = 1.0 - _solve(tuple(after), geo, other(mover), memo)
        after[cell] = EMPTY
    return out


def _solve(board: tuple[int, ...], geo: Geometry, to_move: int, memo: dict) -> float:
    key = (board, to_move)
    if key not in memo:
        best = 0.0
        cells = list(board)
        for move in range(len(cells)):
            if cells[move] != EMPTY:
                continue
            cells[move] = to_move
            if makes_five(cells, geo, move, to_move):
                value = 1.0
            elif EMPTY not in cells:
                value = 0.5
            else:
                value = 1.0 - _solve(tuple(cells), geo, other(to_move), memo)
            cells[move] = EMPTY
            best = max(best, value)
            if best == 1.0:
                break
        memo[key] = best
    return memo[key]
