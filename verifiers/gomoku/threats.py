"""Threat-space search: proofs of forced wins by continuous fours (VCF) and by threes and fours (VCT).

Why: rollouts, even tactical ones, do not see a win two moves deep, so a move that makes an open
three, or one that lets the opponent make one, scores near ½ although its result is decided. This
search proves such results exactly, within a node budget, before any rollout is spent.

Terms, for an attacker A and a defender D:
- a *five-cell* of A is an empty cell where A would complete five;
- a *four* is a move after which A has a five-cell; with one five-cell D must take it, with two
  D cannot stop both;
- a *quiet threat* (VCT only) is any other move; D may then answer anywhere, and A needs a win
  against each answer;
- the *zone* of a proof: the cells it uses, the five-cells of A it relies on, and the cells where
  more D stones (one per enclosing quiet threat) could give D a five-cell. A D stone outside the
  zone cannot change the proof.

Soundness: a win is reported only when every defender answer that does not lose at once has been
refuted (a single five-cell leaves D one such answer; after a quiet threat the win as if D passed
covers every answer outside its zone, and each answer inside is searched), so a proof is a proof. "No proof" means unknown, never "no win": the attacker's moves are
restricted to fours and moves that extend its lines, and the budget may run out (`OutOfBudget`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .board import BLACK, EMPTY, Geometry, geometry, makes_five, other

QUIET = "quiet"  # a proof that branched on the defender's answers (not a single line of moves)
Proof = tuple[int, ...] | str  # a VCF line (the attacker's moves) or QUIET
Win = tuple[Proof, frozenset[int]]  # a proof and its zone: the cells a defender stone could matter on


_WEIGHT = np.array([0, 1, 8], dtype=np.int16)  # EMPTY, BLACK, WHITE: a window's sum holds both counts


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
        self.table: dict[tuple[bytes, int, int, int], Win | None] = {}
        self._read_key = b""
        self._read: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.empty(0), np.empty(0), np.empty(0))

    # ---------------------------------------------------------------- board reading
    def _counts(self, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each window's cells and its count of `player`'s and the other's stones. A node reads
        them several times, so the last board's are kept; one sum serves both players (a black
        stone counts 1, a white one 8)."""
        key = self.board.tobytes()
        if key != self._read_key:
            stones = self.board[self.windows]
            sums = _WEIGHT[stones].sum(axis=1)
            self._read_key, self._read = key, (stones, sums & 7, sums >> 3)
        stones, black, white = self._read
        return (stones, black, white) if player == BLACK else (stones, white, black)

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

    def danger_cells(self, defender: int, extra: int) -> frozenset[int]:
        """Empty cells where `extra` more defender stones could give the defender a five-cell:
        the empties of windows holding no attacker stone and at least 4 - `extra` defender stones
        (fewer than 4: a window of 4 is a five-cell already, which the search reads directly)."""
        if extra <= 0:
            return frozenset()
        stones, mine, theirs = self._counts(defender)
        rows = (theirs == 0) & (mine >= 4 - extra) & (mine < 4)
        return frozenset(self.windows[rows][stones[rows] == EMPTY].tolist())

    # ---------------------------------------------------------------- the search
    def attacker_wins(self, attacker: int, depth: int) -> Proof | None:
        """A proof that `attacker`, to move, wins; `depth` is how many quiet threats it may use (0: VCF)."""
        found = self._wins(attacker, depth, 0)
        return None if found is None else found[0]

    def after_attack(self, attacker: int, move: int, depth: int) -> Proof | None:
        """A proof that `attacker`, having just played `move`, wins whatever the defender answers."""
        found = self._after(attacker, move, depth, 0)
        return None if found is None else found[0]

    def _wins(self, attacker: int, depth: int, extra: int) -> Win | None:
        """`attacker_wins` with the proof's zone: a win that still holds with up to `extra` more
        defender stones anywhere outside the zone. Memoised by position (a transposition table)."""
        key = (self.board.tobytes(), attacker, depth, extra)
        if key not in self.table:
            self._tick()
            self.table[key] = self._search_wins(attacker, depth, extra)
        return self.table[key]

    def _search_wins(self, attacker: int, depth: int, extra: int) -> Win | None:
        fives = self.five_cells(attacker)
        if fives:
            return (min(fives),), frozenset({min(fives)})
        defender = other(attacker)
        forced = self.five_cells(defender)
        if len(forced) >= 2:
            return None
        fours = sorted(forced) if forced else self.four_moves(attacker)
        taken = set(fours)
        quiet = [c for c in self.line_moves(attacker) if c not in taken] if depth > 0 and not forced else []
        for move, is_quiet in [(m, False) for m in fours] + [(m, True) for m in quiet]:
            self.board[move] = attacker
            try:
                # a quiet move followed by more quiet moves must itself be a threat (a win by
                # fours if the defender passed): the few that are get the deeper search
                if is_quiet and depth > 1 and self._wins(attacker, 0, extra + 1) is None:
                    continue
                rest = self._after(attacker, move, depth, extra)
            finally:
                self.board[move] = EMPTY
            if rest is not None:
                proof, zone = rest
                line = QUIET if proof == QUIET else (move, *proof)
                return line, zone | {move} | self.danger_cells(defender, extra)
        return None

    def _after(self, attacker: int, move: int, depth: int, extra: int) -> Win | None:
        defender = other(attacker)
        if makes_five(self.board, self.geo, move, attacker):
            return (), frozenset()
        if self.five_cells(defender):
            return None  # the defender completes five first
        threats = self.five_cells(attacker)
        danger = self.danger_cells(defender, extra)
        if len(threats) >= 2:
            return (), frozenset(threats) | danger
        if threats:  # one five-cell: the defender's only answer
            block = threats.pop()
            self.board[block] = defender
            try:
                rest = self._wins(attacker, depth, extra)
            finally:
                self.board[block] = EMPTY
            return None if rest is None else (rest[0], rest[1] | {block} | danger)
        if depth == 0:
            return None
        rest = self._every_answer_loses(attacker, depth - 1, extra + 1)
        return None if rest is None else (rest[0], rest[1] | danger)

    def _every_answer_loses(self, attacker: int, depth: int, extra: int) -> Win | None:
        """After a quiet threat: does the attacker win against every defender answer?

        The win as if the defender passed comes first; an answer outside its zone leaves that
        win standing (the zone holds every cell the proof uses, every five-cell it relies on, and
        every cell where defender stones could make a five-cell), so only the answers inside the
        zone are searched, and the zone of the whole is the union of theirs."""
        defender = other(attacker)
        passed = self._wins(attacker, depth, extra)
        if passed is None:
            return None
        zone = set(passed[1])
        for answer in sorted(passed[1]):
            if self.board[answer] != EMPTY:
                continue
            self.board[answer] = defender
            try:
                found = self._wins(attacker, depth, extra)
            finally:
                self.board[answer] = EMPTY
            if found is None:
                return None
            zone |= found[1]
        return QUIET, frozenset(zone)


@dataclass(frozen=True)
class MoveProof:
    """What the search proved about one move: 1.0 a forced win, 0.0 a forced loss, None unknown."""

    value: float | None
    reason: str
    nodes: int


def prove_move(
    board: list[int], size: int, mover: int, cell: int, *, vct_depth: int = 2, max_nodes: int = 20_000
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
