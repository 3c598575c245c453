"""What GRPO optimises: rewards turned into advantages, and the clipped surrogate with a KL penalty.

Advantages (`advantage=`), and what an all-equal group gets under each:
- "group": (r - mean_g) / (std_g + 1e-4) within each prompt's group (population std): all-equal -> 0.
- "dr_grpo": r - mean_g (Dr. GRPO, no std): all-equal -> 0.
- "momentum" (the seed): batch mean and std smoothed across steps, mean <- m*mean + (1-m)*mean(r)
  and likewise std, with m rising from `momentum_start` by `momentum_step` per update up to
  `momentum_max` (0.2); A = (r - mean) / (std + 1e-4). All-equal groups are NOT zeroed: a group
  that beats the running mean is pushed up. The first step uses the batch statistics as they are.
Loss aggregation: "sequence" (mean over each completion's tokens, then over completions: the
seed's formula) or "token" (all tokens of the batch weigh the same).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from verifiers import Score

from .config import GRPOConfig

EPS = 1e-4


def counted(scores: Sequence[Score], error_policy: str) -> np.ndarray:
    """Which scores count as rewards: all, except ERRORs under the "drop" policy (a verifier's
    failure is never the model's zero unless the run asks for "zero"). The one place the policy is read."""
    return np.asarray([not (s.is_error and error_policy == "drop") for s in scores], dtype=bool)


def rewards_of(scores: Sequence[Score]) -> np.ndarray:
    """The rewards, an ERROR's placeholder as 0.0 (whether it counts is `counted`'s to say)."""
    return np.asarray([0.0 if s.is_error else s.reward for s in scores], dtype=float)


@dataclass
class RewardStats:
    """Running reward statistics for the momentum advantage (saved in checkpoints)."""

    mean: float | None = None
    std: float | None = None
    updates: int = 0

    def momentum(self, cfg: GRPOConfig) -> float:
        return min(cfg.momentum_max, cfg.momentum_start + cfg.momentum_step * self.updates)

    def update(self, rewards: np.ndarray, cfg: GRPOConfig) -> tuple[float, float]:
        """Fold in the batch's rewards; NaN (a dropped ERROR) is left out."""
        scored = rewards[np.isfinite(rewards)]
        if not scored.size:  # nothing scored this step: the statistics stand
            return (self.mean or 0.0), (self.std or 0.0)
        batch_mean, batch_std = float(scored.mean()), float(scored.std())
        if self.mean is None or self.std is None:
            self.mean, self.std = batch_mean, batch_std
        else:
            m = self.momentum(cfg)
            self.mean = self.mean * m + batch_mean * (1 - m)
            self.std = self.std * m + batch_std * (1 - m)
        self.updates += 1
        return self.mean, self.std


def advantages(
    rewards: np.ndarray, group_size: int, cfg: GRPOConfig, stats: RewardStats, scored: np.ndarray | None = None
) -> np.ndarray:
    """Advantages for rewards laid out group after group (B groups of G). Items not `scored` (an
    ERROR under the "drop" policy) leave the means and stds, as in TRL's nan-aware statistics, and
    get advantage 0: [1, 1, 0, error] gives [0.707, 0.707, -1.414, 0], not [1, 1, -1, 0]."""
    values = np.asarray(rewards, dtype=float).copy()
    if scored is not None:
        values[~np.asarray(scored, dtype=bool)] = np.nan
    groups = values.reshape(-1, group_size)
    with warnings.catch_warnings():  # an all-dropped group: its mean is NaN, and so its advantages (0 below)
        warnings.simplefilter("ignore", RuntimeWarning)
        if cfg.advantage == "group":
            adv = (groups - np.nanmean(groups, axis=1, keepdims=True)) / (
                np.nanstd(groups, axis=1, keepdims=True) + EPS
            )
        elif cfg.advantage == "dr_grpo":
            adv = groups - np.nanmean(groups, axis=1, keepdims=True)
        else:
            mean, std = stats.update(values, cfg)
            adv = (groups - mean) / (std + EPS)
    return np.nan_to_num(adv.reshape(-1), nan=0.0)


def group_has_signal(rewards: np.ndarray, scored: np.ndarray, group_size: int) -> np.ndarray:
    """Per group: True when its scored rewards differ (a group with one reward for all gives every
    member advantage 0 under group normalisation: nothing to learn from)."""
    values = np.where(np.asarray(scored, dtype=bool), np.asarray(rewards, dtype=float), np.nan).reshape(-1, group_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        spread = np.nanmax(values, axis=1) - np.nanmin(values, axis=1)
    return np.nan_to_num(spread, nan=0.0) > 1e-9


def loss_denominator(mask: Any, cfg: GRPOConfig) -> float:
    """What the loss averages over: the rows with a counted token ("sequence") or the counted tokens
    ("token"). Summed over a whole step, it lets a step taken in several passes (gradient
    accumulation, `logits_budget`, dynamic sampling's parts) give the loss of one pass."""
    if cfg.loss_aggregation == "sequence":
        return float((mask.sum(1) > 0).sum())
    return float(mask.sum())


def grpo_loss(
    logp: Any, old_logp: Any, ref_logp: Any, adv: Any, mask: Any, cfg: GRPOConfig, denominator: float | None = None
) -> tuple[Any, dict[str, float]]:
    """Clipped surrogate minus beta * k3 KL; `mask` marks completion tokens that count. The sum over
    these rows divided by `denominator` (the step's `loss_denominator`; by default these rows')."""
    import torch

    ratio = torch.exp(logp - old_logp)
    high = cfg.epsilon_high if cfg.epsilon_high is not None else cfg.epsilon
    clipped = torch.clamp(ratio, 1 - cfg.epsilon, 1 + high)
    surrogate = torch.minimum(ratio * adv[:, None], clipped * adv[:, None])
    log_ref_ratio = ref_logp - logp
    kl = torch.exp(log_ref_ratio) - log_ref_ratio - 1  # k3: unbiased, always >= 0
    per_token = -(surrogate - cfg.beta * kl)
    if cfg.loss_aggregation == "sequence":  # each row's token mean; a row without counted tokens adds 0
        summed = ((per_token * mask).sum(1) / mask.sum(1).clamp(min=1)).sum()
    else:
        summed = (per_token * mask).sum()
    loss = summed / max(loss_denominator(mask, cfg) if denominator is None else denominator, 1.0)
    n = mask.sum().clamp(min=1)
    kl, ratio = kl.detach(), ratio.detach()
    clip_frac = (((ratio < 1 - cfg.epsilon) | (ratio > 1 + high)).float() * mask).sum() / n
    return loss, {"kl": float((kl * mask).sum() / n), "clip_fraction": float(clip_frac)}
