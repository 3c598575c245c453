"""Plain, slow implementations written straight on `State` and `legal_moves`: the oracles the
packed-integer engine is tested against, and the baselines the benchmark measures it against.
Keep them obvious rather than fast."""

from __future__ import annotations

import random
from functools import lru_cache

from .cards import legal_moves
from .game import State, ends_game


def minimax_wins(state: State, banned: frozenset[str] = frozenset()) -> bool:
    """True when the side to move wins with perfect play."""

    @lru_cache(maxsize=None)
    def wins(s: State) -> bool:
        return any(ends_game(s, m) or not wins(s.after(m)) for m in legal_moves(s.me, s.to_beat, banned))

    return wins(state)


def random_value(state: State, banned: frozenset[str] = frozenset()) -> float:
    """The side to move's win chance when both sides play uniformly random legal moves."""

    @lru_cache(maxsize=None)
    def value(s: State) -> float:
        moves = legal_moves(s.me, s.to_beat, banned)
        return sum(1.0 if ends_game(s, m) else 1.0 - value(s.after(m)) for m in moves) / len(moves)

    return value(state)


def rollout(state: State, rng: random.Random, banned: frozenset[str] = frozenset()) -> float:
    """One game of uniformly random play: 1.0 if the side to move at `state` wins."""
    mine = True
    while True:
        move = rng.choice(legal_moves(state.me, state.to_beat, banned))
        if ends_game(state, move):
            return 1.0 if mine else 0.0
        state, mine = state.after(move), not mine
