"""Hypothesis strategies for the 24-point game: correct answers in every format, and wrong ones
(wrong numbers, off by one, broken format, truncation) that must never score CORRECT."""

from __future__ import annotations

import ast
from fractions import Fraction
from typing import Any, Mapping

from hypothesis import strategies as st

from .solver import solutions


def correct_answer(task: Mapping[str, Any]) -> st.SearchStrategy[str]:
    """A correct final answer for `task`: any of its solutions, in any of the answer formats."""
    sols = solutions(task["numbers"], task.get("target", 24))
    # the last one unmarked: a completion that is only the expression is the answer (docs/answers.md)
    templates = ["Answer: {} = {t}", "<answer>{}</answer>", "so the result is \\boxed{{{}}}", "Answer: {}", "{}"]
    return st.builds(
        lambda s, tpl: tpl.format(s, t=task.get("target", 24)), st.sampled_from(sols), st.sampled_from(templates)
    )


def _operator_swapped(solution: str) -> tuple[str, str] | None:
    """One operator changed so that the value changes (2 * 2 -> 2 + 2 would still make 24)."""
    for i, ch in enumerate(solution):
        for new in "+-*/":
            if ch in "+-*/" and new != ch:
                swapped = solution[:i] + new + solution[i + 1 :]
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


def wrong_answer(task: Mapping[str, Any]) -> st.SearchStrategy[tuple[str, str]]:
    """(kind, completion) pairs that must never score CORRECT: wrong numbers, off by one, broken
    format, truncation. (A bare right expression is an answer: docs/answers.md.)"""
    solution = solutions(task["numbers"], task.get("target", 24))[0]
    digits = [
        i for i, ch in enumerate(solution) if ch.isdigit() and (i + 1 == len(solution) or not solution[i + 1].isdigit())
    ]

    def off_by_one(i: int) -> tuple[str, str]:
        pos = digits[i % len(digits)]
        start = pos
        while start > 0 and solution[start - 1].isdigit():
            start -= 1
        value = int(solution[start : pos + 1]) + 1
        return "off by one", f"Answer: {solution[:start]}{value}{solution[pos + 1 :]}"

    return st.one_of(
        st.integers(0, 100).map(off_by_one),
        st.integers(1, max(1, len(solution) - 1)).map(lambda k: ("truncated", f"Answer: {solution[:k]}")),
        st.just(_operator_swapped(solution) or off_by_one(0)),
        st.just(("extra number", f"Answer: ({solution}) * 1")),
    )
