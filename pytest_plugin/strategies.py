"""Hypothesis strategies for reward tests: tasks, correct completions, mutations of them, and
hostile strings. Verifier modules are imported lazily, so this file loads without them."""
from __future__ import annotations

import ast
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from .assertions import HOSTILE_TEXTS


def hostile_text() -> st.SearchStrategy[str]:
    """Known-nasty strings plus arbitrary Unicode (surrogates and control characters included)."""
    return st.one_of(st.sampled_from(list(HOSTILE_TEXTS.values())),
                     st.text(st.characters(codec=None, categories=None), max_size=2000))


def game24_tasks(split: str = "all") -> st.SearchStrategy[dict[str, Any]]:
    """Built-in 24-point puzzles (each has a known solution)."""
    import verifiers

    return st.sampled_from(verifiers.get("game24").tasks(split))


def game24_correct(task: dict[str, Any]) -> st.SearchStrategy[str]:
    """A correct final answer for `task`: any of its solutions, in any of the answer formats."""
    from verifiers.game24 import solutions

    sols = solutions(task["numbers"], task.get("target", 24))
    templates = ["Answer: {} = {t}", "<answer>{}</answer>", "so the result is \\boxed{{{}}}", "Answer: {}"]
    return st.builds(lambda s, tpl: tpl.format(s, t=task.get("target", 24)), st.sampled_from(sols), st.sampled_from(templates))


def _operator_swapped(solution: str) -> tuple[str, str] | None:
    """One operator changed so that the value changes (2 * 2 -> 2 + 2 would still make 24)."""
    for i, ch in enumerate(solution):
        for new in "+-*/":
            if ch in "+-*/" and new != ch:
                swapped = solution[:i] + new + solution[i + 1:]
                if _value(swapped) != _value(solution):
                    return "operator swapped", f"Answer: {swapped}"
    return None


def _value(expression: str) -> Fraction | None:
    """Exact value of an arithmetic expression from the solver (None on division by zero)."""
    def walk(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant):
            return Fraction(node.value)
        if isinstance(node, ast.BinOp):
            a, b = walk(node.left), walk(node.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.Div: lambda: a / b}
            return ops[type(node.op)]()
        raise ValueError(ast.dump(node))

    try:
        return walk(ast.parse(expression, mode="eval").body)
    except ZeroDivisionError:
        return None


def game24_mutation(task: dict[str, Any]) -> st.SearchStrategy[tuple[str, str]]:
    """(kind, completion) pairs that must never score CORRECT: wrong numbers, off by one, broken
    format, truncation."""
    from verifiers.game24 import solutions

    solution = solutions(task["numbers"], task.get("target", 24))[0]
    digits = [i for i, ch in enumerate(solution) if ch.isdigit() and (i + 1 == len(solution) or not solution[i + 1].isdigit())]

    def off_by_one(i: int) -> tuple[str, str]:
        pos = digits[i % len(digits)]
        start = pos
        while start > 0 and solution[start - 1].isdigit():
            start -= 1
        value = int(solution[start:pos + 1]) + 1
        return "off by one", f"Answer: {solution[:start]}{value}{solution[pos + 1:]}"

    return st.one_of(
        st.integers(0, 100).map(off_by_one),
        st.integers(1, max(1, len(solution) - 1)).map(lambda k: ("truncated", f"Answer: {solution[:k]}")),
        st.just(("no answer line", solution)),
        st.just(_operator_swapped(solution) or off_by_one(0)),
        st.just(("extra number", f"Answer: ({solution}) * 1")),
    )
