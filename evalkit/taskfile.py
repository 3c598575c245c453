"""A user's own tasks from a JSONL file, and a seeded, stratified subset of any task list.

Each line of a task file is a JSON object with the fields the verifier reads (e.g. `numbers`
for game24) and optionally `id`, `difficulty` and `prompt` (used as is instead of the
verifier's prompt). Every line is checked before any model loads: one that is not an object, or
that the verifier rejects, is reported with its line number and left out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Sequence

from verifiers import Unsupported, Verifier
from verifiers.base import TaskError


def load_task_file(path: Path, verifier: Verifier) -> tuple[list[dict[str, Any]], list[str]]:
    """(tasks, problems): the good tasks, and one "line N: why" per bad line."""
    tasks: list[dict[str, Any]] = []
    problems: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                task = json.loads(raw)
            except json.JSONDecodeError as exc:
                problems.append(f"line {line_no}: not JSON ({exc.msg})")
                continue
            why = task_problem(task, verifier)
            if why:
                problems.append(f"line {line_no}: {why}")
                continue
            tasks.append({"id": f"line-{line_no}", **task})
    return tasks, problems


def task_problem(task: Any, verifier: Verifier) -> str | None:
    """Why the verifier cannot use `task`, or None."""
    if not isinstance(task, dict):
        return f"expected a JSON object, got {type(task).__name__}"
    if "prompt" in task and not (isinstance(task["prompt"], str) and task["prompt"].strip()):
        return "'prompt' must be non-empty text"
    if "prompt" not in task:
        try:
            verifier.prompt(task)
        except TaskError as exc:
            return f"bad task: {exc}"
        except Unsupported:
            return f"{verifier.name} builds no prompts: give each task a 'prompt'"
    probe = verifier.score("", task)
    if probe.is_error and probe.info.get("task_error"):
        return probe.reason
    return None


def stratified(
    tasks: Sequence[dict[str, Any]], limit: int, seed: int = 0, key: str = "difficulty"
) -> list[dict[str, Any]]:
    """`limit` tasks drawn without replacement, each `key` group getting its share (largest
    remainder), seeded; returned in their original order. Not the first ids: those are often all
    of one kind (sorted game24 ids start with the "1 1 x x" puzzles)."""
    if limit >= len(tasks):
        return list(tasks)
    groups: dict[str, list[int]] = {}
    for i, task in enumerate(tasks):
        groups.setdefault(str(task.get(key)), []).append(i)
    quotas = {g: limit * len(idx) / len(tasks) for g, idx in groups.items()}
    take = {g: int(q) for g, q in quotas.items()}
    for g in sorted(quotas, key=lambda g: (-(quotas[g] - take[g]), g))[: limit - sum(take.values())]:
        take[g] += 1
    rng = random.Random(f"stratified:{seed}")
    chosen = [i for g in sorted(groups) for i in rng.sample(groups[g], take[g])]
    return [tasks[i] for i in sorted(chosen)]
