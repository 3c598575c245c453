"""A thin GRPO loop that trains a transformers model on any verifier's rewards, on the CPU or a GPU.

Read it in this order: `config` (the settings and their checks), `objective` (advantages and the
loss), `logprobs` (what the update measures), `rollouts` and `vllm_rollouts` (where samples come
from), `trainer` (one step, top to bottom), `run` (steps to disk, resumable), `plots`.
"""

from .config import ADVANTAGES, GENERATION_BACKENDS, ConfigError, GRPOConfig
from .logprobs import completion_logits, completion_width, sequence_logprobs
from .objective import EPS, RewardStats, advantages, counted, group_has_signal, grpo_loss
from .rollouts import RolloutBatch, TransformersRollouts
from .run import train
from .trainer import GRPOTrainer, RolloutDrift

__all__ = [
    "ADVANTAGES",
    "EPS",
    "GENERATION_BACKENDS",
    "ConfigError",
    "GRPOConfig",
    "GRPOTrainer",
    "RewardStats",
    "RolloutBatch",
    "RolloutDrift",
    "TransformersRollouts",
    "advantages",
    "completion_logits",
    "completion_width",
    "counted",
    "group_has_signal",
    "grpo_loss",
    "sequence_logprobs",
    "train",
]
