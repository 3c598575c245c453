"""Build `data/gomoku_forced.json`: positions whose moves have a result proven by plain minimax
(`verifiers.gomoku.reference`) within five plies, for testing the verifier against the truth.

Each entry is a position and, per labelled move, "win" (the move forces five within 5 plies, itself
included) or "loss" (after it the opponent forces five within 5 plies). Moves with neither label
are left out. Run: PYTHONPATH=. python tests/games/make_gomoku_forced.py   (a few minutes)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from verifiers.gomoku.board import EMPTY
from verifiers.gomoku.position import Position, from_task
from verifiers.gomoku.reference import move_loses_within, move_wins_within, wins_within
from verifiers.gomoku.tasks import random_positions


def sparse_board(size: int, rows: dict[int, str]) -> list[str]:
    """A size x size board of empty points, with the given rows (by index from the top) in place."""
    return [rows.get(i, "." * size) for i in range(size)]


OUT = Path(__file__).with_name("data") / "gomoku_forced.json"

# Hand-built 15x15 patterns named in the issue: an open three to answer, and a four-three.
HAND_BUILT = [
    {
        "name": "answer an open three",
        "size": 15,
        "board": sparse_board(
            15,
            {
                4: "..O............",
                5: ".......X.......",
                6: ".......X.......",
                7: ".......X.......",
                9: "...........O...",
                12: "...O...........",
            },
        ),
        "to_move": "O",
        "moves": ["H11", "H7", "H12", "H6", "A1", "G9", "J9", "M3", "H5"],
    },
    {
        "name": "make a four-three",
        "size": 15,
        "board": sparse_board(
            15,
            {
                4: "......O........",
                5: "......X........",
                6: "......X..O.....",
                7: "......X...O....",
                8: ".......XX..O...",
                11: ".....O.........",
            },
        ),
        "to_move": "X",
        "moves": ["G7", "G6", "F7", "J7", "A15", "N14", "H9"],
    },
    {
        "name": "make a double three",
        "size": 15,
        "board": sparse_board(
            15,
            {
                0: "O.............O",
                5: "........XX.....",
                6: ".......X.......",
                7: ".......X.......",
                14: "O.............O",
            },
        ),
        "to_move": "X",
        "moves": ["H10", "A14", "K10", "H5", "N2"],
    },
]


def interesting(position: Position) -> bool:
    """A result decided within 5 plies but not within 3, for either side."""
    board, size, me = position.board, position.size, position.to_move
    return any(wins_within(board, size, side, 5) and not wins_within(board, size, side, 3) for side in (me, 3 - me))


def label(position: Position, cells=None) -> dict[str, str]:
    labels = {}
    for cell in cells if cells is not None else range(len(position.stones)):
        if position.stones[cell] != EMPTY:
            continue
        args = (position.board, position.size, position.to_move, cell, 5)
        if move_wins_within(*args):
            labels[position.name(cell)] = "win"
        elif move_loses_within(*args):
            labels[position.name(cell)] = "loss"
    return labels


def main() -> None:
    entries = []
    for spec in HAND_BUILT:
        position = from_task(spec)
        cells = [c for c in range(len(position.stones)) if position.name(c) in spec["moves"]]
        entries.append(
            {
                "name": spec["name"],
                "size": 15,
                "board": spec["board"],
                "to_move": spec["to_move"],
                "labels": label(position, cells),
            }
        )
        print(entries[-1]["name"], entries[-1]["labels"], flush=True)
    for position in random_positions(9, random.Random("forced:9:0")):
        if len(entries) >= len(HAND_BUILT) + 8:
            break
        if interesting(position):
            rows = position.text().splitlines()[1:-1]
            entries.append(
                {
                    "name": f"random 9x9 #{len(entries) - len(HAND_BUILT)}",
                    "size": 9,
                    "board": [r.split(" ", 1)[1].replace(" ", "") for r in rows],
                    "to_move": "X" if position.to_move == 1 else "O",
                    "labels": label(position),
                }
            )
            print(entries[-1]["name"], len(entries[-1]["labels"]), flush=True)
    OUT.write_text(json.dumps(entries, indent=1) + "\n")


if __name__ == "__main__":
    main()
