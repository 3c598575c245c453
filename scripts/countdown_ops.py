"""Held-out accuracy of a GRPO run on countdown-2, by the operation each puzzle needs.

Why: a policy can raise its accuracy by learning one trick (on countdown-2, adding the two numbers
solves about half the puzzles); the split by operation shows whether it learned the task.
Usage: python scripts/countdown_ops.py RUN_DIR   (reads RUN_DIR/eval/step-*/samples.jsonl)
       python scripts/countdown_ops.py --plot OUT.png LABEL=RUN_DIR ...   (one panel a run)
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

TASK_ID = re.compile(r"countdown-2-(\d+)-(\d+)-t(\d+)$")
OPERATIONS = ("+", "×", "−", "÷")


def operation(task_id: str) -> str | None:
    """The operation that makes the target from the two numbers (the first that does, in OPERATIONS order)."""
    found = TASK_ID.match(task_id)
    if not found:
        return None
    a, b, target = (int(x) for x in found.groups())
    results = {
        "+": {Fraction(a + b)},
        "×": {Fraction(a * b)},
        "−": {Fraction(abs(a - b))},
        "÷": {Fraction(a, b) if b else None, Fraction(b, a) if a else None},
    }
    return next((op for op in OPERATIONS if Fraction(target) in results[op]), None)


def by_operation(samples: Path) -> dict[str, tuple[int, int]]:
    """{operation: (correct, samples)} for one evaluation."""
    correct: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for line in samples.read_text().splitlines():
        row = json.loads(line)
        op = operation(row["task_id"])
        if op is None:
            continue
        total[op] += 1
        correct[op] += row["score"]["verdict"] == "correct"
    return {op: (correct[op], total[op]) for op in OPERATIONS if total[op]}


def evaluations(run_dir: str) -> list[Path]:
    steps = sorted(Path(run_dir, "eval").glob("step-*/samples.jsonl"))
    if not steps:
        raise SystemExit(f"no evaluations under {run_dir}/eval")
    return steps


def plot(out: str, runs: list[str]) -> None:
    """Held-out share correct by operation against step, one panel a run (LABEL=RUN_DIR), 95% Wilson bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from evalkit.metrics import wilson

    fig, axes = plt.subplots(1, len(runs), figsize=(4.2 * len(runs), 3.4), sharey=True, squeeze=False)
    for ax, spec in zip(axes[0], runs):
        label, _, run_dir = spec.rpartition("=")
        points = [(int(s.parent.name.split("-")[1]), by_operation(s)) for s in evaluations(run_dir)]
        for op in OPERATIONS[:3]:
            rows = [(step, *split[op]) for step, split in points if op in split]
            steps = [r[0] for r in rows]
            bands = [wilson(c, n) for _, c, n in rows]
            ax.plot(steps, [c / n for _, c, n in rows], marker="o", label=op)
            ax.fill_between(steps, [b[0] for b in bands], [b[1] for b in bands], alpha=0.15)
        ax.set_title(label or run_dir, fontsize=9)
        ax.set_xlabel("step")
        ax.set_ylim(0, 1)
    axes[0][0].set_ylabel("held-out share correct")
    axes[0][-1].legend(title="needs", loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(run_dir: str) -> None:
    steps = evaluations(run_dir)
    print("| step | " + " | ".join(OPERATIONS) + " |")
    print("|---|" + "---|" * len(OPERATIONS))
    for samples in steps:
        split = by_operation(samples)
        cells = [f"{split[op][0]}/{split[op][1]}" if op in split else "-" for op in OPERATIONS]
        print(f"| {int(samples.parent.name.split('-')[1])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--plot"]:
        plot(sys.argv[2], sys.argv[3:])
    else:
        main(*sys.argv[1:2])
