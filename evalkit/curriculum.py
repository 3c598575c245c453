"""Which training prompts a GRPO step draws: uniformly, or more often the ones the policy still fails.

Why: a policy that has learned one trick (on countdown-2, adding the two numbers) solves those
prompts in every sample, and a group whose rewards do not vary teaches nothing; the prompts that need
what it has not learned (× and −) are drawn no more often than the solved ones. With
`prompt_sampling: "failures"` each prompt's weight is FLOOR + (1 - FLOOR) × (1 - its running accuracy),
1 until first seen, so solved prompts keep a tenth of their share and the rest fill the batch.
"""

from __future__ import annotations

import json
import random
from typing import Any, Sequence

import numpy as np

SAMPLINGS = ("uniform", "failures")
FLOOR = 0.1  # the weight a prompt the policy always solves keeps
DECAY = 0.5  # the running accuracy's weight on its past: a prompt's last groups count most


def task_key(task: dict[str, Any]) -> str:
    return str(task["id"]) if "id" in task else json.dumps(task, sort_keys=True, default=str)


class PromptSampler:
    """Draws `k` prompts per round and learns, from each scored group, how often each prompt is solved."""

    def __init__(self, how: str = "uniform") -> None:
        if how not in SAMPLINGS:
            raise ValueError(f"prompt_sampling must be one of {SAMPLINGS}, got {how!r}")
        self.how = how
        self.accuracy: dict[str, float] = {}

    def draw(self, rng: random.Random, tasks: Sequence[dict[str, Any]], k: int) -> list[dict[str, Any]]:
        if self.how == "uniform":
            return [rng.choice(tasks) for _ in range(k)]
        weights = [self.weight(task) for task in tasks]
        return rng.choices(list(tasks), weights=weights, k=k)

    def weight(self, task: dict[str, Any]) -> float:
        solved = self.accuracy.get(task_key(task), 0.0)
        return FLOOR + (1.0 - FLOOR) * (1.0 - solved)

    def record(self, tasks: Sequence[dict[str, Any]], correct: np.ndarray, group_size: int) -> None:
        """`tasks`: one per group; `correct`: one 0/1 per sample, group after group."""
        for task, group in zip(tasks, np.asarray(correct, dtype=float).reshape(-1, group_size)):
            key, now = task_key(task), float(group.mean())
            past = self.accuracy.get(key)
            self.accuracy[key] = now if past is None else DECAY * past + (1.0 - DECAY) * now

    def state(self) -> dict[str, Any]:
        return {"how": self.how, "accuracy": dict(self.accuracy)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "PromptSampler":
        sampler = cls(state["how"])
        sampler.accuracy = dict(state["accuracy"])
        return sampler
