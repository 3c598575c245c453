"""verl's custom reward function: point `custom_reward_function.path` at this module and
`custom_reward_function.name` at `compute_score`. `data_source` picks the verifier (its name, or a
name in `DATA_SOURCES`); `ground_truth` is read by `tasks.task_from_ground_truth`.

verl has no "no reward" value, so a verifier ERROR scores `ERROR_POLICY.value` (0.0 unless set)
and is flagged in the returned dict (`error: 1.0`, which verl logs) and counted.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import verifiers

from .errors import ErrorPolicy
from .tasks import task_from_ground_truth

DATA_SOURCES = {"24game": "game24", "game24": "game24", "countdown24": "game24", "leetcode": "code", "code": "code",
                "apps": "code", "taco": "code", "svg": "svg", "gomoku": "gomoku", "doudizhu": "doudizhu"}
ERROR_POLICY = ErrorPolicy(value=0.0)


@lru_cache(maxsize=None)
def _verifier(name: str) -> verifiers.Verifier:
    return verifiers.get(name)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None) -> dict[str, Any]:
    name = DATA_SOURCES.get(str(data_source).lower(), str(data_source))
    if name not in verifiers.names():
        raise ValueError(f"no evalkit verifier for data_source {data_source!r}; known: {sorted(DATA_SOURCES)}")
    task = task_from_ground_truth(name, ground_truth, (extra_info or {}).get("task"))
    score = _verifier(name).score(solution_str, task)
    reward = ERROR_POLICY.reward(score, no_reward=None)
    return {"score": reward, **{f"{k}": v for k, v in score.components.items()},
            "correct": float(score.correct), "error": float(score.is_error), "verdict": score.verdict.value}
