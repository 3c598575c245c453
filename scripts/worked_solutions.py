"""Worked solutions of a countdown / 24-game training split, as records for a GRPO warm-up.

Why: the supervised warm-up (`warmup_examples` in a GRPO config, evalkit/warmup.py) needs solved
training puzzles; the solver proves each one, so every record scores correct with the verifier
(checked here before writing). Only the named split is read: the held-out tasks never appear.
Usage: python scripts/worked_solutions.py [--task-set countdown-2] [--split train] [--limit N] > OUT.jsonl
(`--limit N`: the split's first N tasks, so GRPO keeps the rest of the split as puzzles it has not seen solved)
"""

from __future__ import annotations

import argparse
import json
import sys

import verifiers
from verifiers.game24.solver import solutions


def worked(task: dict, prefix: str = "Answer:") -> dict:
    """The task's numbers and target, and the solver's first solution as an answer line."""
    found = solutions(task["numbers"], task["target"])
    if not found:
        raise ValueError(f"{task['id']}: no solution")
    return {
        "numbers": task["numbers"],
        "target": task["target"],
        "completion": f"{prefix} {found[0]} = {task['target']}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task-set", default="countdown-2")
    parser.add_argument("--split", default="train")
    parser.add_argument("--seed", type=int, default=0, help="the split's seed (GRPO's `seed`)")
    parser.add_argument("--limit", type=int, default=None, help="only the split's first N tasks")
    args = parser.parse_args(argv)
    verifier = verifiers.get("game24", task_set=args.task_set, credit_needs_numbers=True)
    try:
        tasks = verifier.tasks(args.split, seed=args.seed)[: args.limit]
        records = [worked(t) for t in tasks]
        scores = verifier.score_batch([r["completion"] for r in records], tasks)
        wrong = [t["id"] for t, s in zip(tasks, scores) if not s.correct]
        if wrong:
            raise SystemExit(f"worked_solutions: the verifier rejects the solver's answer for {wrong[:5]}")
    finally:
        verifier.close()
    for record in records:
        sys.stdout.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
