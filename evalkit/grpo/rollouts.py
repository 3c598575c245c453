"""Rollouts: G sampled completions for each prompt, laid out as the update reads them.

A batch is a `RolloutBatch`: tensors on the policy's device and lists, one row per completion.

Two sources share that layout: `TransformersRollouts` samples with the policy itself (batched,
each row with its own seed), `VllmRollouts` (vllm_rollouts.py) with an engine whose weights are
the policy's. Both take one seed per row, so a prompt's samples never depend on its batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol, Sequence

from evalkit.generation.base import Sampling
from evalkit.generation.batched import Ends, generate_rows


@dataclass(frozen=True)
class RolloutSettings:
    """How every rollout source samples (`sampling.n` rows a prompt: the group), at the trainer's
    precision. Rows are seeded one by one (`Rollouts.sample`), so `sampling.seed` is not read."""

    sampling: Sampling
    dtype: Any  # the compute dtype (torch)
    response_prefix: str = ""  # put before each decoded completion (the assistant turn began with it)

    @property
    def group_size(self) -> int:
        return self.sampling.n


class Rollouts(Protocol):
    def sample(self, prompts: Sequence[str], seeds: Sequence[int]) -> RolloutBatch:
        """`group_size` completions of each prompt (chat text), row r sampled with `seeds[r]`."""

    def sync(self, policy: Any) -> None:
        """Make the sampler's weights the policy's (after each optimiser step)."""

    def close(self) -> None: ...


@dataclass
class RolloutBatch:
    """G sampled completions for each prompt, laid out as the update reads them."""

    input_ids: Any  # `[left-padded prompt | completion, right-padded]` rows, G to a prompt
    attention_mask: Any
    completion_mask: Any  # 1 on completion tokens up to and including the end token
    texts: list[str]  # decoded, with the response prefix
    lengths: list[int]  # completion tokens per row
    truncated: list[bool]  # rows that hit max_tokens
    tokens: int  # completion tokens in all
    tasks: list[dict[str, Any]] = field(default_factory=list)  # each row's task (the trainer sets them)
    rollout_logp: Any = None  # the engine's log-probability of each sampled token (vLLM), else None

    def to(self, device: Any) -> "RolloutBatch":
        """The batch with its tensors on `device`."""
        tensors = ("input_ids", "attention_mask", "completion_mask", "rollout_logp")
        return replace(self, **{k: getattr(self, k).to(device) for k in tensors if getattr(self, k) is not None})

    def rows(self, rows: Any) -> "RolloutBatch":
        """The batch restricted to `rows` (the groups kept by dynamic sampling)."""
        import torch

        def pick(value: Any) -> Any:
            if isinstance(value, torch.Tensor):
                return value[torch.as_tensor(rows, dtype=torch.long, device=value.device)]
            return [value[int(r)] for r in rows] if isinstance(value, list) else value

        picked = {k: pick(getattr(self, k)) for k in ("input_ids", "attention_mask", "completion_mask", "rollout_logp")}
        lists = {k: pick(getattr(self, k)) for k in ("texts", "lengths", "truncated", "tasks")}
        return replace(self, **picked, **lists, tokens=int(sum(lists["lengths"])))


def assemble(
    prompt_ids: Any,
    prompt_mask: Any,
    completions: Any,
    lengths: Any,
    finished: Any,
    tokenizer: Any,
    settings: RolloutSettings,
) -> RolloutBatch:
    """The batch from left-padded prompts and right-padded completions with their lengths (end
    token included where a row finished)."""
    import torch

    width, group_size = completions.shape[1], settings.group_size
    completion_mask = (torch.arange(width, device=completions.device)[None, :] < lengths[:, None]).long()
    repeated_mask = prompt_mask.repeat_interleave(group_size, 0)
    texts = [
        settings.response_prefix + tokenizer.decode(row[: int(n)], skip_special_tokens=True)
        for row, n in zip(completions.tolist(), lengths.tolist())
    ]
    return RolloutBatch(
        input_ids=torch.cat([prompt_ids.repeat_interleave(group_size, 0), completions], 1),
        attention_mask=torch.cat([repeated_mask, completion_mask], 1),
        completion_mask=torch.cat([torch.zeros_like(repeated_mask), completion_mask], 1),
        texts=texts,
        lengths=lengths.tolist(),
        truncated=(~finished).tolist(),
        tokens=int(lengths.sum()),
    )


class TransformersRollouts:
    """Sampling with the policy itself: one batched decode over every prompt, each prompt's keys
    and values computed once for its group, in the trainer's precision (a CUDA graph replayed per
    token on a GPU: see evalkit/generation/static_decode.py)."""

    def __init__(self, policy: Any, tokenizer: Any, settings: RolloutSettings) -> None:
        self.policy, self.tokenizer, self.settings = policy, tokenizer, settings

    def sample(self, prompts: Sequence[str], seeds: Sequence[int]) -> RolloutBatch:
        import torch

        tok, device = self.tokenizer, next(self.policy.parameters()).device
        enc = tok(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False).to(device)
        self.policy.eval()
        out = generate_rows(
            self.policy,
            enc["input_ids"],
            enc["attention_mask"],
            seeds,
            self.settings.sampling,
            Ends(tok.pad_token_id, tok.eos_token_id),
            dtype=self.settings.dtype,
        )
        completion = out[:, enc["input_ids"].shape[1] :]
        is_end = completion == tok.eos_token_id
        finished = is_end.any(1)
        full = torch.full_like(finished, completion.shape[1], dtype=torch.long)
        lengths = torch.where(finished, is_end.float().argmax(1) + 1, full)  # up to and including the end token
        return assemble(enc["input_ids"], enc["attention_mask"], completion, lengths, finished, tok, self.settings)

    def sync(self, policy: Any) -> None:
        """Nothing to do: the sampler is the policy."""

    def close(self) -> None:
        pass
