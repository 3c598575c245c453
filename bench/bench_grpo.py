"""Seconds per GRPO step: ours against TRL's GRPOTrainer, same model (SmolLM2-135M), batch,
group size, lengths and reward, side by side in one run on this CPU (target: ours <= 1.0x)."""

from __future__ import annotations

import copy
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import write_results

PROMPTS, GROUP, TOKENS, STEPS = 2, 4, 16, 4


def _ours(model, tokenizer) -> list[float]:
    from evalkit.grpo import GRPOConfig, GRPOTrainer

    cfg = GRPOConfig(
        verifier_config={"prompt_style": "short"},
        batch_prompts=PROMPTS,
        group_size=GROUP,
        max_new_tokens=TOKENS,
        learning_rate=1e-6,
        temperature=0.9,
        top_p=1.0,
        eval_every=0,
    )
    with tempfile.TemporaryDirectory() as tmp:
        trainer = GRPOTrainer(cfg, Path(tmp), copy.deepcopy(model), tokenizer)
        times = []
        for _ in range(STEPS):
            start = time.perf_counter()
            trainer.train_step()
            times.append(time.perf_counter() - start)
        trainer.close()
    return times[1:]  # the first step warms caches


def _trl(model, tokenizer) -> list[float]:
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    import verifiers
    from evalkit.adapters import trl_reward

    v = verifiers.get("game24", prompt_style="short")
    tasks = v.tasks("train", limit=PROMPTS * STEPS)
    data = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": v.prompt(t)}], "numbers": t["numbers"]} for t in tasks]
    )
    marks: list[float] = []

    class Timer(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            marks.append(time.perf_counter())

        def on_step_end(self, args, state, control, **kw):
            marks.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as tmp:
        args = GRPOConfig(
            output_dir=tmp,
            model_init_kwargs={"dtype": "float32"},
            per_device_train_batch_size=PROMPTS * GROUP,
            num_generations=GROUP,
            max_completion_length=TOKENS,
            max_steps=STEPS,
            learning_rate=1e-6,
            use_cpu=True,
            report_to=[],
            save_strategy="no",
            bf16=False,
            temperature=0.9,
            beta=0.01,
            logging_steps=1,
        )
        # TRL builds its reference model from a path (beta > 0): give it the same weights as a folder
        from evalkit.models import vllm_model_dir

        trainer = GRPOTrainer(
            model=vllm_model_dir(),
            reward_funcs=[trl_reward(v)],
            args=args,
            train_dataset=data,
            processing_class=tokenizer,
            callbacks=[Timer()],
        )
        trainer.train()
    v.close()
    return [marks[i + 1] - marks[i] for i in range(0, len(marks) - 1, 2)][1:]


def main() -> dict:
    from evalkit.models import load_transformers

    model, tokenizer = load_transformers()
    ours, trl = _ours(model, tokenizer), _trl(model, tokenizer)
    figures = {
        "ours_s_per_step": statistics.median(ours),
        "trl_s_per_step": statistics.median(trl),
        "ours_over_trl": statistics.median(ours) / statistics.median(trl),
        "prompts": PROMPTS,
        "group": GROUP,
        "max_new_tokens": TOKENS,
    }
    table = [
        ("trainer", "seconds per step (median)", "ratio"),
        (
            "evalkit GRPO loop",
            f"{figures['ours_s_per_step']:.2f}",
            f"{figures['ours_over_trl']:.2f}x TRL (target <= 1.0x)",
        ),
        ("TRL GRPOTrainer", f"{figures['trl_s_per_step']:.2f}", "1.00x"),
    ]
    write_results(
        "grpo",
        figures,
        table,
        notes=f"SmolLM2-135M, {PROMPTS} prompts x G={GROUP}, {TOKENS} new tokens, "
        "game24 short prompt, beta 0.01, fp32 on 2 CPU cores; TRL defaults otherwise.",
    )
    return figures


if __name__ == "__main__":
    main()
