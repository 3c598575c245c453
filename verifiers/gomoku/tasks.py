"""Built-in gomoku tasks: positions from seeded random play where the decision matters.

Two kinds:
- "win": the side to move can make five now, and the opponent also threatens five, so any
  other move loses;
- "block": the opponent threatens five at exactly one cell and the side to move cannot win now,
  so the block is the only move that does not lose at once.

The answer key (`best_moves`) lists every move the threat search proves to win (a block that
also makes an open four is one), or, when none is proven, the only move that does not lose at
once; so a key never calls a proven win wrong. A block the search proves lost (the opponent wins
by force after it) is no task: every move would score 0, and its key would name a move the
verifier calls wrong. A task's number is its place among every decision position met, kept or
not, so that leaving a lost one out renames no other.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from .board import EMPTY, geometry, makes_five, other, winning_cells
from .position import Position
from .threats import prove_move


def _threats(position: Position) -> tuple[set[int], set[int]]:
    geo = geometry(position.size)
    board = position.board
    return winning_cells(board, geo, position.to_move), winning_cells(board, geo, other(position.to_move))


def classify(position: Position) -> tuple[str, list[int]] | None:
    """("win" | "block", best moves) when the position has a decision that matters, else None."""
    mine, theirs = _threats(position)
    if mine and theirs:
        return "win", sorted(mine)
    if not mine and len(theirs) == 1:
        return "block", sorted(theirs)
    return None


def answer_key(position: Position, fallback: list[int]) -> list[int]:
    """Every empty cell proven to win (default search settings), else `fallback`."""
    wins = [
        cell
        for cell in range(len(position.stones))
        if position.stones[cell] == EMPTY
        and prove_move(position.board, position.size, position.to_move, cell).value == 1.0
    ]
    return wins or sorted(fallback)


@lru_cache(maxsize=None)
def generate(size: int, count: int, seed: int = 0) -> tuple[dict, ...]:
    """`count` distinct decision positions on a size×size board, from seeded random games."""
    rng = random.Random(f"gomoku:{size}:{seed}")
    geo = geometry(size)
    found: dict[str, dict] = {}
    met: set[str] = set()  # every decision position met, lost ones too: a task's number is its place here
    attempts = 0
    while len(found) < count and attempts < count * 200:
        attempts += 1
        position = Position(size, (EMPTY,) * size * size, 1)
        centre = size // 2
        moves: list[int] = []
        for _ in range(size * size):
            # random play biased towards the centre and existing stones, so threats arise
            cell = _biased_cell(position, rng, centre)
            mover = position.to_move
            position = position.play(cell)
            moves.append(cell)
            if makes_five(position.board, geo, cell, mover):
                break
            kind = classify(position) if len(moves) >= 6 else None
            if kind is not None:
                key = position.canonical()
                if key not in met:
                    met.add(key)
                    best = answer_key(position, kind[1])
                    if not lost(position, best):
                        found[key] = {
                            "id": f"gomoku{size}-{len(met) - 1:03d}",
                            "size": size,
                            "moves": [position.name(m) for m in moves],
                            "kind": kind[0],
                            "best_moves": [position.name(m) for m in best],
                            "difficulty": f"{size}x{size}-{kind[0]}",
                        }
                break
    return tuple(found.values())


def lost(position: Position, best: list[int]) -> bool:
    """Is every move of the key (`best`) proven to lose: the opponent wins by force after it?"""
    return all(prove_move(position.board, position.size, position.to_move, cell).value == 0.0 for cell in best)


def _biased_cell(position: Position, rng: random.Random, centre: int) -> int:
    size = position.size
    empties = [i for i, s in enumerate(position.stones) if s == EMPTY]
    near = [i for i in empties if any(position.stones[j] != EMPTY for j in _neighbours(i, size))]
    pool = near if near and rng.random() < 0.85 else empties
    if all(s == EMPTY for s in position.stones):
        return centre * size + centre
    return pool[rng.randrange(len(pool))]


def random_positions(size: int, rng: random.Random, plies: tuple[int, int] = (8, 30)) -> Iterator[Position]:
    """Endless mid-game positions from biased random play (`plies` moves, upper bound excluded)
    where neither side has a five-cell: where the threat search has to look ahead."""
    geo = geometry(size)
    while True:
        position = Position(size, (EMPTY,) * size * size, 1)
        for _ in range(rng.randrange(*plies)):
            cell = _biased_cell(position, rng, size // 2)
            mover, position = position.to_move, position.play(cell)
            if makes_five(position.board, geo, cell, mover):
                break
        else:
            if not winning_cells(position.board, geo, 1) and not winning_cells(position.board, geo, 2):
                yield position


def _neighbours(cell: int, size: int) -> list[int]:
    r, c = divmod(cell, size)
    return [
        rr * size + cc
        for rr in range(r - 1, r + 2)
        for cc in range(c - 1, c + 2)
        if (rr, cc) != (r, c) and 0 <= rr < size and 0 <= cc < size
    ]


TASKS_FILE = Path(__file__).with_name("tasks.json")


def build_all() -> list[dict]:
    """The built-in task set (shipped as tasks.json: generating it takes minutes, a proof per empty
    cell of each position; seven on a 2-core machine)."""
    return [dict(t) for size in (9, 15) for t in generate(size, 100)]


def load_all() -> list[dict]:
    return json.loads(TASKS_FILE.read_text())


if __name__ == "__main__":
    TASKS_FILE.write_text(json.dumps(build_all(), indent=0) + "\n")
    print(f"wrote {TASKS_FILE}")
