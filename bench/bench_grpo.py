"""Seconds per GRPO step, side by side in one run on this machine: our loop with transformers
rollouts, our loop with vLLM rollouts (a colocated engine, synced every step), and TRL's
GRPOTrainer (without vLLM), on one workload. Plus rollout generation alone: our transformers
backend against one plain batched `generate`.

The model is SmolLM2-135M's architecture with random weights (timings depend on the architecture
and lengths, not the weights; random weights write every token up to the limit, so every arm
generates exactly as many tokens), the reward the share of vowels (every group has a spread).
Each arm runs in its own process (a vLLM engine or TRL's accelerator state never meets another
arm). Where CUDA is present the same comparison runs on the GPU (`device: "auto"`, bfloat16; TRL in
bfloat16 and float32) and the results name the GPU (bench/results/grpo_gpu.*).

`python -m bench.bench_grpo` runs everything; `BENCH_GRPO_PGTS=P,G,TOKENS,STEPS` sets the workload
(default 4,8,64,4 on the CPU and 8,8,128,4 on a GPU, the harness's; the committed GPU run used 8,8,128,5),
`BENCH_GRPO_ARM_S` a time limit per arm. On a GPU machine without the packaged model:
`bash ../shared/gpu/make_send_folder.sh .gpu` here, then there
`pip install --no-deps --target /tmp/site .gpu/whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
BENCH_GRPO_MODEL_SRC=.gpu/model HF_HUB_OFFLINE=1 && python3 -m bench.grpo_gpu_checks && python3 -m
bench.bench_grpo` (the correctness checks first; the kit's own `bash .gpu/run_on_gpu.sh .gpu` runs its
reference parts). About 6 minutes on one H100.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import verifiers
from bench.common import write_results
from verifiers.game24.verifier import Game24Verifier
from verifiers.score import Score, Verdict

ARMS = ("ours_transformers", "ours_checkpointing", "ours_vllm", "trl", "generate")
GPU_ONLY = ("ours_checkpointing",)  # our loop with gradient checkpointing, as TRL runs by default


@verifiers.register("vowels-bench")
class Vowels(Game24Verifier):
    """game24's tasks and prompts; the reward is the completion's share of vowels."""

    def evaluate(self, completion: str, task: Any) -> Score:
        share = sum(c in "aeiou" for c in completion) / max(1, len(completion))
        return Score(share, Verdict.PARTIAL, {"vowels": share}, None, "share of vowels")


def workload(cuda: bool) -> tuple[int, int, int, int]:
    default = "8,8,128,4" if cuda else "4,8,64,4"
    p, g, tokens, steps = (int(x) for x in os.environ.get("BENCH_GRPO_PGTS", default).split(","))
    return p, g, tokens, steps


def make_model(folder: Path) -> None:
    """SmolLM2-135M's architecture and tokenizer with random weights, as a model folder: from the
    packaged model, or from a folder with its config and tokenizer (`BENCH_GRPO_MODEL_SRC`, as the
    GPU kit in ../shared/gpu sends it to a machine without the package)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    source = os.environ.get("BENCH_GRPO_MODEL_SRC")
    if source:
        config, tokenizer = AutoConfig.from_pretrained(source), AutoTokenizer.from_pretrained(source)
    else:
        from evalkit.models import load_transformers

        packaged, tokenizer = load_transformers()
        config = packaged.config
    torch.manual_seed(0)
    net = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    net.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


# ---------------------------------------------------------------------------------------------- the arms
def arm_ours(folder: str, backend: str, cuda: bool, checkpointing: bool = False) -> dict[str, Any]:
    from evalkit.grpo import GRPOConfig, GRPOTrainer

    p, g, tokens, steps = workload(cuda)
    cfg = GRPOConfig(
        verifier="vowels-bench",
        verifier_config={"prompt_style": "short"},
        model=folder,
        batch_prompts=p,
        group_size=g,
        max_tokens=tokens,
        learning_rate=1e-6,
        temperature=1.0,
        top_p=1.0,
        beta=0.04,
        advantage="group",
        eval_every=0,
        generation_backend=backend,
        vllm_kv_cache_gb=1.0,
        gradient_checkpointing=checkpointing,
    )
    with tempfile.TemporaryDirectory() as tmp:
        trainer = GRPOTrainer(cfg, Path(tmp))
        lines = [trainer.train_step() for _ in range(steps)]
        trainer.close()
    keys = ("step_s", "generate_s", "score_s", "sync_s", "update_s", "tokens_per_s", "rollout_logp_gap")
    after_first = lines[1:]
    out = {k: statistics.median(line[k] for line in after_first) for k in keys if k in after_first[0]}
    out["peak_memory_bytes"] = max((line["peak_memory_bytes"] or 0) for line in lines) or None
    out["length_mean"] = statistics.mean(line["length_mean"] for line in after_first)
    out["steps_s"] = [line["step_s"] for line in lines]  # every step, so the spread shows
    out["generate_steps_s"] = [line["generate_s"] for line in lines]
    if cuda:  # why the decode step could not be replayed as a CUDA graph, if it could not
        from evalkit.generation.static_decode import RECORDING_FAILED

        out["graph_recording_failed"] = RECORDING_FAILED[:1]
    return out


def arm_trl(folder: str, cuda: bool) -> dict[str, Any]:
    import torch
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from evalkit.adapters import trl_reward

    p, g, tokens, steps = workload(cuda)
    v = verifiers.get("vowels-bench", prompt_style="short")
    tasks = v.tasks("train", limit=p * (steps + 1))
    data = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": v.prompt(t)}], "numbers": t["numbers"]} for t in tasks]
    )
    marks: list[float] = []

    class Timer(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            marks.append(time.perf_counter())

        def on_step_end(self, args, state, control, **kw):
            marks.append(time.perf_counter())

    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    out: dict[str, Any] = {}
    for label, bf16 in (("bf16", True), ("fp32", False)) if cuda else (("fp32", False),):
        marks.clear()
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        with tempfile.TemporaryDirectory() as tmp:
            args = GRPOConfig(
                output_dir=tmp,
                model_init_kwargs={"dtype": "bfloat16" if bf16 else "float32"},
                per_device_train_batch_size=p * g,
                num_generations=g,
                max_completion_length=tokens,
                max_steps=steps,
                learning_rate=1e-6,
                use_cpu=not cuda,
                report_to=[],
                save_strategy="no",
                bf16=bf16,
                temperature=1.0,
                top_p=1.0,
                beta=0.04,
                logging_steps=1,
            )
            trainer = GRPOTrainer(
                model=folder,
                reward_funcs=[trl_reward(v)],
                args=args,
                train_dataset=data,
                processing_class=tokenizer,
                callbacks=[Timer()],
            )
            trainer.train()
        seconds = [marks[i + 1] - marks[i] for i in range(0, len(marks) - 1, 2)]
        out[label] = {
            "step_s": statistics.median(seconds[1:]),
            "steps_s": seconds,
            "peak_memory_bytes": torch.cuda.max_memory_allocated() if cuda else None,
        }
    v.close()
    return out


def arm_generate(folder: str, cuda: bool) -> dict[str, Any]:
    """Our transformers backend against one plain batched `generate` (the peer), same prompts."""
    import torch

    from evalkit.devices import resolve_device, resolve_dtype
    from evalkit.generation.base import Sampling
    from evalkit.generation.hf import TransformersBackend

    p, g, tokens, _steps = workload(cuda)
    v = verifiers.get("vowels-bench", prompt_style="short")
    conversations = [[{"role": "user", "content": v.prompt(t)}] for t in v.tasks("test", limit=p)]
    backend = TransformersBackend(folder)
    sampling = Sampling(n=g, temperature=1.0, top_p=1.0, max_tokens=tokens, seed=0)
    model, tok = backend.model, backend.tokenizer
    device = resolve_device("auto")
    dtype = resolve_dtype("auto", device)
    texts = [tok.apply_chat_template(c, add_generation_prompt=True, tokenize=False) for c in conversations]
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(device)

    def plain() -> None:
        with torch.no_grad():
            model.generate(
                **enc,
                do_sample=True,
                temperature=1.0,
                top_p=1.0,
                max_new_tokens=tokens,
                min_new_tokens=tokens,
                num_return_sequences=g,
                pad_token_id=tok.pad_token_id,
            )

    def seconds(run: Callable[[], Any]) -> float:
        """The second of two runs: the first loads kernels and sizes the allocator for these shapes."""
        run()
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        run()
        if cuda:
            torch.cuda.synchronize()
        return time.perf_counter() - start

    ours = seconds(lambda: backend.generate(conversations, sampling))
    peer = seconds(plain)
    return {"ours_s": ours, "plain_generate_s": peer, "dtype": str(dtype), "samples": p * g}


def run_arm(name: str, folder: str, cuda: bool) -> dict[str, Any]:
    """One arm in its own process; its figures, or the reason it did not run (over
    `BENCH_GRPO_ARM_S` seconds, default an hour, included)."""
    timeout = float(os.environ.get("BENCH_GRPO_ARM_S", 3600))
    code = f"import json, bench.bench_grpo as b; print('RESULT ' + json.dumps(b._arm({name!r}, {folder!r}, {cuda})))"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"failed": f"over {timeout:g} s"}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    return {"failed": (done.stderr.strip().splitlines() or ["no output"])[-1][:300]}


def _arm(name: str, folder: str, cuda: bool) -> dict[str, Any]:
    if name == "ours_transformers":
        return arm_ours(folder, "transformers", cuda)
    if name == "ours_checkpointing":
        return arm_ours(folder, "transformers", cuda, checkpointing=True)
    if name == "ours_vllm":
        return arm_ours(folder, "vllm", cuda)
    if name == "trl":
        return arm_trl(folder, cuda)
    return arm_generate(folder, cuda)


def main() -> dict:
    import importlib.util

    import torch

    from evalkit.devices import device_name, resolve_device

    cuda = torch.cuda.is_available()
    device = device_name(resolve_device("auto"))
    p, g, tokens, steps = workload(cuda)
    arms = [a for a in ARMS if a != "ours_vllm" or importlib.util.find_spec("vllm") is not None]
    arms = [a for a in arms if cuda or a not in GPU_ONLY]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        make_model(Path(tmp))
        for arm in arms:
            results[arm] = run_arm(arm, tmp, cuda)
            print(f"{arm}: {json.dumps(results[arm])}", flush=True)
    figures: dict[str, Any] = {"device": device, "prompts": p, "group": g, "max_tokens": tokens, "steps": steps}
    figures.update(results)
    trl = results["trl"].get("bf16" if cuda else "fp32", {}).get("step_s")
    ours = results["ours_transformers"].get("step_s")
    vllm = results.get("ours_vllm", {}).get("step_s")
    if trl and ours:
        figures["transformers_over_trl"] = ours / trl
    if trl and vllm:
        figures["vllm_over_trl"] = vllm / trl
    if ours and vllm:
        figures["vllm_over_transformers"] = vllm / ours
    gen = results["generate"]
    if "ours_s" in gen:
        figures["generate_over_plain"] = gen["ours_s"] / gen["plain_generate_s"]

    def phases(r: dict[str, Any]) -> str:
        if "failed" in r:
            return f"did not run: {r['failed']}"
        parts = [f"{k[:-2]} {r[k]:.2f}" for k in ("generate_s", "score_s", "sync_s", "update_s") if k in r]
        gap = f", log-prob gap {r['rollout_logp_gap']:.1e}" if "rollout_logp_gap" in r else ""
        memory = f", peak {r['peak_memory_bytes'] / 2**30:.2f} GiB" if r.get("peak_memory_bytes") else ""
        return f"{', '.join(parts)} s; {r.get('tokens_per_s', 0):.0f} tokens/s{gap}{memory}"

    def ratio(x: float | None, target: str) -> str:
        return f"{x:.2f}x TRL ({target})" if x else "n/a"

    table = [("trainer", "s per step (median)", "vs TRL", "where the time goes")]
    table.append(
        (
            "evalkit, transformers rollouts",
            f"{ours:.2f}" if ours else "n/a",
            ratio(figures.get("transformers_over_trl"), "target <= 1.0x"),
            phases(results["ours_transformers"]),
        )
    )
    if "ours_checkpointing" in results:
        checkpointed = results["ours_checkpointing"].get("step_s")
        table.append(
            (
                "evalkit, transformers rollouts, gradient checkpointing",
                f"{checkpointed:.2f}" if checkpointed else "n/a",
                ratio(checkpointed / trl if checkpointed and trl else None, "as TRL runs by default"),
                phases(results["ours_checkpointing"]),
            )
        )
    if "ours_vllm" in results:
        table.append(
            (
                "evalkit, vLLM rollouts (colocated)",
                f"{vllm:.2f}" if vllm else "n/a",
                ratio(figures.get("vllm_over_trl"), "target <= 0.5x")
                + (f"; {figures['vllm_over_transformers']:.2f}x transformers rollouts" if vllm and ours else ""),
                phases(results["ours_vllm"]),
            )
        )
    for label, r in results["trl"].items() if "failed" not in results["trl"] else []:
        memory = f"peak {r['peak_memory_bytes'] / 2**30:.2f} GiB" if r.get("peak_memory_bytes") else ""
        table.append(
            (f"TRL GRPOTrainer ({label})", f"{r['step_s']:.2f}", "1.00x" if r["step_s"] == trl else "", memory)
        )
    if "ours_s" in gen:
        table.append(
            (
                f"generation alone, {gen['samples']} samples",
                f"{gen['ours_s']:.2f} (ours)",
                f"{figures['generate_over_plain']:.2f}x one plain batched generate ({gen['plain_generate_s']:.2f} s)",
                gen["dtype"],
            )
        )
    write_results(
        "grpo_gpu" if cuda else "grpo",
        figures,
        table,
        notes=f"On {device}: SmolLM2-135M's architecture (random weights), {p} prompts x G={g}, exactly {tokens} "
        f"new tokens, {steps} steps (median after the first), beta 0.04, lr 1e-6, temperature 1, the share of "
        "vowels as reward; each arm in its own process, one after another. Our loop runs with device/dtype "
        "'auto' (float32 on the CPU, bfloat16 autocast over float32 weights on a GPU); TRL with its defaults "
        "(gradient checkpointing on; with bf16, bfloat16 weights and optimiser state).",
    )
    return figures


if __name__ == "__main__":
    main()
