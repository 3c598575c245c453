"""The answers most completions end with, read in one step: a last line `Answer: <expression> = N`,
or the text ending in `<answer><expression></answer>` (the R1 / TinyZero format) or in
`\\boxed{<expression>}`, with `= N` or without it inside the two, in plain ASCII arithmetic
(`Answer: (6 - 4) * (4 + 8) = 24`, `<answer>(6-4)*(4+8)</answer>`).

The general reader (`extract.final_answers`, then `answer.read_chain`) finds every marker in the
text, lets the last one win, normalises, cuts commentary and splits the chain; for these endings
all of that is known in advance: what ends the text is the last answer (plain arithmetic holds no
marker, and another marker after its start would lie inside it), an expression with an operator
never defers to an earlier answer, plain ASCII arithmetic needs no normalising, and where no other
answer marker comes before it (this reader declines otherwise), no other answer is offered beside
it or shown as a mistake beside it, so the verifier skips that check too. So this reader
gives exactly the general reader's answer and links, at about half its cost, or None whenever
anything is less plain, and the general reader decides. `tests/game24/test_game24_usual.py` holds
the two equal on generated completions, so that a change to one that the other does not follow
fails there.
"""

from __future__ import annotations

import re
from typing import Iterable

from .answer import Link, literal_link
from .expression import ExpressionError, parse_plain

_EXPRESSION = r"(?P<expr>[0-9(][0-9+\-*/() ]*[0-9)])"
_STATED = r"(?P<stated>0|[1-9][0-9]*)"
_USUAL_LINE = re.compile(rf"Answer: {_EXPRESSION} = {_STATED}")
_ENCLOSED = re.compile(rf"{_EXPRESSION}(?: = {_STATED})?")
_ENCLOSURES = (("answer_tag", "<answer>", "</answer>"), ("boxed", "\\boxed{", "}"))  # format, opener, closer


def read_usual_answer(completion: str, max_chars: int, formats: Iterable[str]) -> tuple[str, list[Link]] | None:
    """The raw final answer and its links if the completion ends in a usual answer (in one of the
    answer `formats` the verifier reads), else None."""
    found = _usual_ending(completion, formats)
    if found is None:
        return None
    raw, match, at = found
    if _marked_before(completion, at):
        return None  # another answer before it: the general reader weighs the two (a mistake shown, a hedge)
    if len(raw) > max_chars or "  " in raw:
        return None  # too long (the general reader says so) or spaced as it would fold
    expr, stated = match.group("expr", "stated")
    try:
        expression = parse_plain(expr, max_chars)
    except ExpressionError:
        return None  # refused: the general reader says why
    if len(expression.numbers) < 2:
        return None  # no operator: the answer may defer to an earlier one
    links = [Link(expr, expression, expression.num, expression.den)]
    return raw, links if stated is None else [*links, literal_link(stated)]


def _marked_before(completion: str, at: int) -> bool:
    """Is there another answer marker before the final answer's, which starts at `at`? Where there
    is none (most completions), the usual answer stands alone: nothing before it can be an answer it
    defers to, replaces, is offered beside or is shown as a mistake beside, and nothing follows it.
    One copy of the text before it, searched three times: cheaper than three bounded searches."""
    before = completion[:at]
    return "nswer" in before or "boxed" in before or "NSWER" in before


def _usual_ending(completion: str, formats: Iterable[str]) -> tuple[str, re.Match[str], int] | None:
    """The final answer as the general reader would take it (the text it reads), its match and
    where its marker starts."""
    for name, opener, closer in _ENCLOSURES:
        if completion.endswith(closer):
            start = completion.rfind(opener)
            if name not in formats or start < 0:
                return None
            raw = completion[start + len(opener) : len(completion) - len(closer)].strip()
            match = _ENCLOSED.fullmatch(raw)
            return (raw, match, start) if match else None
    if "answer_line" not in formats:
        return None
    line = completion.rfind("\n") + 1
    match = _USUAL_LINE.fullmatch(completion, line)
    return (completion[match.start("expr") :], match, line) if match else None
