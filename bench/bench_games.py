"""Game verifier speed, side by side in one run.

- Gomoku rollouts per second on 9x9 and 15x15: a straightforward pure-Python playout (copy the
  board and scan the whole board for five after every ply, as AlphaZero_Gomoku's `mcts_pure`
  does) against ours: sequential with the incremental five check, the vectorised flat rollouts,
  and the tactical ("win, else block, else random") playouts. Target: >= 20x the reference.
- Dou Dizhu random rollouts per second, and exact-solver time for 5-, 8- and 10-card endgames.
"""
from __future__ import annotations

import multiprocessing as mp
import random
import time

import numpy as np

from bench.common import write_results
from verifiers.doudizhu.cards import hand_from_text
from verifiers.doudizhu.game import State, rollout, solve
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


def _solve_in(cards_each: int, seed: int, out: "mp.Queue") -> None:
    rng = random.Random(seed)
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    rng.shuffle(deck)
    text = "3456789TJQKA2BR"
    me, them = "".join(text[r] for r in deck[:cards_each]), "".join(text[r] for r in deck[cards_each:2 * cards_each])
    start = time.perf_counter()
    solve(State(hand_from_text(me), hand_from_text(them), None))
    out.put(time.perf_counter() - start)


def _solver_seconds(cards_each: int, budget: float = 60.0) -> float | None:
    """Median of three deals' solve times; None when a deal exceeds the budget."""
    times = []
    for seed in range(3):
        queue: mp.Queue = mp.get_context("fork").Queue()
        proc = mp.get_context("fork").Process(target=_solve_in, args=(cards_each, seed, queue))
        proc.start()
        proc.join(budget)
        if proc.is_alive():
            proc.kill()
            proc.join()
            return None
        times.append(queue.get())
    return float(np.median(times))


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
    state = State(hand_from_text("3 5 5 8 K 2"), hand_from_text("4 4 9 J A"), None)
    rng = random.Random(0)
    figures["doudizhu_rollouts_per_s"] = _per_second(lambda: (rollout(state, rng), 1)[1])
    table.append(("Dou Dizhu random rollouts/s (5 vs 6 cards)", f"{figures['doudizhu_rollouts_per_s']:,.0f}", ""))
    for cards in (5, 8, 10):
        seconds = _solver_seconds(cards)
        figures[f"doudizhu_solver_{cards}_cards_s"] = seconds
        table.append((f"Dou Dizhu exact solver, {cards} cards each (median of 3 deals)",
                      "over 60 s" if seconds is None else f"{seconds:.3f} s", ""))
    write_results("games", figures, table, notes="Target: gomoku playouts at least 20x the reference.")
    return figures


if __name__ == "__main__":
    main()
