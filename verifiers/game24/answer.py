"""A final answer as models write it: one expression, or a chain of equalities around it.

`20 - 10 + 21 = 31 = 31`, `= 10 - 20 + 21 = 11`, `**(6-4)*(4+8)** = 24`, `(6-4) x (4+8) = 24.0`,
`(6-4)*(4+8), which equals 24`. The text is split at `=` into links; each link is parsed on its own
by `expression.parse` (so every refusal keeps its reason), except that a link which is only a
number may be a decimal (`24.0`): a stated value, never arithmetic. How the links are judged is the
verifier's (`Game24Verifier._judge_chain`): correct iff some link is an expression over exactly the
puzzle's numbers equal to the target and no link states another value.

The only rewrites are the ones listed here; none adds arithmetic:
- `x` or `X` between two operands (a digit or `)` before it, a digit or `(` after) is `*`;
- a trailing clause `, which equals N` (also `which is`, `that equals`, `giving`) is the link `= N`;
- markdown bold around any one link is removed, as around the whole answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from .expression import Evaluated, ExpressionError, normalise, parse, strip_bold

_TIMES = re.compile(r"(?<=[0-9)])\s*[xX]\s*(?=[0-9(])")
_CLAUSE = re.compile(
    r"\s*[,;]?\s*(?:which|that|this|it)?\s*(?:equals|is equal to|is|gives|giving|makes)\s+(?P<value>[0-9]+(?:\.[0-9]+)?)\s*$",
    re.IGNORECASE,
)
_DECIMAL = re.compile(r"[0-9]+\.[0-9]+")
_LETTER = re.compile(r"[A-Za-z]")  # every clause word has one: most answers skip the clause search
MAX_LINKS = 8


@dataclass(frozen=True)
class Link:
    """One side of the chain: a parsed expression, or a stated decimal value; its value is num/den
    (not reduced: compared by cross-multiplication, never one Fraction per item)."""

    text: str
    expression: Evaluated | None  # None for a stated decimal
    num: int
    den: int

    @property
    def has_operator(self) -> bool:
        return self.expression is not None and any(op in self.text for op in "+-*/")

    def differs_from(self, num: int, den: int) -> bool:
        """Does this link state a value other than num/den?"""
        return self.num * den != num * self.den


def read_chain(text: str, max_chars: int) -> list[Link]:
    """The answer's links, in order; raises ExpressionError (with the failing link's reason)."""
    if len(text) > 4 * max_chars:  # before normalising, so a megabyte never reaches NFKC
        raise ExpressionError(f"expression longer than {max_chars} characters")
    plain = normalise(text)
    clause = _CLAUSE.search(plain) if _LETTER.search(plain) else None
    if clause and "=" not in plain[clause.start() :] and clause.start() > 0:
        plain = f"{plain[: clause.start()]} = {clause.group('value')}"
    if "x" in plain or "X" in plain:
        plain = _TIMES.sub(" * ", plain)
    parts = [p.strip() for p in plain.split("=")]
    if parts and not parts[0] and len(parts) > 1:  # "= 10 - 20 + 21 = 11": a leading "=" opens nothing
        parts = parts[1:]
    if len(parts) > MAX_LINKS:
        raise ExpressionError(f"more than {MAX_LINKS - 1} '=' in the answer")
    links = []
    for part in parts:
        if not part:
            raise ExpressionError("an '=' with nothing on one side")
        bare = strip_bold(part)
        if _DECIMAL.fullmatch(bare):
            value = Fraction(bare)
            links.append(Link(bare, None, value.numerator, value.denominator))
            continue
        expression = parse(bare, max_chars)
        links.append(Link(expression.text, expression, expression.num, expression.den))
    return links
