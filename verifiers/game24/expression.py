"""Safe, exact checking of a 24-game expression written by a model.

Never `eval`, never sympy on model text (both run `9**9**9` forever and accept `4!` or `2^3`).
The text is normalised (NFKC plus an explicit operator map), checked against a character
whitelist and a length cap, parsed with `ast` (parsing evaluates nothing), and walked with
only integer literals and binary + - * / allowed, in exact `Fraction` arithmetic.

Decisions, documented so that rewards are predictable:
- Unary minus/plus is refused: the classic rules combine two numbers at a time.
- A trailing `= N` is accepted (models write `... = 24`); N must be an integer and is not
  trusted: the value of the left side is what counts. Any other `=` is refused.
- Leading zeros (`08`) are refused, as Python's grammar refuses them: `08` is not a card.
- Numbers are compared as a multiset of literals, so `24` written from 2 and 4 fails.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

MAX_EXPRESSION_CHARS = 200

# Operator look-alikes NFKC leaves alone; mapped explicitly.
_OPERATOR_MAP = str.maketrans({
    "×": "*", "✕": "*", "✖": "*", "⋅": "*", "·": "*", "∗": "*", "\u2062": "*",
    "÷": "/", "∕": "/", "⁄": "/",
    "−": "-", "–": "-", "—": "-", "‒": "-", "﹣": "-", "‐": "-", "‑": "-",
    "［": "(", "］": ")", "[": "(", "]": ")",
})
_LATEX = [(r"\times", "*"), (r"\cdot", "*"), (r"\div", "/"), (r"\left", ""), (r"\right", ""), ("{", "("), ("}", ")")]
_ALLOWED = re.compile(r"[0-9+\-*/() ]*")
_TRAILING_EQUALS = re.compile(r"^(?P<lhs>[^=]*)=\s*(?P<rhs>[0-9]+)\s*$")


class ExpressionError(ValueError):
    """The text is not a well-formed expression under the game's rules (an INVALID answer)."""


@dataclass(frozen=True)
class Evaluated:
    """A well-formed expression: its exact value and the integer literals it uses."""

    text: str
    value: Fraction
    numbers: tuple[int, ...]

    def uses_exactly(self, numbers: list[int] | tuple[int, ...]) -> bool:
        return Counter(self.numbers) == Counter(numbers)


def normalise(text: str) -> str:
    """NFKC (full-width digits and signs), the operator map, LaTeX operators, whitespace folded."""
    text = unicodedata.normalize("NFKC", text).translate(_OPERATOR_MAP)
    for latex, plain in _LATEX:
        text = text.replace(latex, plain)
    return " ".join(text.replace("$", " ").split()).rstrip(".。")


def parse(text: str, max_chars: int = MAX_EXPRESSION_CHARS) -> Evaluated:
    """Check and evaluate `text`; raises ExpressionError with a human reason if it is not allowed."""
    if len(text) > 4 * max_chars:  # before normalising, so a megabyte never reaches NFKC
        raise ExpressionError(f"expression longer than {max_chars} characters")
    expr = normalise(text)
    if not expr:
        raise ExpressionError("empty expression")
    match = _TRAILING_EQUALS.match(expr)
    if match:
        expr = match.group("lhs").strip()
    if "=" in expr:
        raise ExpressionError("only one trailing '= N' is allowed")
    if len(expr) > max_chars:
        raise ExpressionError(f"expression longer than {max_chars} characters")
    if not _ALLOWED.fullmatch(expr):
        bad = sorted({c for c in expr if not _ALLOWED.fullmatch(c)})
        raise ExpressionError(f"characters not allowed: {''.join(bad)!r} (only digits, + - * / and parentheses)")
    if "**" in expr or "//" in expr:
        raise ExpressionError("'**' and '//' are not allowed")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not a well-formed expression ({exc.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise ExpressionError("expression nested too deeply") from None
    numbers: list[int] = []
    value = _evaluate(tree.body, numbers)
    return Evaluated(expr, value, tuple(numbers))


_OPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
}


def _evaluate(node: ast.AST, numbers: list[int]) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        numbers.append(node.value)
        return Fraction(node.value)
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, numbers)
        right = _evaluate(node.right, numbers)
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise ExpressionError("division by zero")
            return left / right
        op = _OPS.get(type(node.op))
        if op is not None:
            return op(left, right)
        raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.UnaryOp):
        raise ExpressionError("unary signs are not allowed: combine two numbers at a time")
    raise ExpressionError(f"{type(node).__name__} is not allowed")


def format_fraction(value: Fraction) -> str:
    """`24`, `-3` or `170/7`: the exact value as text."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
