"""Generation backends behind one interface: vLLM (offline engine), transformers, and any
OpenAI-compatible HTTP server. `make_backend(name, model, **options)` picks one.

Generation never imports a verifier: data flows tasks -> prompts -> generation -> completions -> scores.
"""

from __future__ import annotations

from typing import Any

from .base import Backend, Conversation, Generation, Sampling

BACKENDS = {
    "transformers": "evalkit.generation.hf:TransformersBackend",
    "vllm": "evalkit.generation.vllm_engine:VllmBackend",
    "openai": "evalkit.generation.openai_http:OpenAIBackend",
}


def make_backend(name: str, model: str | None = None, **options: Any) -> Backend:
    import importlib

    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    module, _, cls = BACKENDS[name].partition(":")
    return getattr(importlib.import_module(module), cls)(model=model, **options)


__all__ = ["BACKENDS", "Backend", "Conversation", "Generation", "Sampling", "make_backend"]
