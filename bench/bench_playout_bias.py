"""How far each gomoku estimator's reward is from the exact value, on positions small enough to solve.

Playouts estimate the win rate under their own play, not under perfect play, so their error does not
shrink to zero with more playouts: this is the bias the issue asks to measure. Positions: random
games on a 7x7 board stopped with 12 empty cells (no five yet, the moves' exact values not all equal),
each empty cell a move; the truth is `reference.move_values` (full-width minimax to the end: 1 win,
½ draw, 0 loss for the mover). Per estimator: mean absolute error, mean signed error by the exact
class, and the share of (better, worse) move pairs of one position it misorders or ties.
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import verifiers
from bench.common import write_results
from verifiers.gomoku.board import BLACK, EMPTY, geometry, winner
from verifiers.gomoku.position import Position
from verifiers.gomoku.reference import move_values

SIZE, EMPTY_CELLS = 7, 12
CONFIGS = {
    "default (proofs, then tactical playouts)": {},
    "tactical playouts only": {"prepass": False},
    "flat random playouts": {"estimator": "flat", "prepass": False},
    "MCTS (UCT, 200 playouts)": {"estimator": "mcts", "prepass": False},
}


name = Position(SIZE, (EMPTY,) * (SIZE * SIZE), BLACK).name  # a cell's notation on this board


def positions(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """Random games stopped with EMPTY_CELLS empty cells, kept when no five is on the board and the
    exact values of the mover's moves are not all the same."""
    rng, geo, found = random.Random(seed), geometry(SIZE), []
    while len(found) < count:
        cells = list(range(SIZE * SIZE))
        rng.shuffle(cells)
        moves = cells[: SIZE * SIZE - EMPTY_CELLS]
        board = [EMPTY] * (SIZE * SIZE)
        for i, cell in enumerate(moves):
            board[cell] = 1 + i % 2
        if winner(board, geo) != EMPTY:
            continue
        values = move_values(board, SIZE, 1 + len(moves) % 2)
        if len(set(values.values())) > 1:
            found.append({"size": SIZE, "moves": [name(c) for c in moves], "values": values})
    return found


def evaluate(config: dict[str, Any], cases: list[dict[str, Any]]) -> dict[str, float]:
    v = verifiers.get("gomoku", **config)
    errors, by_class, pairs, misordered = [], {0.0: [], 0.5: [], 1.0: []}, 0, 0
    start = time.perf_counter()
    for case in cases:
        task = {"size": case["size"], "moves": case["moves"]}
        rewards = {c: v.score(f"<move>{name(c)}</move>", task).reward for c in case["values"]}
        for cell, exact in case["values"].items():
            errors.append(abs(rewards[cell] - exact))
            by_class[exact].append(rewards[cell] - exact)
        for a, b in itertools.permutations(case["values"], 2):
            if case["values"][a] > case["values"][b]:
                pairs += 1
                misordered += rewards[a] <= rewards[b]
    scores = sum(len(c["values"]) for c in cases)
    return {
        "mae": sum(errors) / len(errors),
        **{f"bias_{k}": (sum(d) / len(d) if d else float("nan")) for k, d in by_class.items()},
        "misordered_pairs": misordered / pairs,
        "ms_per_score": 1000 * (time.perf_counter() - start) / scores,
        "scores": scores,
    }


def main() -> dict:
    cases = positions(24)
    figures = {label: evaluate(config, cases) for label, config in CONFIGS.items()}
    counts = {k: sum(list(c["values"].values()).count(k) for c in cases) for k in (1.0, 0.5, 0.0)}
    table = [("estimator", "mean abs error", "bias on wins", "on draws", "on losses", "pairs misordered", "ms/score")]
    for label, f in figures.items():
        table.append(
            (
                label,
                f"{f['mae']:.3f}",
                f"{f['bias_1.0']:+.3f}",
                f"{f['bias_0.5']:+.3f}",
                f"{f['bias_0.0']:+.3f}",
                f"{f['misordered_pairs']:.1%}",
                f"{f['ms_per_score']:.1f}",
            )
        )
    write_results(
        "playout_bias",
        {**figures, "positions": len(cases), "moves_by_exact_value": {str(k): n for k, n in counts.items()}},
        table,
        notes=(
            f"{len(cases)} positions (7x7, {EMPTY_CELLS} empty cells, random games), every empty cell a move: "
            f"{counts[1.0]} winning, {counts[0.5]} drawing, {counts[0.0]} losing by exact minimax. Bias is the "
            "mean of (reward - exact value) over the moves of that class; a pair is misordered when the better "
            "move's reward is not above the worse one's. Playouts are not perfect play: their error stays "
            "whatever their number; the proofs remove it where they apply."
        ),
    )
    return figures


if __name__ == "__main__":
    main()
