"""Plots of a GRPO run that reproduce the seed report's figures: Figure 2 (the distribution of
output lengths by step) and Figure 3 (accuracy, incompletion and error rates over steps), plus
the reward curve with held-out evaluations, and the training dynamics (loss, KL, grad norm, clip
fraction, entropy, the share of groups with no reward spread)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def read_log(run_dir: Path) -> tuple[list[dict], list[dict]]:
    steps, evals = [], []
    for line in (run_dir / "log.jsonl").read_text().splitlines():
        record = json.loads(line)
        (evals if "eval_step" in record else steps).append(record)
    return steps, evals


def plot_run(run_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, evals = read_log(run_dir)
    if not steps:
        return []
    xs = [r["step"] for r in steps]
    made = []

    fig, ax = plt.subplots(figsize=(7, 4))
    top = max(max(r["lengths"]) for r in steps) + 1
    bins = np.linspace(0, top, 30)
    grid = np.stack([np.histogram(r["lengths"], bins=bins)[0] / max(1, len(r["lengths"])) for r in steps], axis=1)
    ax.imshow(grid, aspect="auto", origin="lower", extent=[xs[0] - 0.5, xs[-1] + 0.5, 0, top], cmap="viridis")
    ax.plot(xs, [r["length_mean"] for r in steps], color="white", lw=1.5, label="mean")
    ax.set_xlabel("step")
    ax.set_ylabel("completion length (tokens)")
    ax.set_title("Output length distribution by step (cf. seed Figure 2)")
    ax.legend(loc="upper right")
    made.append(_save(plt, fig, run_dir / "lengths_by_step.png"))

    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label, color in (
        ("accuracy", "accuracy", "#2a9d8f"),
        ("incompletion", "incompletion", "#e9c46a"),
        ("invalid", "format failures (invalid)", "#8d99ae"),
        ("error_rate", "error rate", "#e76f51"),
    ):
        if all(key in r for r in steps):  # runs logged before a rate was added lack it
            ax.plot(xs, [r[key] for r in steps], label=label, color=color)
    ax.set_ylim(0, 1)
    ax.set_xlabel("step")
    ax.set_title("Accuracy, incompletion and error rates (cf. seed Figure 3)")
    ax.legend()
    made.append(_save(plt, fig, run_dir / "rates_by_step.png"))

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(xs, [r["reward_mean"] for r in steps], color="#bbbbbb", label="training batch mean reward")
    if evals:
        ex = [e["eval_step"] for e in evals]
        ax.errorbar(
            ex,
            [e["eval_reward"] for e in evals],
            yerr=[
                [e["eval_reward"] - e["eval_reward_low"] for e in evals],
                [e["eval_reward_high"] - e["eval_reward"] for e in evals],
            ],
            color="#264653",
            marker="o",
            capsize=3,
            label="held-out mean reward (95% CI)",
        )
    ax.set_xlabel("step")
    ax.set_ylabel("reward")
    ax.set_title("Reward")
    ax.legend()
    made.append(_save(plt, fig, run_dir / "reward.png"))

    if evals and all("eval_accuracy_low" in e for e in evals):
        made.append(_heldout(plt, evals, run_dir / "heldout.png"))

    panels = [
        ("loss", "loss"),
        ("kl", "KL to the reference (k3)"),
        ("grad_norm", "grad norm (before clipping)"),
        ("clip_fraction", "clip fraction"),
        ("entropy", "token entropy"),
        ("frac_reward_zero_std", "groups with zero reward spread"),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(11, 5.5))
    for ax, (key, title) in zip(axes.flat, panels):
        values = [(r["step"], r[key]) for r in steps if key in r]
        if values:
            ax.plot(*zip(*values), color="#264653")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("step")
    fig.suptitle("Training dynamics")
    made.append(_save(plt, fig, run_dir / "dynamics.png"))
    return made


def _heldout(plt: Any, evals: list[dict], path: Path) -> Path:
    """Held-out accuracy (Wilson 95% interval) and mean reward (bootstrap 95% interval) by step."""
    ex = [e["eval_step"] for e in evals]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, key, title, color in (
        (left, "eval_accuracy", "held-out accuracy (correct answers)", "#2a9d8f"),
        (right, "eval_reward", "held-out mean reward", "#264653"),
    ):
        values = [e[key] for e in evals]
        ax.fill_between(
            ex,
            [e[f"{key}_low"] for e in evals],
            [e[f"{key}_high"] for e in evals],
            color=color,
            alpha=0.2,
            label="95% interval",
        )
        ax.plot(ex, values, color=color, marker="o")
        ax.set_ylim(0, 1)
        ax.set_xlabel("step")
        ax.set_title(title, fontsize=10)
        ax.legend(loc="lower right")
    fig.suptitle(f"Held-out evaluation ({evals[-1].get('eval_samples', '?')} samples per point)")
    return _save(plt, fig, path)


def _save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out, write and close one figure."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
