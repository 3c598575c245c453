"""Game verifier speed, side by side in one run.

- Gomoku rollouts per second on 9x9 and 15x15: a straightforward pure-Python playout (copy the
  board and scan the whole board for five after every ply, as AlphaZero_Gomoku's `mcts_pure`
  does) against ours: sequential with the incremental five check, the vectorised flat rollouts,
  and the threat-aware tactical playouts. Target: >= 20x the reference.
- Gomoku rewards against the truth: on the moves of tests/games/data/gomoku_forced.json (each
  proven by plain minimax to win or to lose within five plies), the share scored >= 0.9 (wins) and
  <= 0.1 (losses) by each configuration, side by side, with the cost per score; and the cost per
  score on the built-in tasks.
Dou Dizhu has its own benchmark, bench/bench_doudizhu.py.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

import verifiers
from bench.common import write_results
from verifiers.gomoku import from_task, geometry
from verifiers.gomoku.board import EMPTY, Geometry
from verifiers.gomoku.position import Position
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
                    if all(
                        0 <= r + dr * k < size
                        and 0 <= c + dc * k < size
                        and board[(r + dr * k) * size + c + dc * k] == stone
                        for k in range(5)
                    ):
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


FORCED = Path(__file__).resolve().parent.parent / "tests" / "games" / "data" / "gomoku_forced.json"
CONFIGS = {
    "default (threat search + threat playouts)": {},
    "one-move pre-pass only (the old default)": {"threat_search": False},
    "flat rollouts, no pre-pass": {"estimator": "flat", "prepass": False},
    "MCTS 200, no pre-pass": {"estimator": "mcts", "prepass": False},
}


def proven_accuracy() -> dict[str, dict[str, float]]:
    """Per configuration: share of proven wins scored >= 0.9, of proven losses <= 0.1, ms per score."""
    entries = json.loads(FORCED.read_text())
    out = {}
    for label, config in CONFIGS.items():
        v = verifiers.get("gomoku", **config)
        hits = {"win": [0, 0], "loss": [0, 0]}
        start = time.perf_counter()
        for entry in entries:
            for move, kind in entry["labels"].items():
                reward = v.score(f"<move>{move}</move>", entry).reward
                hits[kind][0] += reward >= 0.9 if kind == "win" else reward <= 0.1
                hits[kind][1] += 1
        seconds = time.perf_counter() - start
        out[label] = {
            "wins_at_least_0.9": hits["win"][0] / hits["win"][1],
            "wins": hits["win"][1],
            "losses_at_most_0.1": hits["loss"][0] / hits["loss"][1],
            "losses": hits["loss"][1],
            "ms_per_score": 1000 * seconds / (hits["win"][1] + hits["loss"][1]),
        }
    return out


def _timed(v: Any, jobs: Iterable[tuple[str, dict]]) -> dict[str, float]:
    """Score each (move, task) with `v`; ms per score (median / p95 / max) and how many were proven."""
    times, proven = [], 0
    for move, task in jobs:
        start = time.perf_counter()
        s = v.score(f"<move>{move}</move>", task)
        times.append(time.perf_counter() - start)
        proven += s.info["proven"]
    times.sort()
    return {
        "scores": len(times),
        "proven": proven,
        "median_ms": 1000 * times[len(times) // 2],
        "p95_ms": 1000 * times[int(len(times) * 0.95)],
        "max_ms": 1000 * times[-1],
    }


def builtin_cost(per_task: int = 6) -> dict[str, float]:
    """ms per score with the default config on built-in tasks (moves near the stones, proven or not)."""
    v = verifiers.get("gomoku")

    def jobs() -> Iterator[tuple[str, dict]]:
        for task in v.tasks("all")[::10]:
            position = from_task(task)
            for cell in [c for c in range(len(position.stones)) if position.stones[c] == EMPTY][::7][:per_task]:
                yield position.name(cell), task

    return _timed(v, jobs())


def _next_to_stones(position: Position, geo: Geometry) -> list[int]:
    """Empty cells with a stone on a neighbouring cell: where real moves are."""
    stones = position.stones
    return [
        c
        for c in range(len(stones))
        if stones[c] == EMPTY and any(stones[x] != EMPTY for pair in geo.rays[c] for line in pair for x in line[:1])
    ]


def midgame_cost(positions: int = 12, per_position: int = 8) -> dict[str, float]:
    """ms per score with the default config on random mid-game positions (8-30 plies of biased
    random play, no five-cell for either side), moves next to the stones: where proofs are rare
    and the search must give up, the worst case for its cost."""
    from verifiers.gomoku.tasks import random_positions

    rng = random.Random(7)

    def jobs() -> Iterator[tuple[str, dict]]:
        for size in (9, 15):
            geo = geometry(size)
            for position in itertools.islice(random_positions(size, rng), positions // 2):
                near = _next_to_stones(position, geo)
                for cell in rng.sample(near, min(per_position, len(near))):
                    yield position.name(cell), position.task()

    return _timed(verifiers.get("gomoku"), jobs())


def search_by_kind(positions: int = 8, per_position: int = 8, two_quiet: int = 40) -> dict[str, dict]:
    """The threat search alone (`prove_move`), one quiet threat against two (the default), by kind
    of move: proof rate and ms per move. Kinds: moves next to the stones of random 9x9 and 15x15
    mid-game positions, split by what the deeper search settles (a proven result, or none: the
    cost of giving up); and 7x7 moves that plain minimax shows win within seven plies but not five
    (verified with `reference.move_wins_within`, full width)."""
    from verifiers.gomoku.reference import move_wins_within
    from verifiers.gomoku.tasks import random_positions
    from verifiers.gomoku.threats import prove_move

    rng = random.Random(7)
    midgame = []
    for size in (9, 15):
        geo = geometry(size)
        for position in itertools.islice(random_positions(size, rng), positions):
            near = _next_to_stones(position, geo)
            midgame += [(position, cell) for cell in rng.sample(near, min(per_position, len(near)))]
    seven = []
    for position in random_positions(7, random.Random(5), plies=(28, 37)):
        for cell in [c for c in range(49) if position.stones[c] == EMPTY]:
            args = (position.board, 7, position.to_move, cell)
            if move_wins_within(*args, 7) and not move_wins_within(*args, 5):
                seven.append((position, cell))
        if len(seven) >= two_quiet:
            break

    def run(jobs: list, depth: int) -> tuple[list[float | None], list[float]]:
        values, times = [], []
        for position, cell in jobs:
            start = time.perf_counter()
            values.append(prove_move(position.board, position.size, position.to_move, cell, vct_depth=depth).value)
            times.append(1000 * (time.perf_counter() - start))
        return values, times

    out: dict[str, dict] = {}
    runs = {depth: (run(midgame, depth), run(seven, depth)) for depth in (1, 2)}
    settled = [v is not None for v in runs[2][0][0]]
    for depth, ((mid_values, mid_times), (seven_values, seven_times)) in runs.items():
        for kind, keep in (("mid-game, proven by the default", True), ("mid-game, unproven by the default", False)):
            times = sorted(t for t, s in zip(mid_times, settled) if s == keep)
            proven = sum(v is not None for v, s in zip(mid_values, settled) if s == keep)
            out[f"{kind}, vct_depth={depth}"] = _kind(proven, times)
        out[f"7x7 wins in 7 plies not 5 (minimax), vct_depth={depth}"] = _kind(
            sum(v == 1.0 for v in seven_values), sorted(seven_times)
        )
    return out


def _kind(proven: int, times: list[float]) -> dict:
    return {
        "moves": len(times),
        "proven": proven,
        "median_ms": times[len(times) // 2] if times else 0.0,
        "p95_ms": times[int(len(times) * 0.95)] if times else 0.0,
    }


def main() -> dict:
    figures: dict = {}
    table = [("measure", "9x9", "15x15")]
    g9, g15 = _gomoku(9), _gomoku(15)
    for name in ("reference", "sequential", "vectorised", "tactical"):
        figures[f"gomoku_{name}_9"], figures[f"gomoku_{name}_15"] = g9[name], g15[name]
        label = {
            "reference": "reference playouts/s (copy + full scan)",
            "sequential": "ours, incremental check",
            "vectorised": "ours, vectorised flat",
            "tactical": "ours, threat-aware tactical playouts",
        }[name]
        ratio = (
            "" if name == "reference" else f" ({g9[name] / g9['reference']:.0f}x / {g15[name] / g15['reference']:.0f}x)"
        )
        table.append((label + ratio, f"{g9[name]:,.0f}", f"{g15[name]:,.0f}"))
    figures["proven_accuracy"] = accuracy = proven_accuracy()
    table += [
        ("", "", ""),
        ("proven positions (minimax, 5 plies): configuration", "wins scored >= 0.9 / losses <= 0.1", "ms per score"),
    ]
    for label, a in accuracy.items():
        table.append(
            (
                label,
                f"{a['wins_at_least_0.9']:.0%} of {a['wins']} / {a['losses_at_most_0.1']:.0%} of {a['losses']}",
                f"{a['ms_per_score']:.0f}",
            )
        )
    for key, positions, measure in (
        ("builtin_cost", "built-in tasks", builtin_cost),
        ("midgame_cost", "random mid-game positions", midgame_cost),
    ):
        figures[key] = cost = measure()
        table.append(
            (
                f"{positions}, default config: ms per score (median / p95 / max)",
                f"{cost['median_ms']:.0f} / {cost['p95_ms']:.0f} / {cost['max_ms']:.0f}",
                f"{cost['proven']} of {cost['scores']} proven",
            )
        )
    figures["search_by_kind"] = kinds = search_by_kind()
    table += [
        ("", "", ""),
        ("threat search alone, by kind of move (vct_depth=2 is the default)", "proven", "ms per move (median / p95)"),
    ]
    for kind, k in kinds.items():
        table.append((kind, f"{k['proven']} of {k['moves']}", f"{k['median_ms']:.1f} / {k['p95_ms']:.0f}"))
    write_results(
        "games",
        figures,
        table,
        notes="Target: gomoku playouts at least 20x the reference; on proven "
        "positions, 100% of wins >= 0.9 and of losses <= 0.1 with the default config.",
    )
    return figures


if __name__ == "__main__":
    main()
