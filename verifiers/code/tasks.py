"""The code verifier's built-in tasks: problems written for evalkit (not copied from any dataset), each with tests and a
reference solution, in all four task formats (problems.json). Used for demos, tests and benchmarks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

FUNCTION_PROMPT = """{statement}

Write a Python function `{signature}`. Answer with the complete code in one ```python block."""
STDIO_PROMPT = """{statement}

Write a complete Python program that reads standard input and writes standard output. \
Answer with the code in one ```python block."""


# the problems, in data: {id, statement, signature?, reference, and the tests in one of the formats}
PROBLEMS: list[dict[str, Any]] = json.loads((Path(__file__).with_name("problems.json")).read_text(encoding="utf-8"))


def prompt_for(task: Mapping[str, Any]) -> str:
    """The user message for a task: the statement, the signature or I/O contract, the answer format."""
    if "statement" not in task:
        return str(task.get("question") or task.get("problem_description") or task.get("prompt") or "")
    if "inputs" in task and "fn_name" not in task:
        return STDIO_PROMPT.format(statement=task["statement"])
    return FUNCTION_PROMPT.format(statement=task["statement"], signature=task.get("signature", ""))


def reference_completion(task: Mapping[str, Any]) -> str:
    return f"Here is my solution.\n```python\n{task['reference']}```\n"
