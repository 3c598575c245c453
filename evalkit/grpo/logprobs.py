"""Log-probabilities of sampled completions under a model, as the update needs them.

A batch is laid out as `[left-padded prompt | completion]` rows, `group_size` rows to a prompt (a
GRPO group). Logits are computed for the completion positions only, and each group's prompt goes
through the model once (its keys and values repeated for the group's rows): the same numbers and
gradients as a full pass per row, without the cost of the prompt G times.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from evalkit.generation.row_sampling import token_positions


def row_passes(rows: int, width: int, vocab: int, group_size: int, splits: int, budget: int) -> list[slice]:
    """The rows of each forward pass over a batch: `splits` passes (gradient accumulation), more
    while one pass's float32 logits (rows x width x vocab) would exceed `budget` elements. A pass
    takes whole groups where one fits, so its prompts still go through the model once a group."""
    per_pass = math.ceil(rows / splits)
    fits = max(1, budget // max(1, width * vocab))
    if fits < per_pass:
        per_pass = fits // group_size * group_size or fits
    return [slice(start, min(rows, start + per_pass)) for start in range(0, rows, per_pass)]


def completion_width(completion_mask: Any) -> int:
    """How many trailing columns hold completion tokens (the prompt is left-padded before them)."""
    return int(completion_mask.shape[1] - completion_mask.any(0).float().argmax())


class LogprobParts(NamedTuple):
    """What one pass over a batch gives the update (each [rows, completion_width], 0 off the completion)."""

    logp: Any  # log-probabilities of the sampled tokens at the sampling temperature (with grad)
    entropy: Any | None  # each position's entropy at that temperature (detached), unless not asked for
    raw_logp: Any | None  # at temperature 1 (detached), to compare with an engine's raw log-probs


# models whose logits are their output embedding applied to the last hidden state, nothing after
# (no soft-capping, no scale): their head can run a few rows at a time
PLAIN_HEAD_MODELS = ("llama", "qwen2", "qwen3", "mistral")
HEAD_CHUNK_ELEMENTS = 1 << 25  # logits computed at once by the chunked head (128 MiB in float32)


def logprob_parts(
    model: Any,
    input_ids: Any,
    attention_mask: Any,
    completion_mask: Any,
    temperature: float,
    group_size: int = 1,
    with_raw: bool = False,
    with_entropy: bool = True,
) -> LogprobParts:
    """Log-probabilities of the completion tokens under `model` (temperature-scaled, as sampled),
    each position's entropy (the number that shows a policy collapsing) and, with `with_raw`, the
    log-probabilities at temperature 1. Only the completion positions reach the vocabulary: its
    projection of the prompt positions would be most of the work and is never used. Rows come
    `group_size` to a prompt (a GRPO group): see `completion_outputs`.

    Memory: [rows, k, vocab] logits would dominate (2 GB in float32 for 64 rows of 128 tokens over
    SmolLM2's 49k tokens, and as much again for their gradient). For a plain head
    (`PLAIN_HEAD_MODELS`) they never exist at once: the head runs a few rows at a time and, while
    training, is run again in the backward pass (activation checkpointing of the head alone, as
    Liger's fused cross-entropy does), so only the hidden states are kept."""
    import torch
    from torch.utils.checkpoint import checkpoint  # the head run again in the backward pass

    k = completion_width(completion_mask)
    mask = completion_mask[:, -k:]
    tokens = input_ids[:, -k:, None]
    scale = 1 / max(temperature, 1e-5) if temperature != 1 else None
    if model.config.model_type in PLAIN_HEAD_MODELS:
        states = completion_outputs(model, input_ids, attention_mask, k, group_size, states=True)
        head = model.get_output_embeddings()
        rows = max(1, HEAD_CHUNK_ELEMENTS // max(1, k * head.weight.shape[0]))
        parts = []
        for chunk, chosen in zip(states.split(rows), tokens.split(rows)):
            if torch.is_grad_enabled():
                stats = checkpoint(token_stats, head, chunk, chosen, scale, with_entropy, with_raw, use_reentrant=False)
            else:
                stats = token_stats(head, chunk, chosen, scale, with_entropy, with_raw)
            parts.append(stats)
    else:  # any other head: its whole logits at once
        logits = completion_outputs(model, input_ids, attention_mask, k, group_size)
        parts = [token_stats(None, logits, tokens, scale, with_entropy, with_raw)]
    logp, entropy, raw_logp = (None if p[0] is None else torch.cat(p) * mask for p in zip(*parts))
    return LogprobParts(logp, entropy, raw_logp)


def token_stats(
    head: Any, values: Any, tokens: Any, scale: float | None, with_entropy: bool, with_raw: bool
) -> tuple[Any, Any | None, Any | None]:
    """(log-probability of each sampled token at the sampling temperature, each position's entropy
    at it or None, the log-probability at temperature 1 or None) from hidden states through `head`,
    or from logits where `head` is None."""
    import torch

    raw = values if head is None else head(values)
    raw = raw.to(torch.promote_types(raw.dtype, torch.float32))  # bf16/fp16 up to float32; float64 stays
    logits = raw if scale is None else raw * scale
    normaliser = torch.logsumexp(logits, dim=-1)  # never a second [rows, k, vocab] tensor of log-probs
    logp = logits.gather(-1, tokens).squeeze(-1) - normaliser
    with torch.no_grad():
        entropy = entropies(logits, normaliser) if with_entropy else None
        raw_logp = None
        if with_raw:
            raw_logp = logp.detach() if scale is None else raw.gather(-1, tokens).squeeze(-1) - raw.logsumexp(-1)
    return logp, entropy, raw_logp


def entropies(logits: Any, normaliser: Any, elements: int = 1 << 24) -> Any:
    """Each position's entropy, log Z - sum(p * logit), over row chunks of about `elements` values:
    the probabilities never exist for the whole batch at once."""
    import torch

    rows = max(1, elements // max(1, logits.shape[1] * logits.shape[2]))
    parts = [z - (chunk.softmax(-1) * chunk).sum(-1) for chunk, z in zip(logits.split(rows), normaliser.split(rows))]
    return torch.cat(parts)


def sequence_logprobs(
    model: Any, input_ids: Any, attention_mask: Any, completion_mask: Any, temperature: float, group_size: int = 1
) -> Any:
    """The sampled tokens' log-probabilities alone (see `logprob_parts`), shape [rows, completion_width]."""
    return logprob_parts(
        model, input_ids, attention_mask, completion_mask, temperature, group_size, with_entropy=False
    ).logp


def completion_logits(model: Any, input_ids: Any, attention_mask: Any, k: int, group_size: int = 1) -> Any:
    """The logits that predict the last `k` tokens of each row, shape [batch, k, vocab]."""
    return completion_outputs(model, input_ids, attention_mask, k, group_size)


def completion_outputs(
    model: Any, input_ids: Any, attention_mask: Any, k: int, group_size: int = 1, states: bool = False
) -> Any:
    """The logits that predict the last `k` tokens of each row, shape [batch, k, vocab]; with
    `states`, the last hidden states the output embedding turns into them, [batch, k, hidden].

    Positions count real tokens only (a left-padded prompt starts at 0), as `generate` counts them,
    so a row is scored at the positions it was sampled at, whatever its padding.
    Where each run of `group_size` rows shares one prompt (as GRPO samples them), the prompt goes
    through the model once per group and its keys and values are repeated for the group's
    completions: the same numbers and gradients as a full pass per row, without paying for the
    prompt G times (with a few worked examples in the prompt, most of the update's cost).
    Not while the model checkpoints its layers (see `drops_caches`): then each row takes a full pass."""
    import torch

    net = model.get_decoder() if states else model

    def run(ids: Any, mask: Any, positions: Any, keep: int, past: Any = None) -> Any:
        """The model's last `keep` outputs for `ids` (and its cache, when it continues one or starts one)."""
        out = net(
            input_ids=ids,
            attention_mask=mask,
            position_ids=positions,
            past_key_values=past,
            use_cache=past is not None or keep == 1,
            **({} if states else {"logits_to_keep": keep}),
        )
        return (out.last_hidden_state[:, -keep:] if states else out.logits), out.past_key_values

    positions = token_positions(attention_mask)
    rows, width = input_ids.shape
    p = width - k
    shareable = group_size > 1 and p > 0 and rows % group_size == 0 and not drops_caches(model)
    if shareable and prompts_shared(input_ids, attention_mask, p, group_size):
        one = slice(None, None, group_size)
        last, cache = run(input_ids[one, :p], attention_mask[one, :p], positions[one, :p], 1)
        cache.batch_repeat_interleave(group_size)
        rest, _ = run(input_ids[:, p:], attention_mask, positions[:, p:], k, cache)
        return torch.cat([last.repeat_interleave(group_size, 0), rest[:, :-1]], 1)
    whole, _ = run(input_ids, attention_mask, positions, k + 1)
    return whole[:, :-1]


def drops_caches(model: Any) -> bool:
    """Whether `model` recomputes its layers in the backward pass (gradient checkpointing while it
    trains): transformers then drops any cache passed to a layer, with only a warning, so rows
    continued from a shared prompt pass would silently not see their prompt."""
    return bool(getattr(model, "is_gradient_checkpointing", False)) and model.training


def prompts_shared(input_ids: Any, attention_mask: Any, p: int, group_size: int) -> bool:
    """Whether every run of `group_size` rows has one prompt (its first `p` tokens and their mask)."""
    for tensor in (input_ids[:, :p], attention_mask[:, :p]):
        groups = tensor.reshape(-1, group_size, p)
        if not bool((groups == groups[:, :1]).all()):
            return False
    return True
