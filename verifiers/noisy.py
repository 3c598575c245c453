"""A deliberately inaccurate reward, for studying what reward accuracy does to training (the seed's
003 question): any verifier, with a stated error model.

Error model ("flip"): each scored item's reward is replaced, with probability `flip_probability`,
by its mirror image in the inner verifier's reward range, `low + high - reward` (for a 0/1 reward:
a right answer scored as wrong and a wrong one as right). Whether an item is flipped is decided by
a hash of `(seed, task, completion)`: the same completion of the same task always gets the same
reward, as from a checker with a systematic blind spot, and runs are reproducible. INVALID and
ERROR items are never flipped (a format failure is not the kind of mistake a checker makes).

The verdict stays the inner verifier's, so accuracy measured on these scores is still the truth;
`info["noise"]` records whether the reward was flipped and the true reward.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from .base import Verifier, setting
from .registry import get, register
from .score import Score, Verdict

ERROR_MODELS = ("flip",)


@dataclass(frozen=True)
class NoisyConfig:
    verifier: str = "game24"
    verifier_config: dict[str, Any] = field(default_factory=dict)
    flip_probability: float = setting(0.0, client="free")
    error_model: str = setting("flip", client="free")
    seed: int = setting(0, client="free")

    def validate(self) -> None:
        if not 0.0 <= self.flip_probability <= 1.0:
            raise ValueError(f"flip_probability must be in [0, 1], got {self.flip_probability}")
        if self.error_model not in ERROR_MODELS:
            raise ValueError(f"error_model must be one of {ERROR_MODELS}")
        if self.verifier == "noisy":
            raise ValueError("noisy wraps another verifier, not itself")


@register("noisy")
class NoisyVerifier(Verifier):
    """The inner verifier's scores, each reward flipped with a stated probability."""

    Config = NoisyConfig

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.inner = get(self.config.verifier, **self.config.verifier_config)

    def reward_bounds(self) -> tuple[float, float]:
        return self.inner.reward_bounds()

    def time_budget(self) -> float | None:
        return self.inner.time_budget()

    def flipped(self, completion: str, task: Mapping[str, Any]) -> bool:
        """Whether this item's reward is flipped: a uniform draw from a hash of seed, task and completion."""
        key = json.dumps([self.config.seed, task, completion], sort_keys=True, default=str).encode()
        draw = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") / 2**64
        return draw < self.config.flip_probability

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        score = self.inner.score(completion, task)
        if score.verdict in (Verdict.INVALID, Verdict.ERROR):
            return score
        flip = self.flipped(completion, task)
        low, high = self.reward_bounds()
        reward = low + high - score.reward if flip else score.reward
        noise = {"model": self.config.error_model, "flipped": flip, "true_reward": score.reward}
        return replace(score, reward=reward, info={**score.info, "noise": noise})

    def prompt(self, task: Mapping[str, Any]) -> str:
        return self.inner.prompt(task)

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        return self.inner.tasks(split, limit=limit, seed=seed)

    def task_from_ground_truth(self, ground_truth: Any) -> dict[str, Any]:
        return self.inner.task_from_ground_truth(ground_truth)

    def close(self) -> None:
        super().close()
        self.inner.close()
