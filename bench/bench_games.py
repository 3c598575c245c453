"""Game verifier speed, side by side in one run.

- Gomoku rollouts per second on 9x9 and 15x15: a straightforward pure-Python playout (copy the
  board and scan the whole board for five after every ply, as AlphaZero_Gomoku's `mcts_pure`
  does) against ours: sequential with the incremental five check, the vectorised flat rollouts,
  and the tactical ("win, else block, else random") playouts. Target: >= 20x the reference.
Dou Dizhu has its own benchmark, bench/bench_doudizhu.py.
"""
from __future__ import annotations

import random
import time

import numpy as np

from bench.common import write_results
from verifiers.gomoku import from_task, geometry
from verifiers.gomoku.rollout import flat_outcomes, random_outcome, tactical_outcome


def reference_playout(board: list[int], size: int, to_move: int, rng: random.Random) -> int:
    """The common reference: copy the board each ply, full-board scan for five after every move."""
    board = list(board)
    player = to_move
    while True:
        empty = [i for i, s in enumerate(board) if s == 0]
        if not empty:
            return 0
        board = list(board)
        board[rng.choice(empty)] = player
        for r in range(size):
            for c in range(size):
                stone = board[r * size + c]
                if not stone:
                    continue
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if all(0 <= r + dr * k < size and 0 <= c + dc * k < size and board[(r + dr * k) * size + c + dc * k] == stone
                           for k in range(5)):
                        return stone
        player = 3 - player


def _per_second(fn, min_seconds: float = 1.5) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < min_seconds:
        count += fn()
    return count / (time.perf_counter() - start)


def _gomoku(size: int) -> dict[str, float]:
    centre = "ABCDEFGHIJKLMNO"[size // 2] + str(size // 2 + 1)
    p = from_task({"size": size, "moves": [centre]})
    geo, board, rng = geometry(size), p.board, random.Random(0)
    keys = np.random.default_rng(0)
    return {
        "reference": _per_second(lambda: (reference_playout(board, size, 2, rng), 1)[1], 3.0),
        "sequential": _per_second(lambda: (random_outcome(board, geo, 2, 1, rng), 1)[1]),
        "vectorised": _per_second(lambda: flat_outcomes(board, geo, 2, 1, keys.random((500, size * size))).size),
        "tactical": _per_second(lambda: (tactical_outcome(board, geo, 2, 1, rng), 1)[1]),
    }


def main() -> dict:
    figures: dict = {}
    table = [("measure", "9x9", "15x15")]
    g9, g15 = _gomoku(9), _gomoku(15)
    for name in ("reference", "sequential", "vectorised", "tactical"):
        figures[f"gomoku_{name}_9"], figures[f"gomoku_{name}_15"] = g9[name], g15[name]
        label = {"reference": "reference playouts/s (copy + full scan)", "sequential": "ours, incremental check",
                 "vectorised": "ours, vectorised flat", "tactical": "ours, tactical policy"}[name]
        ratio = "" if name == "reference" else f" ({g9[name] / g9['reference']:.0f}x / {g15[name] / g15['reference']:.0f}x)"
        table.append((label + ratio, f"{g9[name]:,.0f}", f"{g15[name]:,.0f}"))
    write_results("games", figures, table, notes="Target: gomoku playouts at least 20x the reference.")
    return figures


if __name__ == "__main__":
    main()
