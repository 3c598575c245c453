"""Two-player Dou Dizhu endgames: positions, the exact solver and random-policy rollouts.

A position is (hand of the side to move, the other hand, the combination to beat or None when
leading). Whoever empties their hand first wins. PASS hands the lead back to the other player.
These are the readable entry points; the work happens in `engine` on packed integers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import Combo, Hand, cards_text, minus
from .engine import PASS, intern, pack, rollout_plies, rules_for

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

    def packed(self) -> tuple[int, int, int]:
        """(me, them, to_beat id) for the engine."""
        return pack(self.me), pack(self.them), PASS if self.to_beat is None else intern(self.to_beat)

    def canonical(self) -> str:
        """The position as text, the same in every process: what random streams are seeded from."""
        beat = f"{self.to_beat.kind}:{self.to_beat.text()}" if self.to_beat else "lead"
        return f"{cards_text(self.me)}|{cards_text(self.them)}|{beat}"


def ends_game(state: State, move: Move) -> bool:
    return move is not None and move.cards == state.me


def solve(state: State, banned: frozenset[str] = frozenset(), budget: int | None = None) -> bool:
    """True when the side to move wins with perfect play (memoised minimax).
    Raises `engine.SearchLimit` after `budget` new positions."""
    return rules_for(frozenset(banned)).wins(*state.packed(), budget=budget)


def move_value(state: State, move: Move, banned: frozenset[str] = frozenset(), budget: int | None = None) -> float:
    """Exact value of `move` for the side to move: 1 if it wins with perfect play, else 0."""
    if ends_game(state, move):
        return 1.0
    return 0.0 if solve(state.after(move), banned, budget) else 1.0


def random_play_value(state: State, banned: frozenset[str] = frozenset()) -> float:
    """The exact probability that the side to move wins when both sides play uniformly random
    legal moves: what `rollout` estimates, computed by memoised expectation (small endgames)."""
    return rules_for(frozenset(banned)).random_value(*state.packed())


def rollout(state: State, rng: random.Random, banned: frozenset[str] = frozenset()) -> float:
    """One game of uniformly random play; 1 if the side to move at `state` wins."""
    me, them, beat = state.packed()
    return rules_for(frozenset(banned)).rollouts(me, them, beat, 1, rng.random, rollout_plies(me, them))[0]
