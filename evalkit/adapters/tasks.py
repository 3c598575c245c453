"""Turning a framework's per-sample data (dataset columns, verl's ground_truth, OpenRLHF's labels)
into the task dict a verifier takes. The verifier reads its own labels
(`Verifier.task_from_ground_truth`): a JSON object is the task for every verifier, and each verifier
may accept short forms (game24 "4 4 6 8", gomoku a move list).
"""

from __future__ import annotations

from typing import Any, Mapping

from verifiers import Verifier


def task_from_ground_truth(
    verifier: Verifier, ground_truth: Any, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The verifier's task for `ground_truth`, with `extra` fields filled in where the label has none."""
    task = verifier.task_from_ground_truth(ground_truth)
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
