"""Each row of a batch sampled with its own seed, whatever else shares the batch.

`generate`'s own sampling draws every row from one random stream, so what a prompt gets depends on
which prompts share its batch. Here each row draws its token from softmax(logits / T) (top-p
filtered) by inverse CDF with a uniform number that is a counter-based hash of the row's own seed
and the step: a row's draws depend on its seed and its probabilities alone. A batch sampled again gives
the same rows, and a row does not change when other rows' seeds do (on the CPU and on a GPU). Alone
against in another batch, a row's probabilities can move in their last bits (matrix kernels block by
the batch's shape), which changes a token only where the row's number falls that close to a boundary.
Both decoders (batched.py through `generate`, static_decode.py from fixed buffers) draw this way.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from .base import Sampling, prompt_seed


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


class Ends(NamedTuple):
    """Where a row ends: the tokenizer's end token (an id, a list of ids, or None), and the pad
    written after it."""

    pad_token_id: int
    eos_token_id: Any


class Prompts(NamedTuple):
    """What to continue: left-padded prompt ids and their mask; each prompt is continued
    `sampling.n` times, row r sampled with `seeds[r]` (None: greedy)."""

    input_ids: Any
    attention_mask: Any
    seeds: Sequence[int] | None


def check_seeds(sampling: Sampling, seeds: Sequence[int] | None, rows: int) -> None:
    """Sampling (not greedy) takes one seed per row: rows are seeded each on its own, never from
    `sampling.seed` and their place in the batch."""
    if sampling.temperature > 0 and (seeds is None or len(seeds) != rows):
        raise ValueError("sampling needs one seed per row")


def token_positions(attention_mask: Any) -> Any:
    """Each token's position counting real tokens only (a left-padded row starts at 0), as `generate` counts them."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
