"""Programs for checking the code verifier against a public data set's own checker: per problem
its reference solution, a trivial body and seeded mutants of the reference.

This is how we know the verifier on data we did not write: every reference solution must be
`correct`, no trivial body may be, and on mutants our verdict (correct or not) must agree with the
data set's checker, which runs the same tests unsandboxed.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Program:
    problem: dict[str, Any]
    kind: str  # "canonical", "trivial" or "mutant"
    source: str  # the program as a model would write it

    def completion(self) -> str:
        return f"```python\n{self.source}\n```"


def check_task(problem: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A data set row as a code task: its `prompt` is the trusted setup, its `test` defines
    `check(candidate)`, called on `entry_point`; `extra` adds fields (e.g. for prompting)."""
    return {
        "id": problem["task_id"],
        "prompt": problem["prompt"],
        "test": problem["test"],
        "entry_point": problem["entry_point"],
        **extra,
    }


def build_mix(
    problems: list[dict[str, Any]],
    reference: Callable[[dict[str, Any]], str],
    function: Callable[[dict[str, Any]], str],
    mutants_per_problem: int = 3,
    seed: int = 0,
) -> list[Program]:
    """Per problem: `reference(problem)`, that program with the body of `function(problem)`
    replaced by `pass` or `return None` (alternating), and up to `mutants_per_problem` mutants."""
    rng = random.Random(seed)
    out = []
    for k, problem in enumerate(problems):
        canonical, name = reference(problem), function(problem)
        out.append(Program(problem, "canonical", canonical))
        trivial = blank_body(canonical, name, ast.Pass() if k % 2 else ast.Return(ast.Constant(None)))
        if trivial is not None:
            out.append(Program(problem, "trivial", trivial))
        seen = {canonical}
        for _ in range(mutants_per_problem * 4):
            if len(seen) > mutants_per_problem:
                break
            mutant = mutate(canonical, name, rng)
            if mutant is not None and mutant not in seen:
                seen.add(mutant)
                out.append(Program(problem, "mutant", mutant))
    return out


def _function(tree: ast.AST, name: str) -> ast.FunctionDef | None:
    """The first function (or method) called `name`, outermost first."""
    return next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None)


def blank_body(source: str, name: str, statement: ast.stmt) -> str | None:
    tree = ast.parse(source)
    target = _function(tree, name)
    if target is None:
        return None
    target.body = [statement]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


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


def mutate(source: str, name: str, rng: random.Random) -> str | None:
    """One random operator or constant change inside the function `name` (never in helpers that
    the checker's preamble also defines, which it would then run unmutated and we would not)."""
    tree = ast.parse(source)
    target = _function(tree, name)
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
