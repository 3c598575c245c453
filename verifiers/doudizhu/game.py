"""Two-player Dou Dizhu endgames: positions, the exact solver and random-policy rollouts.

A position is (hand of the side to move, the other hand, the combination to beat or None when
leading). Whoever empties their hand first wins. PASS hands the lead back to the other player.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from .cards import Combo, Hand, legal_moves, minus

Move = Combo | None  # None is PASS


@dataclass(frozen=True)
class State:
    me: Hand
    them: Hand
    to_beat: Combo | None

    def after(self, move: Move) -> "State":
        """The position from the opponent's side after `move`."""
        if move is None:
            return State(self.them, self.me, None)
        return State(self.them, minus(self.me, move.cards), move)


def solve(state: State, banned: frozenset[str] = frozenset()) -> bool:
    """True when the side to move wins with perfect play (memoised minimax)."""
    return _solve(state, banned)


@lru_cache(maxsize=2_000_000)
def _solve(state: State, banned: frozenset[str]) -> bool:
    for move in legal_moves(state.me, state.to_beat, banned):
        if move is not None and sum(minus(state.me, move.cards)) == 0:
            return True
    for move in legal_moves(state.me, state.to_beat, banned):
        if not _solve(state.after(move), banned):
            return True
    return False


def move_value(state: State, move: Move, banned: frozenset[str] = frozenset()) -> float:
    """Exact value of `move` for the side to move: 1 if it wins with perfect play, else 0."""
    if move is not None and sum(minus(state.me, move.cards)) == 0:
        return 1.0
    return 0.0 if solve(state.after(move), banned) else 1.0


def rollout(state: State, rng: random.Random, banned: frozenset[str] = frozenset(), max_plies: int = 1000) -> float:
    """Both sides play uniformly random legal moves; 1 if the side to move at `state` wins."""
    me_to_move = True
    for _ in range(max_plies):
        moves = legal_moves(state.me, state.to_beat, banned)
        move = moves[rng.randrange(len(moves))]
        if move is not None and sum(state.me) == sum(move.cards):
            return 1.0 if me_to_move else 0.0
        state = state.after(move)
        me_to_move = not me_to_move
    return 0.5


def random_play_value(state: State, banned: frozenset[str] = frozenset()) -> float:
    """The exact probability that the side to move wins when both sides play uniformly random
    legal moves: what `rollout` estimates, computed by memoised expectation (small endgames)."""
    return _random_value(state, banned)


@lru_cache(maxsize=2_000_000)
def _random_value(state: State, banned: frozenset[str]) -> float:
    moves = legal_moves(state.me, state.to_beat, banned)
    total = 0.0
    for move in moves:
        if move is not None and sum(state.me) == sum(move.cards):
            total += 1.0
        else:
            total += 1.0 - _random_value(state.after(move), banned)
    return total / len(moves)
