"""The rollout estimator against exact values: its error shrinks like 1/sqrt(n), it is unbiased,
its reported standard error is honest and its Wilson interval covers the truth.

The exact value a rollout estimates is the win chance under uniformly random play after the
move (`random_play_value`, a memoised expectation), so the estimator's error against it is pure
sampling noise. Fixed seeds make the test deterministic; tolerances are about 4 sigma wide.
"""

import math

import numpy as np
import pytest

import verifiers
from verifiers.doudizhu import random_play_value
from verifiers.doudizhu.extract import read_play
from verifiers.doudizhu.position import match_move, state_from_task

SIZES = (16, 64, 256, 1024)
REPEATS = 120


def exact_after(task, play):
    state = state_from_task(task)
    (move,) = match_move(state, read_play(play), frozenset())
    return state, move, 1.0 - random_play_value(state.after(move))


@pytest.mark.slow
@pytest.mark.parametrize(
    "task, play",
    [
        ({"hand": "3 5 5 8 K 2", "opponent": "4 4 9 J A"}, "5 5"),
        ({"hand": "K K 7 7 9 3", "opponent": "4 5 6 J J A", "to_beat": "T T"}, "K K"),
    ],
)
def test_rollout_error_shrinks_like_one_over_sqrt_n(task, play):
    state, move, exact = exact_after(task, play)
    assert 0.15 < exact < 0.85
    rmse, covered, reported = {}, {}, {}
    for n in SIZES:
        rates = [
            verifiers.get("doudizhu", mode="rollout", rollouts=n, seed=s).win_rate(state, move) for s in range(REPEATS)
        ]
        errors = np.array([r.mean - exact for r in rates])
        rmse[n] = math.sqrt(np.mean(errors**2))
        covered[n] = np.mean([r.low <= exact <= r.high for r in rates])
        reported[n] = np.mean([r.stderr for r in rates])
        theory = math.sqrt(exact * (1 - exact) / n)
        assert 0.75 < rmse[n] / theory < 1.3, (n, rmse[n], theory)
        assert 0.8 < reported[n] / rmse[n] < 1.25, (n, reported[n], rmse[n])
        assert covered[n] >= 0.85, (n, covered[n])
        if n == SIZES[-1]:
            assert abs(errors.mean()) < 4 * theory / math.sqrt(REPEATS)  # no bias
    slope = np.polyfit(np.log(SIZES), np.log([rmse[n] for n in SIZES]), 1)[0]
    assert -0.62 < slope < -0.38, (slope, rmse)
