"""Pure Monte Carlo tree search (UCT) with uniform random playouts, for the win rate after a move.

The root is the position after the candidate move; its value is the mean playout outcome for the
player who made that move, with the opponent's replies chosen by UCT (so a refutation is found
once the budget allows). Unlike flat rollouts the outcomes are not independent draws: report the
spread of repeated, independently seeded searches when you need an error bar.
"""

from __future__ import annotations

import math
import random

from .board import EMPTY, Geometry, makes_five, other
from .rollout import random_outcome


class _Node:
    __slots__ = ("board", "to_move", "last", "terminal", "children", "untried", "visits", "wins")

    def __init__(self, board: list[int], to_move: int, last: int | None, rng: random.Random) -> None:
        self.board = board
        self.to_move = to_move
        self.last = last
        mover = other(to_move)
        if last is not None and makes_five(board, _GEO[0], last, mover):
            self.terminal: float | None = 1.0  # the player who just moved has won
        elif EMPTY not in board:
            self.terminal = 0.5
        else:
            self.terminal = None
        self.children: list[_Node] = []
        self.untried = [i for i, s in enumerate(board) if s == EMPTY] if self.terminal is None else []
        rng.shuffle(self.untried)
        self.visits = 0
        self.wins = 0.0  # from the point of view of the player who just moved into this node


_GEO: list[Geometry] = []


def mcts_outcomes(
    board: list[int], geo: Geometry, to_move: int, last: int, playouts: int, rng: random.Random, c: float = 1.4
) -> list[float]:
    """Run `playouts` UCT iterations from the position after `last`; return each playout's outcome
    for the player who played `last`."""
    _GEO[:] = [geo]
    root = _Node(list(board), to_move, last, rng)
    mover = other(to_move)
    results = []
    for _ in range(playouts):
        node, path = root, [root]
        while node.terminal is None and not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(node.children, key=lambda ch: ch.wins / ch.visits + c * math.sqrt(log_n / ch.visits))
            path.append(node)
        if node.terminal is None and node.untried:
            cell = node.untried.pop()
            child_board = list(node.board)
            child_board[cell] = node.to_move
            child = _Node(child_board, other(node.to_move), cell, rng)
            node.children.append(child)
            node, path = child, path + [child]
        if node.terminal is not None:
            value_for_last = node.terminal
        else:
            value_for_last = random_outcome(node.board, geo, node.to_move, other(node.to_move), rng)
        last_mover = other(node.to_move)
        for n in path:
            n.visits += 1
            just_moved = other(n.to_move)
            n.wins += value_for_last if just_moved == last_mover else 1.0 - value_for_last
        results.append(value_for_last if last_mover == mover else 1.0 - value_for_last)
    return results
