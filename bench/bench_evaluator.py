"""Evaluator overhead and backend speed, side by side in one run on the same prompts:
- `evaluate()` (generation + scoring overlapped + JSONL + resume bookkeeping) against bare
  `backend.generate()` of the same samples with the same backend and seeds (target <= 1.1x);
- vLLM against transformers, output tokens per second, same prompts and model.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import verifiers
from bench.common import write_results
from evalkit.generation import Sampling, make_backend
from evalkit.pipeline import evaluate

N_TASKS, SAMPLING = 8, Sampling(n=4, max_tokens=64, seed=0)


def _timed_generate(backend, conversations) -> tuple[float, int]:
    start = time.perf_counter()
    out = backend.generate(conversations, SAMPLING)
    return time.perf_counter() - start, sum(g.tokens for gens in out for g in gens)


def main() -> dict:
    v = verifiers.get("game24")
    tasks = v.tasks("test", limit=N_TASKS)
    conversations = [[{"role": "user", "content": v.prompt(t)}] for t in tasks]

    hf = make_backend("transformers")
    bare_s, hf_tokens = _timed_generate(hf, conversations)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        evaluate(v, tasks, hf, SAMPLING, Path(tmp) / "run")
        eval_s = time.perf_counter() - start
    hf.close()

    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    start = time.perf_counter()
    vl = make_backend("vllm", max_model_len=1024)
    vllm_load_s = time.perf_counter() - start
    vllm_s, vllm_tokens = _timed_generate(vl, conversations)
    vl.close()

    figures = {
        "bare_generate_s": bare_s,
        "evaluate_s": eval_s,
        "evaluate_over_bare": eval_s / bare_s,
        "transformers_tokens_per_s": hf_tokens / bare_s,
        "vllm_tokens_per_s": vllm_tokens / vllm_s,
        "vllm_over_transformers": (vllm_tokens / vllm_s) / (hf_tokens / bare_s),
        "vllm_load_s": vllm_load_s,
        "samples": N_TASKS * SAMPLING.n,
        "max_tokens": SAMPLING.max_tokens,
    }
    table = [
        ("measure", "value", "ratio"),
        ("bare transformers generate, 32 samples", f"{bare_s:.1f} s", "1.00"),
        ("evalkit evaluate(), same samples", f"{eval_s:.1f} s", f"{eval_s / bare_s:.2f}x (target <= 1.1x)"),
        ("transformers output tokens/s", f"{hf_tokens / bare_s:.0f}", "1.00"),
        ("vLLM (CPU) output tokens/s", f"{vllm_tokens / vllm_s:.0f}", f"{figures['vllm_over_transformers']:.2f}x"),
        ("vLLM engine load", f"{vllm_load_s:.0f} s", ""),
    ]
    write_results(
        "evaluator",
        figures,
        table,
        notes="SmolLM2-135M-Instruct, 8 game24 prompts x 4 samples, 64 new tokens, 2 CPU cores.",
    )
    return figures


if __name__ == "__main__":
    main()
