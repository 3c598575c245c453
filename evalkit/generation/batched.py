"""Sampling many prompts in one batched decode, each row with its own seed: from fixed key/value
buffers where the model allows (static_decode.py, a CUDA graph on a GPU), else in one transformers
`generate` call.

`generate`'s own sampling draws every row from one random stream, so what a prompt gets depends on
which prompts share its batch. Here each row draws its token from softmax(logits / T) (top-p
filtered) by inverse CDF with a uniform number that is a counter-based hash of the row's own seed
and the step: a row's draws depend on its seed and its probabilities alone. A batch sampled again gives
the same rows, and a row does not change when other rows' seeds do (on the CPU and on a GPU). Alone
against in another batch, a row's probabilities can move in their last bits (matrix kernels block by
the batch's shape), which changes a token only where the row's number falls that close to a boundary.

Rows sharing a prompt (a GRPO group, `n` samples) reuse one pass over the prompt: its keys and
values are computed once and repeated for the group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .base import prompt_seed


def _signed(value: int) -> int:
    """A 64-bit constant as the signed integer torch stores (it has no uint64 arithmetic)."""
    return value - (1 << 64) if value >= 1 << 63 else value


# splitmix64's constants, and an odd one that spreads the step over the counter
_GOLDEN, _MIX1, _MIX2, _STEP = (
    _signed(v) for v in (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0x632BE59BD9B4E019)
)


def row_seeds(base_seed: int, keys: Sequence[str]) -> list[int]:
    """One seed per row from a key that names the row (its prompt and sample number, say)."""
    return [prompt_seed(base_seed, key) for key in keys]


def _shift(x: Any, bits: int) -> Any:
    """Logical right shift of int64 values (torch's `>>` is arithmetic)."""
    return (x >> bits) & ((1 << (64 - bits)) - 1)


def row_uniforms(seeds: Any, step: Any) -> Any:
    """One float in (0, 1) per row, a pure function of (row seed, step): splitmix64 of a counter,
    computed on the seeds' device in a few vectorised integer operations (int64 arithmetic wraps
    as uint64 would; the constants travel as kernel arguments, never as copies to the device).
    `step` is an int, or a one-element tensor (a recorded CUDA graph reads it at each replay)."""
    offset = _signed(step * (_STEP % (1 << 64)) % (1 << 64)) if isinstance(step, int) else step * _STEP
    x = (seeds + offset) * _GOLDEN
    x = (x ^ _shift(x, 30)) * _MIX1
    x = (x ^ _shift(x, 27)) * _MIX2
    x = x ^ _shift(x, 31)
    return (_shift(x, 11).double() + 0.5) / float(1 << 53)


def sample_rows(scores: Any, seeds: Any, step: Any, temperature: float, top_p: float) -> Any:
    """Each row's token, shape [rows, 1]: the first whose cumulative probability under
    softmax(scores / temperature), top-p filtered, passes the row's uniform number for `step`
    (inverse CDF), or the arg max where `temperature` is 0. No host round trip: a CUDA graph can
    record it."""
    import torch

    if temperature <= 0:
        return scores.argmax(-1, keepdim=True)
    probs = (scores.float() / temperature).softmax(-1)
    if top_p < 1.0:  # the smallest set of top tokens whose probability reaches top_p
        ordered, order = torch.sort(probs, descending=True, dim=-1)
        beyond = ordered.cumsum(-1) - ordered >= top_p  # the top token always stays
        probs = probs.masked_fill(beyond.scatter(-1, order, beyond), 0.0)
    cumulative = probs.double().cumsum(-1)
    target = row_uniforms(seeds, step) * cumulative[:, -1]
    return torch.searchsorted(cumulative, target[:, None]).clamp(max=scores.shape[-1] - 1)


class RowSampler:
    """A transformers logits processor that samples each row with its own seed (see the module
    docstring), for use with greedy decoding: it leaves the sampled token the only finite score.
    The draw is by inverse CDF: the first token whose cumulative probability passes the row's
    uniform number for this step."""

    def __init__(self, seeds: Sequence[int], prompt_width: int, temperature: float, top_p: float, device: Any) -> None:
        import torch

        self.seeds = torch.tensor(list(seeds), dtype=torch.int64, device=device)
        self.prompt_width = prompt_width
        self.temperature = temperature
        self.top_p = top_p

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        step = input_ids.shape[1] - self.prompt_width
        chosen = sample_rows(scores, self.seeds, step, self.temperature, self.top_p)
        out = torch.full_like(scores, float("-inf"))
        return out.scatter(-1, chosen, 0.0)


@dataclass(frozen=True)
class RowSampling:
    """How every row is sampled (greedy when `temperature` is 0) and where it ends."""

    temperature: float
    top_p: float
    max_new_tokens: int
    pad_token_id: int
    eos_token_id: Any  # an id, a list of ids, or None

    def check_seeds(self, seeds: Sequence[int] | None, rows: int) -> None:
        """Sampling (not greedy) takes one seed per row."""
        if self.temperature > 0 and (seeds is None or len(seeds) != rows):
            raise ValueError("sampling needs one seed per row")


def generate_rows(
    model: Any,
    input_ids: Any,
    attention_mask: Any,
    group_size: int,
    seeds: Sequence[int] | None,
    *,
    temperature: float,
    top_p: float,
    max_new_tokens: int,
    pad_token_id: int,
    eos_token_id: Any,
    extra: dict[str, Any] | None = None,
    dtype: Any = None,
) -> Any:
    """`group_size` continuations of each (left-padded) prompt, rows grouped by prompt; row r is
    sampled with `seeds[r]` (greedy when `temperature` is 0). `extra`: other generation settings
    (`repetition_penalty`, ...), applied before sampling. `dtype`: the precision to compute in
    (autocast over the weights; None: the weights' own). Returns prompt + completion ids.

    Where the model allows and nothing `extra` is asked for, decoding runs from buffers allocated
    once, replayed as a CUDA graph on a GPU (static_decode.py); otherwise through `generate`."""
    from .static_decode import decode_rows, static_decode_unsupported

    taken = sorted(set(extra or {}) & {"do_sample", "temperature", "top_p", "top_k", "num_return_sequences"})
    if taken:
        raise ValueError(f"set {taken} through the sampling settings, not as extra generation settings")
    sampling = RowSampling(temperature, top_p, max_new_tokens, pad_token_id, eos_token_id)
    if not extra and static_decode_unsupported(model) is None:
        graph = input_ids.device.type == "cuda"
        return decode_rows(model, input_ids, attention_mask, group_size, seeds, sampling, dtype, graph)
    return generate_rows_hf(model, input_ids, attention_mask, group_size, seeds, sampling, dtype, extra)


def generate_rows_hf(
    model: Any,
    input_ids: Any,
    attention_mask: Any,
    group_size: int,
    seeds: Sequence[int] | None,
    sampling: RowSampling,
    dtype: Any = None,
    extra: dict[str, Any] | None = None,
) -> Any:
    """`generate_rows` through transformers' `generate`, with `RowSampler` drawing the tokens (any
    model, any extra generation setting)."""
    import torch
    from transformers import GenerationConfig, LogitsProcessorList

    from evalkit.devices import autocast

    sampling.check_seeds(seeds, input_ids.shape[0] * group_size)
    config = GenerationConfig(
        do_sample=False,
        max_new_tokens=sampling.max_new_tokens,
        pad_token_id=sampling.pad_token_id,
        eos_token_id=sampling.eos_token_id,
        **(extra or {}),
    )
    processors = LogitsProcessorList()
    if sampling.temperature > 0:
        sampler = RowSampler(seeds or [], input_ids.shape[1], sampling.temperature, sampling.top_p, input_ids.device)
        processors.append(sampler)
    ids = input_ids.repeat_interleave(group_size, 0)
    mask = attention_mask.repeat_interleave(group_size, 0)
    with torch.no_grad(), autocast(input_ids.device, dtype):
        if input_ids.shape[1] < 2 or group_size == 1:
            return model.generate(
                input_ids=ids, attention_mask=mask, generation_config=config, logits_processor=processors
            )
        # all but the last prompt token once per prompt: `generate` runs what its cache does not hold yet
        cache = prompt_cache(model, input_ids[:, :-1], attention_mask[:, :-1], group_size)
        return model.generate(
            input_ids=ids,
            attention_mask=mask,
            past_key_values=cache,
            generation_config=config,
            logits_processor=processors,
        )


def token_positions(attention_mask: Any) -> Any:
    """Each token's position counting real tokens only (a left-padded row starts at 0), as `generate` counts them."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)


def prompt_pass(model: Any, input_ids: Any, attention_mask: Any, group_size: int) -> Any:
    """One pass over each prompt (its last position's logits kept), its keys and values then
    repeated `group_size` times in place, ready for the group's rows to continue from."""
    out = model(
        input_ids=input_ids,
        attention_mask=attention_mask,
        position_ids=token_positions(attention_mask),
        use_cache=True,
        logits_to_keep=1,
    )
    out.past_key_values.batch_repeat_interleave(group_size)
    return out


def prompt_cache(model: Any, input_ids: Any, attention_mask: Any, group_size: int) -> Any:
    return prompt_pass(model, input_ids, attention_mask, group_size).past_key_values
