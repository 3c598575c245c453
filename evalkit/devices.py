"""Where a model runs and in what precision: one rule for the GRPO loop and the transformers backend.

- device "auto": the first CUDA GPU when there is one, else the CPU; or "cpu", "cuda", "cuda:N".
- dtype "auto": bfloat16 on a GPU that supports it, float32 elsewhere; or "float32", "bfloat16",
  "float16".

The same config therefore runs unchanged on a laptop and on a GPU. `check_device` and `check_dtype`
refuse a value that cannot work in one line that names it, and import torch only when the answer
depends on the machine, so a config is checked before any model loads.
"""

from __future__ import annotations

import re
from typing import Any

DTYPES = ("auto", "float32", "bfloat16", "float16")
_DEVICE = re.compile(r"(auto|cpu|cuda(:\d+)?)\Z")


def check_device(name: Any) -> None:
    """Refuse a device this machine cannot run on (`cuda` without a GPU), or no device at all."""
    if not isinstance(name, str) or not _DEVICE.match(name):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {name!r}")
    if name.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"device {name!r}: this machine has no CUDA GPU (use 'auto' or 'cpu')")
        index = int(name.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            raise ValueError(f"device {name!r}: this machine has {torch.cuda.device_count()} CUDA GPU(s)")


def check_dtype(name: Any) -> None:
    if name not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {name!r}")


def resolve_device(name: str = "auto") -> Any:
    """The torch.device that `name` means on this machine."""
    import torch

    check_device(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def resolve_dtype(name: str, device: Any) -> Any:
    """The torch dtype that `name` means on `device`: "auto" is bfloat16 on a GPU that has it."""
    import torch

    check_dtype(name)
    if name == "auto":
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    return getattr(torch, name)


def autocast(device: Any, dtype: Any, cache: bool = True) -> Any:
    """The context the loop computes in: `dtype` matrix products over float32 weights (a no-op for
    float32). Weights and optimiser state stay float32, so an update of 1e-6 is never rounded away
    as it would be in bfloat16 weights (8 bits of mantissa: a step below 1/256 of a weight vanishes).
    `cache=False` where a CUDA graph is recorded: its cast weights must live in the graph's memory.
    None: the weights' own precision."""
    import contextlib

    import torch

    if dtype is None or dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype, cache_enabled=cache)


def reset_peak_memory(device: Any) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory_bytes(device: Any) -> int | None:
    """Peak accelerator memory allocated since the last reset; None on the CPU."""
    import torch

    return int(torch.cuda.max_memory_allocated(device)) if device.type == "cuda" else None


def device_name(device: Any) -> str:
    """What the device is, for results files: the GPU's name, or "cpu"."""
    import torch

    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
