"""Learning parity with TRL: does `evalkit grpo` learn per step as TRL's GRPOTrainer does, given the
same start, puzzles, reward, group size, learning rate, beta, clipping and steps?

Our side is the study's "group" arm (experiments/grpo_study.py: the demo's setting for STEPS steps,
runs/grpo-study/group-sN), so this script trains only TRL's side, with the same seeds:

- the packaged SmolLM2-135M (as a model folder), float32 on the CPU, no gradient checkpointing;
- the same 156 countdown-2 training puzzles, prompted through the same chat template and ending in
  the same "Answer:" our runs start the assistant turn with; TRL's completion is scored with that
  prefix put back, by our game24 verifier through our TRL adapter (`trl_reward`);
- the settings TRL names differently mapped one to one (`trl_arguments`): sequence-mean loss
  (TRL's "grpo" loss type), group-normalised advantages, a constant learning rate, AdamW's weight
  decay as torch's default (ours), one update per batch, the same clipping and KL coefficient;
- the model saved every EVAL_EVERY steps and evaluated by our trainer's own held-out evaluation
  (the same 40 puzzles x 2 samples and sampling settings our runs use, by seed).

What differs by construction, and stays: TRL's group std is the sample std (n - 1), ours the
population std (advantages 1.07x larger in TRL for groups of 8); the order in which each draws
training puzzles; the random streams of sampling.

    python experiments/grpo_parity.py                 # every seed (resumable), then the report
    python experiments/grpo_parity.py --report-only   # experiments/grpo_parity/{results.json,results.md,parity.png}
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "grpo_parity"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from grpo_study import SEEDS, STEPS, base_config, held_out, seed_interval  # noqa: E402

from evalkit.metrics import wilson  # noqa: E402


def trl_arguments(cfg: dict[str, Any], output_dir: Path) -> dict[str, Any]:
    """TRL GRPOConfig keyword arguments that mean what `cfg` (an `evalkit grpo` config) means."""
    return {
        "output_dir": str(output_dir),
        "per_device_train_batch_size": cfg["batch_prompts"] * cfg["group_size"],
        "num_generations": cfg["group_size"],
        "max_completion_length": cfg["max_tokens"],
        "max_steps": cfg["steps"],
        "learning_rate": cfg["learning_rate"],
        "lr_scheduler_type": "constant",  # ours never decays (TRL's default is linear)
        "warmup_steps": 0,
        "weight_decay": 0.01,  # torch.optim.AdamW's default, which our trainer uses
        "max_grad_norm": 1.0,
        "beta": cfg["beta"],
        "epsilon": 0.2,
        "loss_type": "grpo",  # each completion's token mean, then the batch mean: our "sequence"
        "scale_rewards": "group",
        "num_iterations": 1,
        "temperature": cfg["temperature"],
        "top_p": cfg["top_p"],
        "top_k": 0,
        "gradient_checkpointing": False,
        "use_cpu": True,
        "bf16": False,
        "model_init_kwargs": {"dtype": "float32"},
        "seed": cfg["seed"],
        "save_strategy": "steps",
        "save_steps": cfg["eval_every"],
        "save_only_model": True,
        "report_to": [],
        "logging_steps": 1,
    }


def train_trl(cfg: dict[str, Any], run_dir: Path) -> None:
    """One TRL run: the model saved at every evaluation step, each step's seconds and logs in
    run_dir/train.jsonl. Runs in its own process (TRL's accelerator state meets nothing else)."""
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    import verifiers
    from evalkit.adapters import trl_reward
    from evalkit.generation.hf import chat_text
    from evalkit.models import vllm_model_dir
    from evalkit.pipeline import PromptTemplate

    folder = vllm_model_dir(None)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    verifier = verifiers.get(cfg["verifier"], **cfg["verifier_config"])
    prefix = cfg["response_prefix"]
    template = PromptTemplate(response_prefix=prefix)
    rows = [
        {"prompt": chat_text(tokenizer, template.conversation(verifier.prompt(t)), prefix), "task": json.dumps(t)}
        for t in verifier.tasks("train", seed=cfg["seed"])
    ]
    score = trl_reward(verifier)

    def reward(prompts: list[Any] | None = None, completions: list[Any] | None = None, **columns: Any) -> list:
        return score(prompts, [prefix + c for c in completions or []], **columns)  # as our rollouts score

    reward.__name__ = score.__name__
    log = (run_dir / "train.jsonl").open("a")
    marks: dict[str, float] = {}

    class Record(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            marks["start"] = time.perf_counter()

        def on_log(self, args, state, control, logs=None, **kw):
            line = {"step": state.global_step, "step_s": time.perf_counter() - marks["start"], **(logs or {})}
            log.write(json.dumps(line) + "\n")
            log.flush()

    trainer = GRPOTrainer(
        model=folder,
        reward_funcs=[reward],
        args=GRPOConfig(**trl_arguments(cfg, run_dir / "checkpoints")),
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        callbacks=[Record()],
    )
    trainer.train()
    log.close()
    verifier.close()


def evaluate_saved(cfg: dict[str, Any], run_dir: Path) -> None:
    """Our held-out evaluation of the start (step 0) and of each model TRL saved, appended to
    run_dir/log.jsonl in the shape our runs log (`held_out` reads both)."""
    from evalkit.grpo import GRPOConfig, GRPOTrainer

    log_path = run_dir / "log.jsonl"
    done = {json.loads(line)["eval_step"] for line in log_path.read_text().splitlines()} if log_path.exists() else set()
    for step in range(0, cfg["steps"] + 1, cfg["eval_every"]):
        if step in done:
            continue
        model = None if step == 0 else str(run_dir / "checkpoints" / f"checkpoint-{step}")
        trainer = GRPOTrainer(GRPOConfig.from_dict({**cfg, "model": model}), run_dir)
        trainer.step = step
        line = trainer.evaluate()
        trainer.close()
        with log_path.open("a") as fh:
            fh.write(json.dumps(line) + "\n")
        print(f"TRL step {step}: held-out accuracy {line['eval_accuracy']:.3f}", flush=True)


def run_seed(seed: int, runs_dir: Path) -> None:
    run_dir = runs_dir / f"trl-s{seed}"
    if (run_dir / "finished").exists():
        return
    cfg = base_config(seed)
    started = time.perf_counter()
    if not (run_dir / "checkpoints" / f"checkpoint-{cfg['steps']}").exists():  # a cut run starts over
        if run_dir.exists():
            for stale in (run_dir / "train.jsonl", run_dir / "log.jsonl"):
                stale.unlink(missing_ok=True)
        run_dir.mkdir(parents=True, exist_ok=True)
        print(f"--- TRL seed {seed}: {cfg['steps']} steps", flush=True)
        subprocess.run([sys.executable, __file__, "--train-one", str(seed), str(run_dir)], cwd=ROOT, check=True)
    evaluate_saved(cfg, run_dir)
    for step in range(cfg["eval_every"], cfg["steps"], cfg["eval_every"]):  # keep the last model only
        checkpoint = run_dir / "checkpoints" / f"checkpoint-{step}"
        if checkpoint.exists():
            shutil.rmtree(checkpoint)
    (run_dir / "finished").write_text(f"{time.perf_counter() - started:.0f} s\n")


def step_seconds(log: Path) -> list[float]:
    """Each training step's seconds: the lines of our log.jsonl or TRL's train.jsonl that log a loss."""
    lines = [json.loads(x) for x in log.read_text().splitlines()] if log.is_file() else []
    return [x["step_s"] for x in lines if "loss" in x and "step_s" in x]


def curve(run_dirs: list[Path]) -> list[dict[str, Any]]:
    """Held-out accuracy by step: the mean over seeds with its t interval, each seed's value, and
    every seed's samples pooled (Wilson 95%)."""
    points = [held_out(d) for d in run_dirs]
    rows = []
    for step in sorted({p["step"] for ps in points for p in ps}):
        at = [p for ps in points for p in ps if p["step"] == step]
        seeds = [p["correct"] / p["samples"] for p in at]
        mean, low, high = seed_interval(seeds)
        correct, n = sum(p["correct"] for p in at), sum(p["samples"] for p in at)
        rows.append(
            {"step": step, "mean": mean, "low": low, "high": high, "seeds": seeds, "pooled": wilson(correct, n)}
        )
    return rows


def report(study_dir: Path, runs_dir: Path) -> dict[str, Any]:
    arms = {
        "evalkit": [study_dir / f"group-s{s}" for s in SEEDS],
        "TRL": [runs_dir / f"trl-s{s}" for s in SEEDS],
    }
    results: dict[str, Any] = {"steps": STEPS, "arms": {}}
    for arm, dirs in arms.items():
        done = [d for d in dirs if (d / "finished").exists()]
        if not done:
            continue
        log = "log.jsonl" if arm == "evalkit" else "train.jsonl"
        seconds = [s for d in done for s in step_seconds(d / log)]
        results["arms"][arm] = {
            "runs": [d.name for d in done],
            "curve": curve(done),
            "step_s_median": statistics.median(seconds) if seconds else None,
        }
    results["trl_minus_evalkit"] = paired_difference(results)
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (OUT / "results.md").write_text(table(results))
    plot(results, OUT / "parity.png")
    print(table(results))
    return results


def paired_difference(results: dict[str, Any]) -> list[dict[str, Any]]:
    """TRL's held-out accuracy minus ours at each step, seed by seed (a seed holds the same held-out
    puzzles and start in both), with the t 95% interval of the mean difference."""
    arms = results["arms"]
    if "evalkit" not in arms or "TRL" not in arms:
        return []
    ours = {r["step"]: dict(zip(arms["evalkit"]["runs"], r["seeds"])) for r in arms["evalkit"]["curve"]}
    rows = []
    for r in arms["TRL"]["curve"]:
        pairs = [
            (value, ours.get(r["step"], {}).get(run.replace("trl-", "group-")))
            for run, value in zip(arms["TRL"]["runs"], r["seeds"])
        ]
        differences = [t - o for t, o in pairs if o is not None]
        if differences:
            mean, low, high = seed_interval(differences, within=(-1.0, 1.0))
            rows.append({"step": r["step"], "mean": mean, "low": low, "high": high, "seeds": differences})
    return rows


def table(results: dict[str, Any]) -> str:
    lines = [
        "| trainer | seeds | s per step (median) | " + " | ".join(f"step {r['step']}" for r in _steps(results)) + " |"
    ]
    lines.append("|---" * (3 + len(_steps(results))) + "|")
    for arm, data in results["arms"].items():
        cells = [
            f"{r['mean']:.3f} [{r['low']:.2f}, {r['high']:.2f}] ({', '.join(f'{s:.2f}' for s in r['seeds'])})"
            for r in data["curve"]
        ]
        step_s = f"{data['step_s_median']:.1f}" if data["step_s_median"] else "-"
        lines.append(f"| {arm} | {len(data['runs'])} | {step_s} | " + " | ".join(cells) + " |")
    differences = results.get("trl_minus_evalkit") or []
    if differences:
        cells = [f"{d['mean']:+.3f} [{d['low']:+.2f}, {d['high']:+.2f}]" for d in differences]
        lines.append(
            f"| TRL − evalkit, paired by seed | {len(differences[0]['seeds'])} | | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def _steps(results: dict[str, Any]) -> list[dict[str, Any]]:
    arms = list(results["arms"].values())
    return max((a["curve"] for a in arms), key=len) if arms else []


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for i, (arm, data) in enumerate(results["arms"].items()):
        xs = [r["step"] + (i - 0.5) * 0.15 for r in data["curve"]]
        color = f"C{i}"
        ax.fill_between(
            xs, [r["low"] for r in data["curve"]], [r["high"] for r in data["curve"]], color=color, alpha=0.15
        )
        ax.plot(
            xs, [r["mean"] for r in data["curve"]], color=color, marker="o", label=f"{arm} ({len(data['runs'])} seeds)"
        )
        for r, x in zip(data["curve"], xs):
            ax.scatter([x] * len(r["seeds"]), r["seeds"], color=color, s=8, alpha=0.6)
    ax.set_ylim(0, 1)
    ax.set_xlabel("step")
    ax.set_ylabel("held-out accuracy (mean over seeds, t 95%)")
    ax.set_title("countdown-2, SmolLM2-135M: evalkit grpo vs TRL GRPOTrainer", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-dir", type=Path, default=ROOT / "runs" / "grpo-parity")
    parser.add_argument("--study-dir", type=Path, default=ROOT / "runs" / "grpo-study")
    parser.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--train-one", nargs=2, metavar=("SEED", "RUN_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.train_one:
        train_trl(base_config(int(args.train_one[0])), Path(args.train_one[1]))
        return
    if not args.report_only:
        for seed in (int(s) for s in args.seeds.split(",")):
            run_seed(seed, args.runs_dir)
            report(args.study_dir, args.runs_dir)
    report(args.study_dir, args.runs_dir)


if __name__ == "__main__":
    main()
