"""Playouts to the end of the game, three ways.

- `flat_outcomes`: uniform random play, many games at once in numpy. A random playout is a random
  order of the empty cells played alternately, so each cell gets a fill time and an owner; a
  window of five completes when its last cell fills, if all five share an owner; the first
  completed window decides the game. Exact for free-style rules.
- `tactical_outcome`: one game with "win if you can, else block, else random", tracking each
  player's winning cells incrementally (only lines through the last move can change).
- `random_outcome`: one uniform random game with an incremental five check (used by MCTS).
Outcomes are from the point of view of `player`: 1 win, 0.5 draw, 0 loss.
"""
from __future__ import annotations

import random

import numpy as np

from .board import EMPTY, Geometry, makes_five, other, winning_cells


def flat_outcomes(board: list[int], geo: Geometry, to_move: int, player: int, keys: np.ndarray) -> np.ndarray:
    """Outcomes of len(keys) uniform random games; keys[g, cell] orders the empty cells of game g.
    Sharing `keys` across candidate moves gives common random numbers."""
    stones = np.asarray(board)
    empty = np.flatnonzero(stones == EMPTY)
    games = keys.shape[0]
    if empty.size == 0:
        return np.full(games, 0.5)
    order = np.argsort(keys[:, empty], axis=1)  # position in the play order of each empty cell
    times = np.empty((games, empty.size), dtype=np.int32)
    np.put_along_axis(times, order, np.arange(empty.size, dtype=np.int32)[None, :].repeat(games, 0), axis=1)
    fill = np.full((games, stones.size), -1, dtype=np.int32)  # -1: already on the board
    fill[:, empty] = times
    owner = np.where(fill >= 0, np.where(fill % 2 == 0, to_move, other(to_move)), stones[None, :])
    windows = np.asarray(geo.windows)                             # (W, 5)
    win_owner = owner[:, windows]                                  # (G, W, 5)
    same = (win_owner == win_owner[:, :, :1]).all(axis=2)
    done_at = fill[:, windows].max(axis=2)                         # when the window's last cell fills
    big = np.iinfo(np.int32).max
    finish = {p: np.where(same & (win_owner[:, :, 0] == p), done_at, big).min(axis=1) for p in (1, 2)}
    mine, theirs = finish[player], finish[other(player)]
    return np.where(mine < theirs, 1.0, np.where(theirs < mine, 0.0, 0.5))


def random_outcome(board: list[int], geo: Geometry, to_move: int, player: int, rng: random.Random) -> float:
    board = list(board)
    empties = [i for i, s in enumerate(board) if s == EMPTY]
    rng.shuffle(empties)
    current = to_move
    for cell in empties:
        board[cell] = current
        if makes_five(board, geo, cell, current):
            return 1.0 if current == player else 0.0
        current = other(current)
    return 0.5


def tactical_outcome(board: list[int], geo: Geometry, to_move: int, player: int, rng: random.Random) -> float:
    board = list(board)
    wins = {1: winning_cells(board, geo, 1), 2: winning_cells(board, geo, 2)}
    empties = [i for i, s in enumerate(board) if s == EMPTY]
    rng.shuffle(empties)
    current, next_random = to_move, 0
    for _ in range(len(empties)):
        mine = [c for c in wins[current] if board[c] == EMPTY]
        if mine:
            return 1.0 if current == player else 0.0  # it takes the win
        threats = [c for c in wins[other(current)] if board[c] == EMPTY]
        if threats:
            cell = min(threats) if len(threats) == 1 else threats[rng.randrange(len(threats))]
        else:
            while board[empties[next_random]] != EMPTY:
                next_random += 1
            cell = empties[next_random]
        board[cell] = current
        wins[current] |= winning_cells(board, geo, current, around=cell)
        current = other(current)
    return 0.5
