"""Threat-space search: proofs of forced wins by continuous fours (VCF) and by threes and fours (VCT).

Why: rollouts, even tactical ones, do not see a win two moves deep, so a move that makes an open
three, or one that lets the opponent make one, scores near ½ although its result is decided. This
search proves such results exactly, within a node budget, before any rollout is spent.

Terms, for an attacker A and a defender D:
- a *five-cell* of A is an empty cell where A would complete five;
- a *four* is a move after which A has a five-cell; with one five-cell D must take it, with two
  D cannot stop both;
- a *quiet threat* (VCT only) is any other move; D may then answer anywhere, so the search tries
  every empty cell as the answer and needs a win against each.

Soundness: a win is reported only when every defender answer that does not lose at once has been
refuted (a single five-cell leaves D one such answer; a quiet threat leaves D all of them, each
checked), so a proof is a proof. "No proof" means unknown, never "no win": the attacker's moves are
restricted to fours and moves that extend its lines, and the budget may run out (`OutOfBudget`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .board import EMPTY, Geometry, geometry, makes_five, other

QUIET = "quiet"  # a proof that branched on every defender answer (not a single line to replay)
Proof = tuple[int, ...] | str  # a VCF line (the attacker's moves) or QUIET


class OutOfBudget(Exception):
    """The search used its node budget without settling the question."""


@lru_cache(maxsize=None)
def _window_array(size: int) -> np.ndarray:
    return np.asarray(geometry(size).windows, dtype=np.int64)


class ThreatSearch:
    """Searches one position; the board is changed while searching and restored after each call."""

    def __init__(self, board: list[int], size: int, max_nodes: int = 20_000) -> None:
        self.size = size
        self.geo: Geometry = geometry(size)
        self.windows = _window_array(size)
        self.board = np.asarray(board, dtype=np.int8)
        self.max_nodes = max_nodes
        self.nodes = 0

    # ---------------------------------------------------------------- board reading
    def _counts(self, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        stones = self.board[self.windows]
        return stones, (stones == player).sum(axis=1), (stones == other(player)).sum(axis=1)

    def five_cells(self, player: int) -> set[int]:
        """Empty cells where `player` would complete five."""
        stones, mine, theirs = self._counts(player)
        rows = (mine == 4) & (theirs == 0)
        return set(self.windows[rows][stones[rows] == EMPTY].tolist())

    def four_moves(self, player: int) -> list[int]:
        """Moves that give `player` a five-cell, those in the most lines first."""
        return self._extending(player, 3)

    def line_moves(self, player: int) -> list[int]:
        """Moves that put a third stone in an open window: where quiet threats come from."""
        return self._extending(player, 2)

    def _extending(self, player: int, have: int) -> list[int]:
        stones, mine, theirs = self._counts(player)
        rows = (mine == have) & (theirs == 0)
        cells = self.windows[rows][stones[rows] == EMPTY]
        if cells.size == 0:
            return []
        found, counts = np.unique(cells, return_counts=True)
        return [int(c) for c in found[np.argsort(-counts, kind="stable")]]

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise OutOfBudget(f"more than {self.max_nodes} nodes")

    # ---------------------------------------------------------------- the search
    def attacker_wins(self, attacker: int, depth: int) -> Proof | None:
        """A proof that `attacker`, to move, wins; `depth` is how many quiet threats it may use (0: VCF)."""
        self._tick()
        fives = self.five_cells(attacker)
        if fives:
            return (min(fives),)
        forced = self.five_cells(other(attacker))
        if len(forced) >= 2:
            return None
        if forced:
            moves = sorted(forced)
        else:
            moves = self.four_moves(attacker)
            if depth > 0:
                moves += [c for c in self.line_moves(attacker) if c not in set(moves)]
        for move in moves:
            self.board[move] = attacker
            try:
                rest = self.after_attack(attacker, move, depth)
            finally:
                self.board[move] = EMPTY
            if rest is not None:
                return QUIET if rest == QUIET else (move, *rest)
        return None

    def after_attack(self, attacker: int, move: int, depth: int) -> Proof | None:
        """A proof that `attacker`, having just played `move`, wins whatever the defender answers."""
        defender = other(attacker)
        if makes_five(self.board, self.geo, move, attacker):
            return ()
        if self.five_cells(defender):
            return None  # the defender completes five first
        threats = self.five_cells(attacker)
        if len(threats) >= 2:
            return ()
        if threats:  # one five-cell: the defender's only answer
            block = threats.pop()
            self.board[block] = defender
            try:
                return self.attacker_wins(attacker, depth)
            finally:
                self.board[block] = EMPTY
        if depth == 0:
            return None
        return self._every_answer_loses(attacker, depth - 1)

    def _every_answer_loses(self, attacker: int, depth: int) -> Proof | None:
        """After a quiet threat: does the attacker win against every defender answer?"""
        defender = other(attacker)
        proofs = [self.attacker_wins(attacker, depth)]  # as if the defender passed: a cheap filter
        if proofs[0] is None:
            return None
        for answer in np.flatnonzero(self.board == EMPTY).tolist():
            self.board[answer] = defender
            try:
                if any(isinstance(p, tuple) and self.replay(attacker, p) for p in proofs):
                    continue
                proof = self.attacker_wins(attacker, depth)
                if proof is None:
                    return None
                proofs.append(proof)
            finally:
                self.board[answer] = EMPTY
        return QUIET

    def replay(self, attacker: int, line: tuple[int, ...]) -> bool:
        """Does the VCF `line` still win here? Each step is checked on the board, so True is a proof."""
        self._tick()
        defender = other(attacker)
        placed: list[int] = []
        try:
            for move in line:
                if self.five_cells(attacker):
                    return True
                forced = self.five_cells(defender)
                if self.board[move] != EMPTY or len(forced) >= 2 or (forced and move not in forced):
                    return False
                self.board[move] = attacker
                placed.append(move)
                if makes_five(self.board, self.geo, move, attacker):
                    return True
                if self.five_cells(defender):
                    return False
                threats = self.five_cells(attacker)
                if len(threats) >= 2:
                    return True
                if len(threats) != 1:
                    return False
                block = threats.pop()
                self.board[block] = defender
                placed.append(block)
            return False
        finally:
            for cell in placed:
                self.board[cell] = EMPTY


@dataclass(frozen=True)
class MoveProof:
    """What the search proved about one move: 1.0 a forced win, 0.0 a forced loss, None unknown."""

    value: float | None
    reason: str
    nodes: int


def prove_move(
    board: list[int], size: int, mover: int, cell: int, *, vct_depth: int = 1, max_nodes: int = 20_000
) -> MoveProof:
    """Is `mover` playing `cell` (empty) a forced win, a forced loss, or unknown?

    Checked in order, each search with its own node budget: five at once; the opponent's five at
    once; two five-cells at once; the opponent's VCF; the mover's VCF/VCT after the move; the
    opponent's VCT.
    """
    opponent = other(mover)
    search = ThreatSearch(board, size, max_nodes)
    search.board[cell] = mover
    spent = 0

    def run(what, *args) -> Proof | None:
        nonlocal spent
        search.nodes = 0
        try:
            return what(*args)
        except OutOfBudget:
            return None
        finally:
            spent += search.nodes

    geo = search.geo
    if makes_five(search.board, geo, cell, mover):
        return MoveProof(1.0, "wins at once", 0)
    if search.five_cells(opponent):
        return MoveProof(0.0, "leaves the opponent five at once", 0)
    if len(search.five_cells(mover)) >= 2:
        return MoveProof(1.0, "makes two five-cells: the opponent cannot block both", 0)
    if run(search.attacker_wins, opponent, 0) is not None:
        return MoveProof(0.0, "the opponent wins by continuous fours (VCF)", spent)
    if run(search.after_attack, mover, cell, vct_depth) is not None:
        return MoveProof(1.0, "wins by force: every answer is refuted by fours and threes (VCT)", spent)
    if vct_depth > 0 and run(search.attacker_wins, opponent, vct_depth) is not None:
        return MoveProof(0.0, "the opponent wins by force with threes and fours (VCT)", spent)
    return MoveProof(None, "no forced result found", spent)
