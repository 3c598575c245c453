"""A gomoku position (board + side to move), its text form for prompts, and the parser for
positions given as a grid or a move list (moves written by a model are read in `extract.py`).

Notation: columns are letters A, B, … from the left; rows are numbered from the bottom (as in
chess), so on 15×15 the centre is H8. `(r, c)` and `row r col c` are 0-based indices with row 0
at the top, so H8 is (7, 7).
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import BLACK, EMPTY, LETTERS, WHITE, geometry, other, winner
from .extract import parse_move

SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}


class PositionError(ValueError):
    """The task's position is malformed (a task problem, not a model problem)."""


@dataclass(frozen=True)
class Position:
    size: int
    stones: tuple[int, ...]
    to_move: int

    @property
    def board(self) -> list[int]:
        return list(self.stones)

    def canonical(self) -> str:
        """Stable text that identifies the position (seeds the rollouts)."""
        return f"{self.size}:{''.join(SYMBOLS[s] for s in self.stones)}:{SYMBOLS[self.to_move]}"

    def play(self, cell: int) -> "Position":
        stones = list(self.stones)
        stones[cell] = self.to_move
        return Position(self.size, tuple(stones), other(self.to_move))

    def waiting_side_names(self) -> str:
        """How a text names the side not to move, as a regex (`X|[Bb]lack|BLACK` while O moves): its
        stone's letter as the prompt writes it and its colour. A line whose move is theirs is no answer."""
        return _side_names(other(self.to_move))

    def moving_side_names(self) -> str:
        """The same for the side to move: a line that has it play states our move (`O should play I5.`)."""
        return _side_names(self.to_move)

    def name(self, cell: int) -> str:
        r, c = divmod(cell, self.size)
        return f"{LETTERS[c]}{self.size - r}"

    def task(self) -> dict:
        """The position as a task (`from_task` reads it back): for tests and benchmarks."""
        rows = [self.stones[r * self.size : (r + 1) * self.size] for r in range(self.size)]
        return {
            "size": self.size,
            "board": ["".join(SYMBOLS[s] for s in row) for row in rows],
            "to_move": SYMBOLS[self.to_move],
        }

    def text(self) -> str:
        """The board as a model sees it: a labelled grid and whose turn it is."""
        width = len(str(self.size))
        lines = [" " * (width + 1) + " ".join(LETTERS[: self.size])]
        for r in range(self.size):
            row = " ".join(SYMBOLS[s] for s in self.stones[r * self.size : (r + 1) * self.size])
            lines.append(f"{self.size - r:>{width}} {row}")
        lines.append(f"{'X (black)' if self.to_move == BLACK else 'O (white)'} to move.")
        return "\n".join(lines)


def from_task(task: dict) -> Position:
    """A position from `{"size": 9, "moves": ["E5", "D4", …]}` or `{"board": [rows], "to_move": "X"}`."""
    try:
        size = task.get("size", 15)
        whole = isinstance(size, (int, str)) or (isinstance(size, float) and size.is_integer())
        if isinstance(size, bool) or not whole:  # never `int(True)`, nor 9.7 cut down to 9
            raise ValueError(f"{size!r} is not a whole number")
        size = int(size)
        geo = geometry(size)
    except (TypeError, ValueError) as exc:
        raise PositionError(f"bad board size: {exc}") from None
    if "board" in task:
        rows = task["board"]
        if isinstance(rows, str):
            rows = rows.split()
        if not isinstance(rows, (list, tuple)) or not all(isinstance(row, str) for row in rows):
            raise PositionError("board must be a list of row strings (or one string of rows)")
        if len(rows) != size or any(len(row.replace(" ", "")) != size for row in rows):
            raise PositionError(f"board must be {size} rows of {size} cells")
        lookup = {".": EMPTY, "X": BLACK, "O": WHITE, "x": BLACK, "o": WHITE}
        try:
            stones = tuple(lookup[ch] for row in rows for ch in row.replace(" ", ""))
        except KeyError as exc:
            raise PositionError(f"unknown board symbol {exc}") from None
        to_move = {"X": BLACK, "x": BLACK, "O": WHITE, "o": WHITE}.get(str(task.get("to_move", "")))
        if to_move is None:
            blacks, whites = stones.count(BLACK), stones.count(WHITE)
            to_move = BLACK if blacks == whites else WHITE
        position = Position(size, stones, to_move)
    else:
        position = Position(size, (EMPTY,) * size * size, BLACK)
        moves = task.get("moves", [])
        if not isinstance(moves, (list, tuple)):
            raise PositionError(f"moves must be a list of moves like 'H8', got a {type(moves).__name__}")
        for move in moves:
            cell = parse_move(str(move), size)
            if cell is None or position.stones[cell] != EMPTY:
                raise PositionError(f"illegal move {move!r} in the task's move list")
            position = position.play(cell)
    if winner(position.board, geo) != EMPTY:
        raise PositionError("the game in this position is already over")
    if EMPTY not in position.stones:
        raise PositionError("the board is full")
    return position


def _side_names(side: int) -> str:
    """A side's names as a regex: its stone's letter as the prompt writes it and its colour."""
    colour = "black" if side == BLACK else "white"
    return f"{SYMBOLS[side]}|[{colour[0].upper()}{colour[0]}]{colour[1:]}|{colour.upper()}"
