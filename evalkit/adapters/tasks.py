"""Turning a framework's per-sample data (dataset columns, verl's ground_truth, OpenRLHF's labels)
into the task dict a verifier takes.

Per verifier, a ground truth may be given as:
- a JSON object or dict: the task itself (every verifier);
- game24: "4 4 6 8", "4,4,6,8" or a list of numbers (target 24);
- code: a JSON object in any of the code verifier's formats (test_cases, inputs/outputs, test, ...);
- gomoku: a move list ("E5 D4 ...") on a 15x15 board, or the JSON task;
- doudizhu, svg: the JSON task.
"""
from __future__ import annotations

import json
from typing import Any, Mapping


def task_from_ground_truth(verifier: str, ground_truth: Any, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if isinstance(ground_truth, Mapping):
        task = dict(ground_truth)
    elif isinstance(ground_truth, (list, tuple)) and verifier == "game24":
        task = {"numbers": list(ground_truth)}
    elif isinstance(ground_truth, str):
        text = ground_truth.strip()
        if text.startswith(("{", "[")):
            parsed = json.loads(text)
            return task_from_ground_truth(verifier, parsed, extra)
        if verifier == "game24":
            try:
                task = {"numbers": [int(x) for x in text.replace(",", " ").split()]}
            except ValueError:
                raise ValueError(f"game24: ground truth must be numbers like '4 4 6 8', got {text[:60]!r}") from None
        elif verifier == "gomoku":
            task = {"size": 15, "moves": text.split()}
        else:
            raise ValueError(f"{verifier}: ground truth must be a JSON task, got {text[:60]!r}")
    else:
        raise ValueError(f"{verifier}: cannot read a ground truth of type {type(ground_truth).__name__}")
    if extra:
        task.update({k: v for k, v in extra.items() if k not in task})
    return task


def completion_text(completion: Any) -> str:
    """Plain text from a completion, or from a conversational one (the last assistant message)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], Mapping):
        content = completion[-1].get("content", "")
        if isinstance(content, list):  # multi-part content
            return "".join(part.get("text", "") for part in content if isinstance(part, Mapping))
        return str(content)
    return str(completion)
