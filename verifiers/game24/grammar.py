"""The game's arithmetic, evaluated: integer literals, parentheses and binary + - * /. Nothing
else exists in this grammar, so nothing else can run.

Two ways in, one precedence rule (`reduce_tokens`):
- `evaluate_tokens` evaluates a token list and, for text outside the grammar, raises
  ExpressionError with the reason;
- `compiled(shape)` turns an expression's shape (the text between its numbers: `(6 - 4) * (4 + 8)`
  has the shape `("(", " - ", ") * (", " + ", ")")`) into a function of its numbers, once. Answers
  share a few dozen shapes, so most are evaluated without being parsed again (a fifth of the cost
  of tokenising and reducing them).
  A shape outside the grammar compiles to None; the caller then evaluates the tokens, which says why.

Values are exact unreduced (numerator, denominator > 0) pairs: several times faster than a
`Fraction` per step, and the integers stay small (at most 200 characters of input). Both ways
compute the very same pairs: `tests/game24/test_game24_expression.py` holds them equal on
generated text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterable, TypeVar

Rational = tuple[int, int]
Program = Callable[[list[int]], Rational]  # an expression of one shape, as a function of its numbers
Value = TypeVar("Value")

TOKEN = re.compile(r"[0-9]+|[-+*/()]")
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


class ExpressionError(ValueError):
    """The text is not a well-formed expression under the game's rules (an INVALID answer)."""


def evaluate_tokens(tokens: list[str], numbers: list[int]) -> Rational:
    """The value of an expression's tokens; its literals are appended to `numbers` in order."""

    def operand(token: str | int) -> Rational:
        text = str(token)
        if len(text) > 1 and text[0] == "0":
            raise ExpressionError(f"leading zero in {text!r}")
        value = int(text)
        numbers.append(value)
        return value, 1

    return reduce_tokens(tokens, operand, _combine_values)


@lru_cache(maxsize=4096)
def compiled(shape: tuple[str, ...]) -> Program | None:
    """The function that evaluates an expression of this shape from its numbers (in order), or None
    where the shape is outside the grammar. Its numbers are checked by the caller (no leading zeros)."""
    tokens: list[str | int] = []
    for index, between in enumerate(shape):
        tokens += TOKEN.findall(between)
        if index < len(shape) - 1:
            tokens.append(index)  # the index-th number
    try:
        program = reduce_tokens(tokens, lambda index: index, _combine_programs)
    except ExpressionError:
        return None
    return _number(program) if isinstance(program, int) else program


def reduce_tokens(
    tokens: Iterable[str | int],
    operand: Callable[[str | int], Value],
    combine: Callable[[str, Value, Value], Value],
) -> Value:
    """Operator precedence, one loop and two stacks: `operand` makes a value of a number (its digits,
    or its index in a shape), `combine` applies an operator to two values."""
    values: list[Value] = []
    ops: list[str] = []

    def apply(op: str) -> None:
        right = values.pop()
        values.append(combine(op, values.pop(), right))

    want_operand = True
    for tok in tokens:
        if want_operand:
            if tok == "(":
                ops.append("(")
            elif isinstance(tok, int) or tok.isdigit():
                values.append(operand(tok))
                want_operand = False
            elif tok in ("+", "-"):
                raise ExpressionError("unary signs are not allowed: combine two numbers at a time")
            else:
                raise ExpressionError(f"not a well-formed expression (unexpected {tok!r})")
        elif tok == ")":
            while ops and ops[-1] != "(":
                apply(ops.pop())
            if not ops:
                raise ExpressionError("not a well-formed expression (unbalanced parentheses)")
            ops.pop()
        elif tok in _PRECEDENCE:
            precedence = _PRECEDENCE[tok]  # type: ignore[index]
            while ops and ops[-1] != "(" and _PRECEDENCE[ops[-1]] >= precedence:
                apply(ops.pop())
            ops.append(tok)  # type: ignore[arg-type]
            want_operand = True
        else:
            raise ExpressionError(f"not a well-formed expression (unexpected {tok!r})")
    if want_operand:
        raise ExpressionError("not a well-formed expression (it ends too early)")
    while ops:
        op = ops.pop()
        if op == "(":
            raise ExpressionError("not a well-formed expression (unbalanced parentheses)")
        apply(op)
    return values[0]


def _combine_values(op: str, left: Rational, right: Rational) -> Rational:
    return _OPERATIONS[op](left, right)


def _add(left: Rational, right: Rational) -> Rational:
    (a, b), (c, d) = left, right
    return a * d + c * b, b * d


def _subtract(left: Rational, right: Rational) -> Rational:
    (a, b), (c, d) = left, right
    return a * d - c * b, b * d


def _multiply(left: Rational, right: Rational) -> Rational:
    (a, b), (c, d) = left, right
    return a * c, b * d


def _divide(left: Rational, right: Rational) -> Rational:
    (a, b), (c, d) = left, right
    if c == 0:
        raise ExpressionError("division by zero")
    return (a * d, b * c) if c > 0 else (-a * d, -b * c)


_OPERATIONS = {"+": _add, "-": _subtract, "*": _multiply, "/": _divide}


def _combine_programs(op: str, left: int | Program, right: int | Program) -> Program:
    """The program of `left op right`; two numbers (indices) are combined in place, as most
    operations combine two numbers. Each computes exactly what `_combine_values` computes."""
    if isinstance(left, int) and isinstance(right, int):
        i, j = left, right
        if op == "+":
            return lambda x: (x[i] + x[j], 1)
        if op == "-":
            return lambda x: (x[i] - x[j], 1)
        if op == "*":
            return lambda x: (x[i] * x[j], 1)

        def divide(x: list[int]) -> Rational:
            if x[j] == 0:
                raise ExpressionError("division by zero")
            return x[i], x[j]  # numbers are never negative

        return divide
    lhs = _number(left) if isinstance(left, int) else left
    rhs = _number(right) if isinstance(right, int) else right
    operation = _OPERATIONS[op]
    return lambda x: operation(lhs(x), rhs(x))


def _number(index: int) -> Program:
    return lambda x: (x[index], 1)
