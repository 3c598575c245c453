"""Held-out accuracy of a GRPO run on countdown-2, by the operation each puzzle needs.

Why: a policy can raise its accuracy by learning one trick (on countdown-2, adding the two numbers
solves about half the puzzles); the split by operation shows whether it learned the task.
Usage: python scripts/countdown_ops.py RUN_DIR   (reads RUN_DIR/eval/step-*/samples.jsonl)
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


def main(run_dir: str) -> None:
    steps = sorted(Path(run_dir, "eval").glob("step-*/samples.jsonl"))
    if not steps:
        raise SystemExit(f"no evaluations under {run_dir}/eval")
    print("| step | " + " | ".join(OPERATIONS) + " |")
    print("|---|" + "---|" * len(OPERATIONS))
    for samples in steps:
        split = by_operation(samples)
        cells = [f"{split[op][0]}/{split[op][1]}" if op in split else "-" for op in OPERATIONS]
        print(f"| {int(samples.parent.name.split('-')[1])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:2])
