"""The GRPO study: the seed's momentum advantage beside group and Dr. GRPO, and how the accuracy of
the reward changes what is learned (the seed's 003 question, small).

Every run is the demo's setting (experiments/grpo_demo.json: SmolLM2-135M on countdown-2, 4 prompts x 8
samples, lr 3e-5, outcome reward) shortened to STEPS steps, evaluated on the same 40 held-out puzzles
x 2 samples every EVAL_EVERY steps:
- advantages: "group", "momentum" (the seed's schedule: momentum rising by 0.02 a step to 0.2) and
  "dr_grpo", each with the same seeds;
- reward accuracy: group advantages on a reward flipped with probability p (the `noisy` verifier:
  a flipped reward is `low + high - reward`, the same mistake for the same completion; verdicts stay
  the truth, so held-out accuracy is measured with the real reward). p = 0 is the "group" run.

    python experiments/grpo_study.py                 # every run, then experiments/grpo_study/{results.json,*.png}
    python experiments/grpo_study.py --report-only   # tables and plots from the runs already made

Runs go to runs/grpo-study/NAME and resume where they stopped (each is an `evalkit grpo` run); a
finished run keeps its log, held-out samples and model (RUN/model, 0.5 GB), and drops its checkpoint
(1.6 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "grpo_study"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from countdown_ops import OPERATIONS, by_operation  # noqa: E402

from evalkit.metrics import wilson  # noqa: E402

STEPS = 12
EVAL_EVERY = 4
SEEDS = (0, 1, 2)
ADVANTAGES = ("group", "momentum", "dr_grpo")
FLIP_PROBABILITIES = (0.0, 0.2, 0.4)
REWARD = {"task_set": "countdown-2", "prompt_style": "short", "credit_needs_numbers": True, "weights": [1.0, 0.0, 0.0]}


def base_config(seed: int) -> dict:
    demo = json.loads((HERE / "grpo_demo.json").read_text())
    return {**demo, "steps": STEPS, "eval_every": EVAL_EVERY, "save_every": EVAL_EVERY, "seed": seed}


def planned_runs(seeds: tuple[int, ...]) -> dict[str, dict]:
    """{run name: GRPO config}, seed by seed (a study cut short still compares every arm): the
    advantage runs, then the noisy-reward runs (p > 0)."""
    runs = {}
    for seed in seeds:
        for advantage in ADVANTAGES:
            runs[f"{advantage}-s{seed}"] = {**base_config(seed), "advantage": advantage}
        for p in FLIP_PROBABILITIES[1:]:  # p = 0 is the group run
            noisy = {"verifier": "game24", "flip_probability": p, "seed": seed, "verifier_config": REWARD}
            runs[f"flip{p:g}-s{seed}"] = {**base_config(seed), "verifier": "noisy", "verifier_config": noisy}
    return runs


def run_one(name: str, config: dict, runs_dir: Path) -> None:
    """One `evalkit grpo` run (resumed if it stopped); a finished run keeps its model, not its checkpoint."""
    run_dir = runs_dir / name
    if (run_dir / "finished").exists():
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path = run_dir.parent / f"{name}.json"  # (with_suffix would cut "flip0.2-s0" at its dot)
    config_path.write_text(json.dumps(config, indent=1) + "\n")
    started = time.perf_counter()
    print(f"--- {name}: {STEPS} steps", flush=True)
    subprocess.run(
        [sys.executable, "-m", "evalkit", "grpo", "--config", str(config_path), "--run-dir", str(run_dir)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    (run_dir / "checkpoint.pt").unlink(missing_ok=True)
    (run_dir / "finished").write_text(f"{time.perf_counter() - started:.0f} s\n")


def held_out(run_dir: Path) -> list[dict]:
    """[{step, correct, samples, by_operation}] from a run's held-out evaluations."""
    points = []
    for line in (run_dir / "log.jsonl").read_text().splitlines():
        record = json.loads(line)
        if "eval_step" not in record:
            continue
        step = record["eval_step"]
        samples = run_dir / "eval" / f"step-{step:05d}" / "samples.jsonl"
        ops = by_operation(samples) if samples.exists() else {}
        n = record["eval_samples"]
        points.append({"step": step, "correct": round(record["eval_accuracy"] * n), "samples": n, "by_operation": ops})
    return points


# Student's t at 97.5% for n - 1 degrees of freedom: an interval over a handful of seeds
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def seed_interval(values: list[float], within: tuple[float, float] = (0.0, 1.0)) -> tuple[float, float, float]:
    """(mean, low, high): the mean over seeds with its t 95% interval, clipped to `within` (an
    accuracy's [0, 1]; a difference's is [-1, 1]); one seed has no interval (low = high = its value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, mean, mean
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    half = T_975.get(len(values) - 1, 1.96) * sd / len(values) ** 0.5
    return mean, max(within[0], mean - half), min(within[1], mean + half)


def pooled(points_by_seed: list[list[dict]]) -> list[dict]:
    """Accuracy at each step over every seed's samples (Wilson 95%), with each seed's own value."""
    rows = []
    steps = sorted({p["step"] for points in points_by_seed for p in points})
    for step in steps:
        at = [p for points in points_by_seed for p in points if p["step"] == step]
        correct, n = sum(p["correct"] for p in at), sum(p["samples"] for p in at)
        low, high = wilson(correct, n)
        ops = {op: [sum(p["by_operation"].get(op, (0, 0))[i] for p in at) for i in (0, 1)] for op in OPERATIONS}
        seeds = [p["correct"] / p["samples"] for p in at]
        mean, mean_low, mean_high = seed_interval(seeds)
        rows.append(
            {
                "step": step,
                "mean": mean,
                "mean_low": mean_low,
                "mean_high": mean_high,
                "seeds": seeds,
                "accuracy": correct / n,
                "low": low,
                "high": high,
                "by_operation": ops,
            }
        )
    return rows


def paired_with(results: dict, arm: str, reference: str) -> list[dict]:
    """`arm` minus `reference` at each step, seed by seed (a seed holds the same start and held-out
    puzzles in every arm), with the t 95% interval of the mean difference: what a difference between
    two arms is, once the puzzles each seed drew are taken out."""
    if arm not in results["arms"] or reference not in results["arms"]:
        return []

    def by_seed(name: str) -> dict[int, dict[str, float]]:
        data = results["arms"][name]
        seeds = [int(run.rpartition("-s")[2]) for run in data["runs"]]
        return {r["step"]: dict(zip(seeds, r["seeds"])) for r in data["curve"]}

    ours, theirs = by_seed(arm), by_seed(reference)
    rows = []
    for step in sorted(set(ours) & set(theirs)):
        differences = [ours[step][s] - theirs[step][s] for s in sorted(set(ours[step]) & set(theirs[step]))]
        if differences:
            mean, low, high = seed_interval(differences, within=(-1.0, 1.0))
            rows.append({"step": step, "mean": mean, "low": low, "high": high, "seeds": differences})
    return rows


def steps_to_half(results: dict) -> dict[str, int | None]:
    """For each arm, the first evaluated step whose mean accuracy reaches half of the p = 0 arm's
    final mean (None: never within the run)."""
    reference = results["arms"].get("flip 0")
    if reference is None:
        return {}
    half = reference["curve"][-1]["mean"] / 2
    return {
        arm: next((r["step"] for r in data["curve"] if r["mean"] >= half and half > 0), None)
        for arm, data in results["arms"].items()
    }


def report(runs_dir: Path, seeds: tuple[int, ...]) -> dict:
    arms = {a: [f"{a}-s{s}" for s in seeds] for a in ADVANTAGES}
    arms |= {f"flip {p:g}": [f"{'group' if p == 0 else f'flip{p:g}'}-s{s}" for s in seeds] for p in FLIP_PROBABILITIES}
    results = {"steps": STEPS, "seeds": list(seeds), "arms": {}, "wall_s": {}}
    for arm, names in arms.items():
        done = [n for n in names if (runs_dir / n / "finished").exists()]
        if done:
            results["arms"][arm] = {"runs": done, "curve": pooled([held_out(runs_dir / n) for n in done])}
        for n in done:
            results["wall_s"][n] = int((runs_dir / n / "finished").read_text().split()[0])
    results["steps_to_half"] = steps_to_half(results)
    results["paired"] = {
        **{arm: paired_with(results, arm, "group") for arm in ADVANTAGES[1:]},
        **{f"flip {p:g}": paired_with(results, f"flip {p:g}", "flip 0") for p in FLIP_PROBABILITIES[1:]},
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, ADVANTAGES, OUT / "advantages.png", "Advantage: group vs the seed's momentum vs Dr. GRPO")
    plot(
        results,
        [f"flip {p:g}" for p in FLIP_PROBABILITIES],
        OUT / "reward_noise.png",
        "Reward flipped with probability p",
    )
    (OUT / "results.md").write_text(table(results))
    print(table(results))
    return results


def plot(results: dict, arms: list[str] | tuple[str, ...], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for i, arm in enumerate(a for a in arms if a in results["arms"]):
        curve = results["arms"][arm]["curve"]
        xs = [r["step"] + (i - 1) * 0.12 for r in curve]
        color = f"C{i}"
        ax.fill_between(xs, [r["mean_low"] for r in curve], [r["mean_high"] for r in curve], color=color, alpha=0.15)
        ax.plot(
            xs,
            [r["mean"] for r in curve],
            color=color,
            marker="o",
            label=f"{arm} ({len(results['arms'][arm]['runs'])} seed{'s' if len(results['arms'][arm]['runs']) != 1 else ''})",
        )
        for r, x in zip(curve, xs):
            ax.scatter([x] * len(r["seeds"]), r["seeds"], color=color, s=8, alpha=0.6)
    ax.set_ylim(0, 1)
    ax.set_xlabel("step")
    ax.set_ylabel("held-out accuracy: mean over seeds (t 95%), each seed")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def table(results: dict) -> str:
    """Per arm: the mean over seeds at each evaluated step with its t 95% interval, each seed's
    final value, the steps to half of the p = 0 arm's final accuracy, and the pooled final samples
    by operation."""
    steps = [r["step"] for r in max((a["curve"] for a in results["arms"].values()), key=len, default=[])]
    lines = [
        "| arm | seeds | "
        + " | ".join(f"step {s}" for s in steps)
        + " | each seed at the end | steps to half | pooled at the end (Wilson) | + | × | − | ÷ |",
        "|---" * (5 + len(steps) + len(OPERATIONS)) + "|",
    ]
    half = results.get("steps_to_half", {})
    for arm, data in results["arms"].items():
        by_step = {r["step"]: r for r in data["curve"]}
        cells = [
            f"{by_step[s]['mean']:.3f} [{by_step[s]['mean_low']:.2f}, {by_step[s]['mean_high']:.2f}]"
            if s in by_step
            else "-"
            for s in steps
        ]
        last = data["curve"][-1]
        ops = [f"{c}/{n}" for c, n in (last["by_operation"][op] for op in OPERATIONS)]
        lines.append(
            f"| {arm} | {len(data['runs'])} | "
            + " | ".join(cells)
            + f" | {', '.join(f'{s:.2f}' for s in last['seeds'])} | {_reached(half.get(arm, '-'))} | "
            f"{last['accuracy']:.3f} [{last['low']:.3f}, {last['high']:.3f}] | " + " | ".join(ops) + " |"
        )
    lines += ["", "Paired by seed (the arm minus group, or minus p = 0), mean and t 95% interval:", ""]
    lines += ["| arm | " + " | ".join(f"step {s}" for s in steps) + " |", "|---" * (1 + len(steps)) + "|"]
    for arm, rows in results.get("paired", {}).items():
        at = {r["step"]: r for r in rows}
        cells = [f"{at[s]['mean']:+.3f} [{at[s]['low']:+.2f}, {at[s]['high']:+.2f}]" if s in at else "-" for s in steps]
        lines.append(f"| {arm} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _reached(step: int | str | None) -> str:
    return "not reached" if step is None else str(step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-dir", type=Path, default=ROOT / "runs" / "grpo-study")
    parser.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    seeds = tuple(int(s) for s in args.seeds.split(","))
    if not args.report_only:
        runs = planned_runs(seeds)
        for i, (name, config) in enumerate(runs.items(), 1):
            print(f"=== run {i}/{len(runs)}", flush=True)
            run_one(name, config, args.runs_dir)
            report(args.runs_dir, seeds)
    report(args.runs_dir, seeds)


if __name__ == "__main__":
    main()
