"""Sampling many prompts in one batched decode, each row with its own seed (row_sampling.py): from
fixed key/value buffers where the model allows (static_decode.py, a CUDA graph on a GPU), else in
one transformers `generate` call.

Rows sharing a prompt (a GRPO group, `n` samples) reuse one pass over the prompt: its keys and
values are computed once and repeated for the group.
"""

from __future__ import annotations

from typing import Any, Sequence

from .base import Sampling
from .row_sampling import Ends, Prompts, check_seeds, row_seeds, sample_rows, token_positions

__all__ = ["Ends", "Prompts", "RowSampler", "generate_rows", "generate_rows_hf", "prompt_cache", "row_seeds"]


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


def generate_rows(
    model: Any,
    input_ids: Any,
    attention_mask: Any,
    seeds: Sequence[int] | None,
    sampling: Sampling,
    ends: Ends,
    dtype: Any = None,
) -> Any:
    """`sampling.n` continuations of each (left-padded) prompt, rows grouped by prompt, each at
    most `sampling.max_tokens` long; row r is sampled with `seeds[r]` (greedy when the temperature
    is 0). `sampling.extra`: other generation settings (`repetition_penalty`, ...), applied before
    sampling. `dtype`: the precision to compute in (autocast over the weights; None: the weights'
    own). Returns prompt + completion ids.

    Where the model allows and nothing `extra` is asked for, decoding runs from buffers allocated
    once, replayed as a CUDA graph on a GPU (static_decode.py); otherwise through `generate`."""
    from .static_decode import decode_rows, static_decode_unsupported  # it loads transformers

    taken = sorted(set(sampling.extra) & {"do_sample", "temperature", "top_p", "top_k", "num_return_sequences"})
    if taken:
        raise ValueError(f"set {taken} through the sampling settings, not as extra generation settings")
    prompts = Prompts(input_ids, attention_mask, seeds)
    if not sampling.extra and static_decode_unsupported(model) is None:
        graph = input_ids.device.type == "cuda"
        return decode_rows(model, prompts, sampling, ends, dtype, graph)
    return generate_rows_hf(model, prompts, sampling, ends, dtype)


def generate_rows_hf(model: Any, prompts: Prompts, sampling: Sampling, ends: Ends, dtype: Any = None) -> Any:
    """`generate_rows` through transformers' `generate`, with `RowSampler` drawing the tokens (any
    model, any extra generation setting)."""
    import torch
    from transformers import GenerationConfig, LogitsProcessorList

    from evalkit.devices import autocast

    input_ids, attention_mask, seeds = prompts
    group_size = sampling.n
    check_seeds(sampling, seeds, input_ids.shape[0] * group_size)
    config = GenerationConfig(
        do_sample=False,
        max_new_tokens=sampling.max_tokens,
        pad_token_id=ends.pad_token_id,
        eos_token_id=ends.eos_token_id,
        **sampling.extra,
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


def prompt_cache(model: Any, input_ids: Any, attention_mask: Any, group_size: int) -> Any:
    """The keys and values of one pass over each prompt, repeated `group_size` times in place,
    ready for the group's rows to continue from."""
    out = model(
        input_ids=input_ids,
        attention_mask=attention_mask,
        position_ids=token_positions(attention_mask),
        use_cache=True,
        logits_to_keep=1,
    )
    out.past_key_values.batch_repeat_interleave(group_size)
    return out.past_key_values
