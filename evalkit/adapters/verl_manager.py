"""A verl reward manager with no silent zeros: an ERROR item (a verifier failure, a bad label) gets
the mean reward of the valid items of its own group, so GRPO gives it advantage 0 instead of
training on a 0.0 that pushes a right answer down as hard as an empty one. Load it with

    reward.reward_manager.source=importlib
    reward.reward_manager.module.path=/path/to/evalkit/adapters/verl_manager.py
    reward.reward_manager.name=EvalkitRewardManager
    reward.custom_reward_function.path=/path/to/evalkit/adapters/verl.py

It is verl's `naive` manager except for that: each item is scored by `compute_score` (the evalkit
adapter, called once per item as verl does), and the ERROR items are given their group's value in
`assemble_rm_scores`, which verl calls once with the whole batch. A group is the items with the
same `uid` (what GRPO normalises over), else the same ground truth. A group with no valid item gets
0.0. Every replacement is counted in the log (`evalkit: N ERROR rewards replaced ...`).

Only in verl's reward loop (0.9); it imports verl, so it lives apart from `verl.py`, which does not.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from typing import Any

from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager

log = logging.getLogger("evalkit.adapters")


class EvalkitRewardManager(NaiveRewardManager):
    """verl's naive manager whose ERROR items take their group's mean valid reward."""

    async def run_single(self, data: Any) -> dict:
        out = await super().run_single(data)
        if out["reward_extra_info"].get("error"):
            out["reward_score"] = math.nan  # decided in assemble_rm_scores, with the whole batch in view
        return out

    @classmethod
    def assemble_rm_scores(cls, data: Any, scores: list[float]) -> Any:
        return super().assemble_rm_scores(data, neutral_rewards(scores, group_keys(data)))


def group_keys(data: Any) -> list[str]:
    """Each item's group: its `uid` when the trainer set one, else its ground truth."""
    batch = data.non_tensor_batch
    if "uid" in batch:
        return [str(u) for u in batch["uid"]]
    return [repr(rm.get("ground_truth")) if isinstance(rm, dict) else repr(rm) for rm in batch["reward_model"]]


def neutral_rewards(scores: list[float], groups: list[str]) -> list[float]:
    """NaN (an ERROR) becomes the mean of the valid rewards of its group, 0.0 when it has none."""
    valid: dict[str, list[float]] = defaultdict(list)
    for score, group in zip(scores, groups):
        if not math.isnan(score):
            valid[group].append(score)
    out, replaced = [], 0
    for score, group in zip(scores, groups):
        if math.isnan(score):
            replaced += 1
            values = valid.get(group)
            score = sum(values) / len(values) if values else 0.0
        out.append(score)
    if replaced:
        log.warning(
            "evalkit: %d ERROR rewards replaced by their group's mean valid reward (of %d items)", replaced, len(out)
        )
    return out
