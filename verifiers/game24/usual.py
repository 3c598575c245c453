"""The answer most completions end with, read in one step: a last line `Answer: <expression> = N`
in plain ASCII arithmetic (`Answer: (6 - 4) * (4 + 8) = 24`).

The general reader (`extract.final_answers`, then `answer.read_chain`) finds every marker in the
text, lets the last one win, normalises, cuts commentary and splits the chain; for this one line
all of that is known in advance: a last line can only be the last answer (a tag or `\\boxed{}`
would need a `<` or `\\` on it), an expression with an operator never defers to an earlier answer,
and plain ASCII arithmetic needs no normalising. So this reader gives exactly the general reader's
answer and links, at about half its cost, or None whenever anything is less plain, and the general
reader decides. `tests/game24/test_game24_usual.py` holds the two equal on generated completions,
so that a change to one that the other does not follow fails there.
"""

from __future__ import annotations

import re

from .answer import Link, literal_link
from .expression import ExpressionError, parse_plain

_USUAL_LINE = re.compile(r"Answer: (?P<expr>[0-9(][0-9+\-*/() ]*[0-9)]) = (?P<stated>0|[1-9][0-9]*)")


def read_usual_answer(completion: str, max_chars: int) -> tuple[str, list[Link]] | None:
    """The raw final answer and its links if the completion ends in the usual answer line, else None."""
    line = _USUAL_LINE.fullmatch(completion, completion.rfind("\n") + 1)
    if line is None:
        return None
    expr, stated = line.group("expr", "stated")
    raw = completion[line.start("expr") :]  # `<expr> = <stated>`, to the end of the text
    if len(raw) > max_chars or "  " in expr:
        return None  # too long (the general reader says so) or spaced as it would fold
    try:
        expression = parse_plain(expr, max_chars)
    except ExpressionError:
        return None  # refused: the general reader says why
    if len(expression.numbers) < 2:
        return None  # no operator: the answer may defer to an earlier one
    return raw, [Link(expr, expression, expression.num, expression.den), literal_link(stated)]
