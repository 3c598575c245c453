"""Sampling from key/value buffers allocated once, so that on a GPU one decode step is recorded as
a CUDA graph and replayed for every later token.

Why: at the sizes GRPO is first tried on (135M to 1B parameters) a decode step over a batch is a
few hundred small kernels, and launching them one by one from Python takes longer than running
them (the GPU sat at 0-29% busy under TRL's `generate`). A recorded graph launches them all in one
call. transformers' own route there (a static cache under torch.compile) compiles for minutes, and
again for each new prompt width; recording the eager step costs one step.

The samples are `generate_rows`' (batched.py): the same per-row seeds and inverse-CDF draw, the
same positions (real tokens counted, as `generate` counts them), each prompt's pass shared by its
group, the same padding after a row's end token. Only the memory differs: each row attends over
one cache of fixed width through a mask that opens one column a step.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from transformers.cache_utils import Cache

from evalkit.devices import autocast

from .base import Sampling
from .row_sampling import Ends, Prompts, check_seeds, sample_rows, token_positions

# architectures whose every layer attends to the whole past through one attention call that
# takes a ready 4D mask (a sliding window or a hybrid layer would need another cache)
FULL_ATTENTION_MODELS = ("llama", "qwen2", "qwen3")
MASKED_ATTENTION = ("sdpa", "eager")  # those that take an additive 4D mask as it is
END_CHECK_EVERY = 16  # decode steps between looks at whether every row has ended (a host round trip)
RECORDING_FAILED: list[str] = []  # why graphs failed in this process; later calls then step one by one
GRAPHS_CHECKED: set[tuple[str, str]] = set()  # (model type, dtype) whose replays matched step by step


def static_decode_unsupported(model: Any) -> str | None:
    """Why `model` cannot decode from fixed buffers, or None when it can."""
    config = model.config
    if config.model_type not in FULL_ATTENTION_MODELS:
        return f"model type {config.model_type!r} is not one of {FULL_ATTENTION_MODELS}"
    if getattr(config, "use_sliding_window", False):
        return "a sliding attention window"
    if any(kind != "full_attention" for kind in getattr(config, "layer_types", None) or ()):
        return "layers that do not attend to the whole past"
    if config._attn_implementation not in MASKED_ATTENTION:
        return f"attention {config._attn_implementation!r} does not take a 4D mask"
    return None


class RowCache(Cache):
    """Every layer's keys and values in [rows, heads, width, dim] buffers at fixed addresses.

    The prompt pass (`prefilling`) runs once per prompt and writes its keys and values `repeat`
    times, once for each row of the group; after it, each step writes one column, at `column` (a
    one-element tensor the caller advances, so a recorded graph reads it afresh on each replay)."""

    def __init__(self, repeat: int, width: int, column: Any) -> None:
        super().__init__(layers=[])
        self.repeat, self.width, self.column = repeat, width, column
        self.keys: dict[int, Any] = {}
        self.values: dict[int, Any] = {}
        self.prefilling = True

    def update(self, key_states: Any, value_states: Any, layer_idx: int, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        import torch

        if self.prefilling:
            span = key_states.shape[2]
            for store, new in ((self.keys, key_states), (self.values, value_states)):
                if layer_idx not in store:
                    rows, heads, _, dim = new.shape
                    shape = (rows * self.repeat, heads, self.width, dim)
                    store[layer_idx] = torch.zeros(shape, dtype=new.dtype, device=new.device)
                store[layer_idx][:, :, :span] = new.repeat_interleave(self.repeat, 0)
            return key_states, value_states
        self.keys[layer_idx].index_copy_(2, self.column, key_states)
        self.values[layer_idx].index_copy_(2, self.column, value_states)
        return self.keys[layer_idx], self.values[layer_idx]

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return 0  # what a model derives from it (positions, a mask) every call here passes ready


def graph_of(step: Callable[[], None]) -> Callable[[], None] | None:
    """Runs `step` once (on a side stream: the warm-up a recording needs), then records it as a
    CUDA graph (not run): the call that replays it, or None, with a warning, where the step holds
    an operation a graph cannot (then it runs step by step)."""
    import torch

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            step()
    except Exception as exc:  # a host round trip inside the model, say: correct, only slower
        RECORDING_FAILED.append(f"{type(exc).__name__}: {exc}")
        warnings.warn(f"decoding step by step: recording a CUDA graph failed ({RECORDING_FAILED[-1]})", stacklevel=2)
        return None
    return graph.replay


def ends_in(tokens: Any, ends: Any) -> Any:
    """Which of `tokens` are end tokens: one comparison against each (a graph records it; `isin`
    may pick a path by the tensors' sizes)."""
    return (tokens[..., None] == ends).any(-1)


def additive_mask(allowed: Any, dtype: Any) -> Any:
    """0 where a query may attend, the dtype's lowest value where it may not (as eager and SDPA
    attention both read a float mask)."""
    import torch

    return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill(~allowed, torch.finfo(dtype).min)


def decode_rows(model: Any, prompts: Prompts, sampling: Sampling, ends: Ends, dtype: Any, graph: bool = False) -> Any:
    """`sampling.n` continuations of each left-padded prompt, as `generate_rows` samples them
    (prompt + completion ids, rows grouped by prompt, the pad token after a row's end token, as
    wide as the longest completion), computed in `dtype` (autocast over the model's weights).

    `graph`: record the decode step as a CUDA graph and replay it (the model on a GPU). The first
    time a process does so for a kind of model and dtype, the same rows are decoded step by step
    too and must come out bit for bit the same (the same kernels run either way); where they do
    not, graphs are dropped for the process with a warning: replaying may only ever be faster."""
    import torch

    graph = graph and not RECORDING_FAILED
    rows = _decode(model, prompts, sampling, ends, dtype, graph=graph)
    kind = (model.config.model_type, str(dtype))
    if graph and not RECORDING_FAILED and kind not in GRAPHS_CHECKED:
        stepped = _decode(model, prompts, sampling, ends, dtype, graph=False)
        GRAPHS_CHECKED.add(kind)
        if not torch.equal(rows, stepped):
            RECORDING_FAILED.append(f"a replayed graph decoded other tokens than step by step ({kind})")
            warnings.warn(f"decoding step by step: {RECORDING_FAILED[-1]}", stacklevel=2)
            return stepped
    return rows


def attention_kernels(device: Any, dtype: Any) -> Any:
    """On a GPU in bfloat16 or float16, attention through PyTorch's math kernel, in the graph and
    step by step alike: with the fused kernels (memory-efficient, flash) a replayed bfloat16 decode
    step wrote other tokens than the same step run eagerly (on an H200, 60 of 64 rows differed over
    128 sampled tokens, so the replay check dropped graphs), while with the math kernel all 64 agree
    and the replay decodes 4.4x faster than step by step (bench/grpo_gpu_checks.py's check, with the
    math kernel forced). Elsewhere (the CPU, float32) nothing changes."""
    import contextlib

    import torch

    if device.type != "cuda" or dtype not in (torch.bfloat16, torch.float16):
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.MATH])


def _decode(model: Any, prompts: Prompts, sampling: Sampling, stop: Ends, dtype: Any, graph: bool) -> Any:
    import torch

    input_ids, attention_mask, seeds = prompts
    group_size, temperature, top_p, max_tokens = sampling.n, sampling.temperature, sampling.top_p, sampling.max_tokens
    pad_token_id, eos_token_id = stop
    device = input_ids.device
    n_prompts, width = input_ids.shape
    rows = n_prompts * group_size
    check_seeds(sampling, seeds, rows)
    end_ids = [eos_token_id] if isinstance(eos_token_id, int) else list(eos_token_id or [])
    ends = torch.tensor(end_ids, dtype=torch.long, device=device)
    row_seeds = torch.tensor(list(seeds or [0] * rows), dtype=torch.int64, device=device)
    column = torch.tensor([width], device=device)  # where the last sampled token's keys go
    step = torch.zeros(1, dtype=torch.long, device=device)  # the index of the token being sampled
    cache = RowCache(group_size, width + max_tokens, column)
    real = attention_mask.bool()
    mask_dtype = model.dtype if dtype in (None, torch.float32) else dtype  # the queries' dtype

    with torch.no_grad(), attention_kernels(device, dtype):
        causal = torch.ones(width, width, dtype=torch.bool, device=device).tril()
        with autocast(device, dtype):
            first = model(
                input_ids=input_ids,
                attention_mask=additive_mask(causal[None, None] & real[:, None, None, :], mask_dtype),
                position_ids=token_positions(attention_mask),
                past_key_values=cache,
                use_cache=True,
                logits_to_keep=1,
            ).logits[:, -1]
        cache.prefilling = False
        last = sample_rows(first.repeat_interleave(group_size, 0), row_seeds, 0, temperature, top_p)
        tokens = torch.full((rows, max_tokens), pad_token_id, dtype=torch.long, device=device)
        tokens[:, :1] = last
        ended = ends_in(last[:, 0], ends)
        positions = real.sum(1).repeat_interleave(group_size, 0)[:, None]  # the position of `last`
        opened = torch.zeros(rows, 1, 1, cache.width, dtype=torch.bool, device=device)
        opened[..., :width] = real.repeat_interleave(group_size, 0)[:, None, None, :]
        mask = additive_mask(opened, mask_dtype)

        def advance() -> None:
            """One token for every row: `last` through the model, the next one sampled."""
            mask.index_fill_(3, column, 0.0)  # each row now sees the column `last` is written to
            with autocast(device, dtype, cache=not graph):
                logits = model(
                    input_ids=last,
                    attention_mask=mask,
                    position_ids=positions,
                    past_key_values=cache,
                    use_cache=True,
                    logits_to_keep=1,
                ).logits[:, -1]
            step.add_(1)
            drawn = sample_rows(logits, row_seeds, step, temperature, top_p)
            drawn = torch.where(ended[:, None], pad_token_id, drawn)
            tokens.index_copy_(1, step, drawn)
            ended.logical_or_(ends_in(drawn[:, 0], ends))
            last.copy_(drawn)
            positions.add_(1)
            column.add_(1)

        run, done = advance, 1
        if graph and max_tokens > 2:
            run, done = graph_of(advance) or advance, 2
        while done < max_tokens:
            if done % END_CHECK_EVERY == 0 and bool(ended.all()):
                break
            run()
            done += 1

    is_end = ends_in(tokens, ends)
    lengths = torch.where(is_end.any(1), is_end.float().argmax(1) + 1, max_tokens)
    return torch.cat([input_ids.repeat_interleave(group_size, 0), tokens[:, : int(lengths.max())]], 1)
