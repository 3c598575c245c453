"""The GRPO loop's correctness checks on a CUDA GPU: what tests/grpo/test_grpo_device.py proves on the
CPU in CI, run where no CI machine reaches. Results: bench/results/grpo_gpu_checks.{json,md}.

- a bfloat16 step at lr 1e-6 changes every trainable tensor (float32 master weights under autocast);
- one fixed batch gives the same loss in float32 on the CPU and on the GPU, and close to it in bfloat16;
- gradient checkpointing gives the update it replaces;
- per-row seeds: how many rows sample the same text alone as in a batch (exact on the CPU in float32;
  on a GPU a batch's shape may move a probability in its last bits, see evalkit/generation/row_sampling.py);
- CUDA-graph decoding writes what step-by-step decoding writes, and how much faster it is;
- a GPU this machine lacks (`cuda:N` past the last) is refused in one line.

The model is SmolLM2-135M's architecture with random weights (as bench/bench_grpo.py makes it: its
near-uniform next-token distributions are the hardest case for the seed check). On the GPU machine:
`PYTHONPATH=$PWD BENCH_GRPO_MODEL_SRC=.gpu/model python3 -m bench.grpo_gpu_checks`.
"""

from __future__ import annotations

import copy
import os
import tempfile
import traceback
from pathlib import Path
from typing import Any, Callable

import numpy as np

from bench.common import write_results

# "cuda"; "cpu" runs the same checks as a dry run on a machine without a GPU
DEVICE = os.environ.get("GRPO_CHECKS_DEVICE", "cuda")

# two prompts x a group of 4, 32 tokens each, sampled as the bench samples; beta 0.1 so the KL term counts
SAMPLING = {"max_tokens": 32, "temperature": 1.0, "top_p": 1.0}
CONFIG = {"verifier": "vowels-bench", "verifier_config": {"prompt_style": "short"}, "eval_every": 0, **SAMPLING}
CONFIG |= {"batch_prompts": 2, "group_size": 4, "learning_rate": 1e-6, "beta": 0.1}


def _trainer(model: Any, tok: Any, run_dir: Path, **settings: Any) -> Any:
    from evalkit.grpo import GRPOConfig, GRPOTrainer

    return GRPOTrainer(GRPOConfig(**{**CONFIG, **settings}), run_dir, copy.deepcopy(model), tok)


def _fixed_batch(trainer: Any) -> Any:
    """A part of two prompts' rollouts with fixed rewards (so every device trains on the same)."""
    from evalkit.grpo import GRPOConfig, advantages
    from evalkit.grpo.trainer import Part

    batch = trainer.sample(trainer.tasks[:2])
    rewards = np.array([1.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.2])
    adv = advantages(rewards, 4, GRPOConfig(advantage="group"), trainer.stats)
    return Part(batch, adv, np.ones(8, dtype=bool))


def check_bf16_step(model: Any, tok: Any, tmp: Path) -> dict[str, Any]:
    import torch

    trainer = _trainer(model, tok, tmp / "bf16", device=DEVICE, dtype="bfloat16")
    before = {n: p.detach().clone() for n, p in trainer.policy.named_parameters()}
    logs = trainer.update([_fixed_batch(trainer)])
    params = dict(trainer.policy.named_parameters())
    unchanged = [n for n in before if torch.equal(before[n], params[n])]
    moved_in_bf16 = sum(not torch.equal(before[n].bfloat16(), params[n].bfloat16()) for n in before)
    trainer.close()
    return {
        "ok": bool(not unchanged and np.isfinite(logs["loss"])),
        "tensors": len(before),
        "unchanged": len(unchanged),
        "tensors_a_bf16_copy_would_see_move": moved_in_bf16,
        "master_dtype": str(next(iter(params.values())).dtype),
    }


def check_same_loss(model: Any, tok: Any, tmp: Path) -> dict[str, Any]:
    """One batch (sampled on the CPU), one update each: CPU float32, GPU float32, GPU bfloat16. The
    reference is moved off the policy so the KL term counts; the sampled tokens' log-probs compared too."""
    import torch

    from evalkit.devices import autocast
    from evalkit.grpo.logprobs import sequence_logprobs
    from evalkit.grpo.trainer import Part

    out: dict[str, Any] = {}
    logp: dict[str, Any] = {}
    batch = None
    for label, device, dtype in (
        ("cpu_fp32", "cpu", "float32"),
        ("gpu_fp32", DEVICE, "float32"),
        ("gpu_bf16", DEVICE, "bfloat16"),
    ):
        trainer = _trainer(model, tok, tmp / label, device=device, dtype=dtype)
        with torch.no_grad():
            for p in trainer.reference.parameters():
                p.mul_(0.9)
        batch = batch or _fixed_batch(trainer)
        rows = batch.batch.to(trainer.device)
        ids, attn, cmask = rows.input_ids, rows.attention_mask, rows.completion_mask
        with torch.no_grad(), autocast(trainer.device, trainer.dtype):
            policy_logp = sequence_logprobs(
                trainer.policy, ids, attn, cmask, CONFIG["temperature"], CONFIG["group_size"]
            )
        logp[label] = policy_logp.float().cpu()
        logs = trainer.update([Part(rows, batch.advantages, batch.keep)])
        out[label] = {"loss": logs["loss"], "grad_norm": logs["grad_norm"], "kl": logs.get("kl")}
        trainer.close()
    out["fp32_loss_gap"] = abs(out["gpu_fp32"]["loss"] - out["cpu_fp32"]["loss"])
    out["bf16_loss_gap"] = abs(out["gpu_bf16"]["loss"] - out["cpu_fp32"]["loss"])
    out["fp32_max_logp_gap"] = float((logp["gpu_fp32"] - logp["cpu_fp32"]).abs().max())
    out["bf16_max_logp_gap"] = float((logp["gpu_bf16"] - logp["cpu_fp32"]).abs().max())
    out["ok"] = out["fp32_loss_gap"] < 1e-4 and out["fp32_max_logp_gap"] < 1e-3
    return out


def check_checkpointing(model: Any, tok: Any, tmp: Path) -> dict[str, Any]:
    from evalkit.devices import peak_memory_bytes, reset_peak_memory

    out: dict[str, Any] = {}
    batch = None
    for checkpointing in (False, True):
        trainer = _trainer(
            model,
            tok,
            tmp / f"gc{checkpointing}",
            device=DEVICE,
            dtype="bfloat16",
            gradient_checkpointing=checkpointing,
        )
        batch = batch or _fixed_batch(trainer)
        reset_peak_memory(trainer.device)
        logs = trainer.update([batch])
        out[f"checkpointing_{checkpointing}"] = {
            "loss": logs["loss"],
            "grad_norm": logs["grad_norm"],
            "peak_memory_bytes": peak_memory_bytes(trainer.device),
        }
        trainer.close()
    a, b = out["checkpointing_False"], out["checkpointing_True"]
    out["ok"] = abs(a["loss"] - b["loss"]) < 1e-3 and abs(a["grad_norm"] - b["grad_norm"]) <= 1e-2 * a["grad_norm"]
    return out


def check_row_seeds(model: Any, tok: Any, tmp: Path) -> dict[str, Any]:
    """What per-row seeds guarantee on this device, in float32 and bfloat16: a batch sampled twice
    gives the same rows; a row does not change when every other row's seed does (same batch); and,
    as a figure, how many rows sample the same alone as in the batch (the batch's shape may move a
    probability in its last bits, which changes a token where a row's draw sits on a boundary)."""
    import torch

    from evalkit.generation import Sampling
    from evalkit.generation.batched import Ends, generate_rows, row_seeds

    texts = [f"Use 3, {k} and 4 to make {k + 7}." for k in range(1, 9)]
    prompts = [
        tok.apply_chat_template([{"role": "user", "content": t}], add_generation_prompt=True, tokenize=False)
        for t in texts
    ]
    group = 4
    seeds = row_seeds(7, [f"{p}:{j}" for p in prompts for j in range(group)])
    others = seeds[:group] + row_seeds(8, [f"{p}:{j}" for p in prompts[1:] for j in range(group)])
    out: dict[str, Any] = {}
    for dtype in ("float32", "bfloat16"):
        net = copy.deepcopy(model).to(DEVICE, getattr(torch, dtype))

        def sample(chosen: list[str], row_seed: list[int], net: Any = net) -> list[list[int]]:
            enc = tok(chosen, return_tensors="pt", padding=True, add_special_tokens=False).to(DEVICE)
            ids = generate_rows(
                net,
                enc["input_ids"],
                enc["attention_mask"],
                row_seed,
                Sampling(n=group, temperature=1.0, top_p=0.95, max_tokens=32),
                Ends(tok.pad_token_id, tok.eos_token_id),
            )
            return ids[:, enc["input_ids"].shape[1] :].tolist()

        batch = sample(prompts, seeds)
        again = sample(prompts, seeds)
        reseeded = sample(prompts, others)
        alone = [row for i, p in enumerate(prompts) for row in sample([p], seeds[i * group : (i + 1) * group])]
        out[dtype] = {
            "rows": len(batch),
            "same_when_sampled_again": sum(a == b for a, b in zip(batch, again)),
            "group_same_when_other_rows_reseeded": sum(a == b for a, b in zip(batch[:group], reseeded[:group])),
            "same_alone_as_in_batch": sum(a == b for a, b in zip(batch, alone)),
        }
    out["ok"] = all(
        out[d]["same_when_sampled_again"] == out[d]["rows"] and out[d]["group_same_when_other_rows_reseeded"] == group
        for d in ("float32", "bfloat16")
    )
    return out


def check_graph_decoding(model: Any, tok: Any, tmp: Path) -> dict[str, Any]:
    """CUDA-graph decoding (evalkit/generation/static_decode.py: the loop's rollouts on a GPU) writes
    what the same decoding writes step by step, bit for bit; against transformers' `generate` (the
    path before it) the same rows in float32, and in bfloat16 as many as rounding lets (see
    test_static_decode.py); and the seconds of each: 8 prompts x 8 rows x 128 tokens, bfloat16
    autocast over float32 weights, as the loop samples."""
    import time

    import torch

    from evalkit.generation import Sampling, static_decode
    from evalkit.generation.batched import Ends, Prompts, generate_rows_hf, row_seeds

    net = copy.deepcopy(model).to(DEVICE).eval()
    tokens = 128 if DEVICE == "cuda" else 16
    texts = [f"Use 3, {k} and 4 to make {k + 7}." + " Show your work." * (k % 3) for k in range(1, 9)]
    chats = [
        tok.apply_chat_template([{"role": "user", "content": t}], add_generation_prompt=True, tokenize=False)
        for t in texts
    ]
    enc = tok(chats, return_tensors="pt", padding=True, add_special_tokens=False).to(DEVICE)
    ids, attn, group = enc["input_ids"], enc["attention_mask"], 8
    seeds = row_seeds(5, [f"{c}:{j}" for c in chats for j in range(group)])
    sampling = Sampling(n=group, temperature=1.0, top_p=1.0, max_tokens=tokens)
    ends = Ends(tok.pad_token_id, tok.eos_token_id)

    def timed(run: Callable[[], Any]) -> tuple[list[list[int]], float]:
        """The rows and seconds of the second of two runs (the first loads kernels)."""
        run()
        if DEVICE == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        rows = run()
        if DEVICE == "cuda":
            torch.cuda.synchronize()
        return rows.tolist(), time.perf_counter() - start

    def same(a: list[list[int]], b: list[list[int]]) -> int:
        return sum(x == y for x, y in zip(a, b))

    graph = DEVICE == "cuda"
    out: dict[str, Any] = {"rows": ids.shape[0] * group, "tokens": tokens}
    for dtype in (torch.float32, torch.bfloat16):
        name = str(dtype).removeprefix("torch.")

        def static(graph: bool, dtype: Any = dtype) -> Any:
            return static_decode.decode_rows(net, Prompts(ids, attn, seeds), sampling, ends, dtype, graph)

        graphed, graph_s = timed(lambda: static(graph))
        stepped, step_s = timed(lambda: static(False))
        generated, generate_s = timed(
            lambda dtype=dtype: generate_rows_hf(net, Prompts(ids, attn, seeds), sampling, ends, dtype)
        )
        out[name] = {
            "same_rows_graph_vs_step_by_step": same(graphed, stepped),
            "same_rows_vs_generate": same(graphed, generated),
            "graph_s": round(graph_s, 3),
            "step_by_step_s": round(step_s, 3),
            "generate_s": round(generate_s, 3),
            "generate_over_graph": round(generate_s / graph_s, 2),
        }
    out["recording_failed"] = static_decode.RECORDING_FAILED[:1]
    rows = out["rows"]
    out["ok"] = (
        not out["recording_failed"]
        and all(out[d]["same_rows_graph_vs_step_by_step"] == rows for d in ("float32", "bfloat16"))
        and out["float32"]["same_rows_vs_generate"] >= rows - 2
    )
    return out


def check_refusal(model: Any, tok: Any, tmp: Path) -> dict[str, Any]:
    import torch

    from evalkit.grpo import GRPOConfig

    missing = f"cuda:{torch.cuda.device_count()}"  # on a machine without a GPU: cuda:0
    try:
        GRPOConfig(**{**CONFIG, "device": missing})
    except ValueError as exc:
        return {"ok": "\n" not in str(exc) and missing in str(exc), "message": str(exc)}
    return {"ok": False, "message": f"{missing} accepted"}


CHECKS: dict[str, Callable[[Any, Any, Path], dict[str, Any]]] = {
    "a bf16 step at lr 1e-6 moves every tensor": check_bf16_step,
    "one batch, one loss: CPU fp32 = GPU fp32 (1e-4)": check_same_loss,
    "gradient checkpointing gives the same update": check_checkpointing,
    "per-row seeds, alone vs in a batch": check_row_seeds,
    "CUDA-graph decoding = step by step; vs generate": check_graph_decoding,
    "a GPU this machine lacks is refused in one line": check_refusal,
}


def main() -> dict[str, Any]:
    import torch

    import bench.bench_grpo  # noqa: F401  (registers the vowels-bench verifier)
    from bench.bench_grpo import make_model
    from evalkit.devices import device_name, resolve_device
    from evalkit.models import load_transformers

    if DEVICE == "cuda" and not torch.cuda.is_available():
        raise SystemExit("grpo_gpu_checks: no CUDA GPU on this machine (GRPO_CHECKS_DEVICE=cpu for a dry run)")
    figures: dict[str, Any] = {"device": device_name(resolve_device(DEVICE))}
    table = [("check", "holds", "figures")]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        make_model(tmp / "model")
        model, tok = load_transformers(str(tmp / "model"))
        for title, check in CHECKS.items():
            try:
                result = check(model, tok, tmp)
            except Exception as exc:
                traceback.print_exc()
                result = {"ok": False, "failed": f"{type(exc).__name__}: {exc}"[:300]}
            figures[check.__name__] = result
            shown = {k: v for k, v in result.items() if k != "ok"}
            table.append((title, "yes" if result["ok"] else "**no**", f"`{shown}`"))
            print(title, result, flush=True)
    if DEVICE != "cuda":
        return figures  # a dry run records nothing
    write_results(
        "grpo_gpu_checks",
        figures,
        table,
        notes=f"On {figures['device']}, SmolLM2-135M's architecture with random weights; "
        "`python -m bench.grpo_gpu_checks` (see its docstring).",
    )
    return figures


if __name__ == "__main__":
    main()
