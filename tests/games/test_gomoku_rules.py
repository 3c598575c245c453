"""Gomoku: win detection against a full-board scan, notation, the vectorised rollouts against the
sequential ones, the tactical pre-pass, MCTS, the engine oracle, and 1/sqrt(n) error shrinkage."""

import math
import random
import sys
import textwrap

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.gomoku import from_task, geometry, makes_five, parse_move
from verifiers.gomoku.rollout import flat_outcomes, random_outcome, tactical_outcome


@settings(max_examples=200, deadline=None)
@given(st.integers(5, 11), st.randoms(use_true_random=False), st.floats(0.1, 0.9))
def test_incremental_five_check_matches_full_scan(size, rnd, density):
    geo = geometry(size)
    board = [rnd.choice((1, 2)) if rnd.random() < density else 0 for _ in range(size * size)]
    cell = rnd.randrange(size * size)
    player = rnd.choice((1, 2))
    board[cell] = player
    # the full scan finds a five through `cell` iff the incremental check does
    scan = any(cell in w and all(board[x] == player for x in w) for w in geo.windows)
    assert makes_five(board, geo, cell, player) == scan


def test_notation():
    assert parse_move("H8", 15) == 7 * 15 + 7 == parse_move("(7, 7)", 15) == parse_move("row 7 col 7", 15)
    assert parse_move("<move>a1</move>", 9) == 8 * 9 + 0
    assert parse_move("first E5, no wait, <move>D4</move>", 9) == 5 * 9 + 3
    assert parse_move("Z99", 9) is None and parse_move("(12, 3)", 9) is None and parse_move("hello", 9) is None
    p = from_task({"size": 9, "moves": ["E5", "D4"]})
    assert p.to_move == 1 and p.stones[4 * 9 + 4] == 1 and p.stones[5 * 9 + 3] == 2
    grid = from_task({"size": 5, "board": [".....", ".X...", "..O..", ".....", "....."]})
    assert grid.to_move == 1 and grid.name(6) == "B4"
    assert "X (black) to move." in p.text() and p.text().splitlines()[0].split() == list("ABCDEFGHI")


def test_vectorised_flat_rollouts_agree_with_sequential_ones():
    p = from_task({"size": 9, "moves": ["E5", "D4", "E4", "D5", "E6"]})
    geo = geometry(9)
    keys = np.random.default_rng(0).random((4000, 81))
    fast = flat_outcomes(p.board, geo, p.to_move, 1, keys).mean()
    rng = random.Random(0)
    slow = np.mean([random_outcome(p.board, geo, p.to_move, 1, rng) for _ in range(4000)])
    assert abs(fast - slow) < 4 * math.sqrt(0.25 / 4000) * math.sqrt(2)


def test_tactical_playouts_take_wins_and_block():
    # black to move with four in a row: the tactical policy always wins at once
    p = from_task({"size": 9, "moves": ["A1", "A9", "B1", "B9", "C1", "C9", "D1", "E9"]})
    geo = geometry(9)
    assert all(tactical_outcome(p.board, geo, 1, 1, random.Random(s)) == 1.0 for s in range(20))


def test_prepass_scores_blunders_zero_and_the_block_above_them(verifier):
    v = verifier("gomoku")
    task = next(t for t in v.tasks("all") if t["kind"] == "block" and t["size"] == 9)
    block = v.score(f"<move>{task['best_moves'][0]}</move>", task)
    position = from_task(task)
    other = next(
        position.name(c) for c in range(81) if position.stones[c] == 0 and position.name(c) not in task["best_moves"]
    )
    blunder = v.score(f"<move>{other}</move>", task)
    assert block.verdict.value == "correct" and blunder.verdict.value == "incorrect"
    assert blunder.reward == 0.0 and blunder.info["exact"] and block.reward > 0.0
    flat = verifier("gomoku", estimator="flat", prepass=False).score(f"<move>{other}</move>", task)
    assert flat.reward > 0.2  # flat rollouts are blind to the loss: why the pre-pass is on by default


def test_mcts_prefers_the_block(verifier):
    v = verifier("gomoku", estimator="mcts", rollouts=600, prepass=False)
    task = next(t for t in v.tasks("all") if t["kind"] == "block" and t["size"] == 9)
    position = from_task(task)
    others = [
        position.name(c) for c in range(81) if position.stones[c] == 0 and position.name(c) not in task["best_moves"]
    ]
    block = v.score(f"<move>{task['best_moves'][0]}</move>", task).reward
    assert block > max(v.score(f"<move>{o}</move>", task).reward for o in others[:3])


def test_flat_estimator_error_shrinks_like_one_over_sqrt_n():
    p = from_task({"size": 9, "moves": ["E5", "D4", "E4", "D5"]})
    geo = geometry(9)
    reference = flat_outcomes(p.board, geo, p.to_move, 1, np.random.default_rng(123).random((60_000, 81))).mean()
    rng = np.random.default_rng(5)
    rmse = {}
    for n in (50, 200, 800):
        errors = [flat_outcomes(p.board, geo, p.to_move, 1, rng.random((n, 81))).mean() - reference for _ in range(100)]
        rmse[n] = math.sqrt(np.mean(np.square(errors)))
    sd = math.sqrt(reference * (1 - reference))  # one playout's spread (draws are rare here)
    for n, err in rmse.items():
        assert 0.7 < err * math.sqrt(n) / sd < 1.35, (n, err, rmse)  # error = sd / sqrt(n), within noise
    assert rmse[50] > 1.5 * rmse[200] > 1.5 * 1.5 * rmse[800]


def test_adaptive_mode_stops_when_the_interval_is_narrow(verifier):
    v = verifier("gomoku", estimator="flat", target_width=0.1, prepass=False)
    task = v.tasks("all")[0]
    s = v.score(f"<move>{task['best_moves'][0]}</move>", task)
    low, high = s.info["ci95"]
    assert high - low <= 0.1 and 64 <= s.info["rollouts"] < 5000


FAKE_ENGINE = textwrap.dedent("""
    import sys
    size, stones = 0, {}
    def lines_through(x, y, me):
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for s in (1, -1):
                k = 1
                while stones.get((x + s * k * dx, y + s * k * dy)) == me:
                    run, k = run + 1, k + 1
            if run >= 5:
                return True
        return False
    reading = False
    for line in sys.stdin:
        line = line.strip()
        if line.startswith("START"):
            size = int(line.split()[1]); print("OK", flush=True)
        elif line == "BOARD":
            stones, reading = {}, True
        elif line == "DONE":
            reading = False
            empty = [(x, y) for y in range(size) for x in range(size) if (x, y) not in stones]
            pick = next((c for c in empty if lines_through(*c, 1)), None) or next((c for c in empty if lines_through(*c, 2)), None) or empty[0]
            print(f"{pick[0]},{pick[1]}", flush=True)
        elif reading:
            x, y, f = (int(v) for v in line.split(","))
            stones[(x, y)] = f
        elif line == "END":
            break
""")


def test_piskvork_engine_oracle(verifier, tmp_path):
    engine = tmp_path / "engine"
    engine.write_text(f"#!{sys.executable}\n{FAKE_ENGINE}")
    engine.chmod(0o755)
    v = verifier("gomoku", estimator="engine", engine=str(engine), prepass=False)
    task = next(t for t in v.tasks("all") if t["kind"] == "win" and t["size"] == 9)
    assert v.score(f"<move>{task['best_moves'][0]}</move>", task).reward == 1.0
    v.close()
    broken = tmp_path / "broken"
    broken.write_text(f"#!{sys.executable}\nimport sys\nfor line in sys.stdin: print('nonsense', flush=True)\n")
    broken.chmod(0o755)
    bad = verifier("gomoku", estimator="engine", engine=str(broken), engine_timeout=2, prepass=False)
    s = bad.score("<move>A1</move>", {"size": 9, "moves": ["E5"]})
    assert s.verdict.value == "error" and "engine" in s.reason
    bad.close()
