"""Verifiers inside RL frameworks with no glue: TRL reward functions, verl's compute_score,
OpenRLHF's reward_func and remote reward protocol. One error policy for all of them."""

from .errors import ErrorPolicy
from .openrlhf import reward_func
from .trl import trl_reward
from .verl import compute_score

__all__ = ["ErrorPolicy", "compute_score", "reward_func", "trl_reward"]
