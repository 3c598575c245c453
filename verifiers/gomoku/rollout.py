"""Playouts to the end of the game, three ways.

- `flat_outcomes`: uniform random play, many games at once in numpy. A random playout is a random
  order of the empty cells played alternately, so each cell gets a fill time and an owner; a
  window of five completes when its last cell fills, if all five share an owner; the first
  completed window decides the game. Exact for free-style rules.
- `tactical_outcome` / `ThreatPlayouts`: games where both sides take and answer threats one move
  ahead (five, block five, make or stop an open/double four), else play at random.
- `random_outcome`: one uniform random game with an incremental five check (used by MCTS).
Outcomes are from the point of view of `player`: 1 win, 0.5 draw, 0 loss.
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from .board import EMPTY, Geometry, geometry, makes_five, other


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
    windows = np.asarray(geo.windows)  # (W, 5)
    win_owner = owner[:, windows]  # (G, W, 5)
    same = (win_owner == win_owner[:, :, :1]).all(axis=2)
    done_at = fill[:, windows].max(axis=2)  # when the window's last cell fills
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
    """One game of threat-aware play (see `ThreatPlayouts`)."""
    return ThreatPlayouts(board, geo).outcome(to_move, player, rng)


@lru_cache(maxsize=None)
def _windows_through(size: int) -> tuple[tuple[int, ...], ...]:
    geo = geometry(size)
    through: list[list[int]] = [[] for _ in range(size * size)]
    for index, window in enumerate(geo.windows):
        for cell in window:
            through[cell].append(index)
    return tuple(tuple(w) for w in through)


class ThreatPlayouts:
    """Playouts where each side knows threats one move ahead. In order, the side to move:
    completes five; blocks the opponent's five-cell; makes two five-cells at once (an open or
    double four, which wins); takes the cell where the opponent would do that (answering an open
    three); else plays a random empty cell.

    Per-window stone counts are kept incrementally, so each ply reads only the windows that hold
    three or more stones of one side and none of the other.
    """

    def __init__(self, board: list[int], geo: Geometry) -> None:
        self.board = list(board)
        self.windows = geo.windows
        self.through = _windows_through(geo.size)
        self.count = {p: [sum(board[x] == p for x in w) for w in geo.windows] for p in (1, 2)}
        self.hot = {
            p: {i for i, w in enumerate(geo.windows) if self.count[p][i] >= 3 and self.count[other(p)][i] == 0}
            for p in (1, 2)
        }
        self.empties = [i for i, s in enumerate(board) if s == EMPTY]

    def outcome(self, to_move: int, player: int, rng: random.Random) -> float:
        """Play one game to the end; 1 if `player` wins, 0.5 a draw, 0 a loss."""
        board = list(self.board)
        count = {p: list(c) for p, c in self.count.items()}
        hot = {p: set(h) for p, h in self.hot.items()}
        order = list(self.empties)
        rng.shuffle(order)
        current, next_random = to_move, 0
        for _ in range(len(order)):
            opponent = other(current)
            mine = self._five_cells(board, count, hot, current)
            if mine:
                return 1.0 if current == player else 0.0
            choice = self._five_cells(board, count, hot, opponent)
            if not choice:
                choice = self._double_cells(board, count, hot, current) or self._double_cells(
                    board, count, hot, opponent
                )
            if choice:
                cell = choice[0] if len(choice) == 1 else choice[rng.randrange(len(choice))]
            else:
                while board[order[next_random]] != EMPTY:
                    next_random += 1
                cell = order[next_random]
            board[cell] = current
            for w in self.through[cell]:
                count[current][w] += 1
                if count[opponent][w] == 0 and count[current][w] >= 3:
                    hot[current].add(w)
                hot[opponent].discard(w)
            current = opponent
        return 0.5

    def _five_cells(self, board: list[int], count: dict, hot: dict, p: int) -> list[int]:
        return sorted({x for w in hot[p] if count[p][w] == 4 for x in self.windows[w] if board[x] == EMPTY})

    def _double_cells(self, board: list[int], count: dict, hot: dict, p: int) -> list[int]:
        """Cells where `p` would get two five-cells at once."""
        partners: dict[int, set[int]] = {}
        for w in hot[p]:
            if count[p][w] == 3:
                a, b = (x for x in self.windows[w] if board[x] == EMPTY)
                partners.setdefault(a, set()).add(b)
                partners.setdefault(b, set()).add(a)
        return sorted(c for c, others in partners.items() if len(others) >= 2)
