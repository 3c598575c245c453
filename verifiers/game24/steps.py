"""Check reasoning steps `a op b = c (left: x y z)` for arithmetic and bookkeeping.

The seed model searches: it tries a path, backs up, tries another. So a step is valid when
it follows from ANY state already reached (the start, or the result of an earlier valid step),
not only the last one. Displayed numbers may be rounded (`8 / 3 = 2.67`): a number shown with
k decimals matches an exact value that rounds to it; an integer must match exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Callable, Iterator, NamedTuple, Union

from ..locate import CROSS_MARKS, lines_deny, rejected_in_its_sentence, talk_takes_back
from .expression import ExpressionError, normalise
from .grammar import TOKEN, reduce_tokens

_NUM = r"-?\d+(?:\.\d+)?(?:/\d+)?"
STEP_LINE = re.compile(
    rf"^\W*(?P<a>{_NUM})\s*(?P<op>[-+*/])\s*\(?\s*(?P<b>{_NUM})\s*\)?\s*=\s*(?P<c>{_NUM})"  # `(6 - 4) = 2`, `8 / (1/3) = 24`
    r"(?:\s*\(\s*left\s*:?\s*(?P<left>[^)]*)\))?"
)
MAX_LINE_CHARS = 300
_MAY_BE_STEP = re.compile(r"^\W*\d")  # cheap pre-filter on the raw line, before normalising
_DIGIT = re.compile(r"\d")
_WHOLE = re.compile(r"\d+")
_CROSSED = re.compile(f"[{CROSS_MARKS}]")
# Is there any step at all? A line that starts (after symbols) with a digit and holds an '='. The first
# line is matched in place and later ones found from their '\n': a pattern that starts with a literal is
# searched for at C speed, where `^` in MULTILINE mode is tried at every character (9x slower on 10 kB).
# The symbols never cross a line end: `\W*` would, and from each of n blank lines it would scan all the
# lines after it (n² steps: 16 kB of blank lines took 2.7 s, 64 kB 43 s).
_FIRST_LINE_STEP = re.compile(r"[^\w\n]*\d[^\n]*=")
_LATER_LINE_STEP = re.compile(r"\n[^\w\n]*\d[^\n]*=")

#: An exact value: an int while it is whole (the usual case, and several times faster than a
#: Fraction), a Fraction once a division leaves a remainder. The two compare and hash alike.
Exact = Union[int, Fraction]


class Shown(NamedTuple):
    """A number as the model displayed it, with the tolerance its rounding implies (0: exact)."""

    text: str
    value: Exact
    tolerance: Exact

    @classmethod
    def parse(cls, text: str) -> "Shown":
        if text.isdigit() and text.isascii():  # a whole number: most of what models show
            return cls(text, int(text), 0)
        if "/" in text:
            num, den = text.split("/")
            if int(den) == 0:
                raise ValueError("zero denominator")
            return cls(text, Fraction(int(num), int(den)), 0)
        try:
            dec = Decimal(text)
        except InvalidOperation:
            raise ValueError(text) from None
        places = max(0, -dec.as_tuple().exponent)  # type: ignore[operator]
        return cls(text, Fraction(dec), Fraction(1, 2 * 10**places) if places else 0)

    def matches(self, exact: Exact) -> bool:
        return exact == self.value if not self.tolerance else abs(exact - self.value) <= self.tolerance


@dataclass(frozen=True)
class StepReport:
    """Per-step verdicts: `valid[i]` and `reasons[i]` for the i-th checked step line."""

    valid: tuple[bool, ...] = ()
    reasons: tuple[str, ...] = ()
    total_lines: int = 0  # every step-shaped line, checked or not

    @property
    def n_valid(self) -> int:
        return sum(self.valid)

    @property
    def share_valid(self) -> float:
        return sum(self.valid) / len(self.valid) if self.valid else 0.0


NO_STEPS = StepReport()


def _divide(a: Exact, b: Exact) -> Exact | None:
    """a / b exactly (an int when it divides evenly), None for b = 0."""
    if not b:
        return None
    if type(a) is int and type(b) is int and a % b == 0:
        return a // b
    return Fraction(a) / b


_APPLY: dict[str, Callable[[Exact, Exact], Exact | None]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _divide,
}


def step_lines(text: str) -> Iterator[re.Match[str]]:
    for line in text.splitlines():
        if len(line) > MAX_LINE_CHARS or "=" not in line or not _MAY_BE_STEP.match(line):
            continue
        try:
            match = STEP_LINE.match(normalise(line))
        except ExpressionError:  # a superscript (a power): no step of the game
            continue
        if match:
            yield match


def check_steps(text: str, numbers: list[int], max_checked: int = 256) -> StepReport:
    """Validate every step line against the states reachable so far."""
    if not (_FIRST_LINE_STEP.match(text) or _LATER_LINE_STEP.search(text)):
        return NO_STEPS
    valid: list[bool] = []
    reasons: list[str] = []
    total = 0
    states: list[tuple[Exact, ...]] = [tuple(sorted(numbers))]
    seen = {states[0]}
    for match in step_lines(text):
        total += 1
        if total > max_checked:
            continue
        ok, reason, new_state = _check_one(match, states)
        valid.append(ok)
        reasons.append(reason)
        if new_state is not None and new_state not in seen:
            seen.add(new_state)
            states.append(new_state)
    return StepReport(tuple(valid), tuple(reasons), total)


def _check_one(match: re.Match[str], states: list[tuple[Exact, ...]]) -> tuple[bool, str, tuple[Exact, ...] | None]:
    try:
        a, b, c = (Shown.parse(match.group(k)) for k in "abc")
        left = (
            [Shown.parse(tok) for tok in match.group("left").replace(",", " ").split()]
            if match.group("left") is not None
            else None
        )
    except (ValueError, ZeroDivisionError):
        return False, "unreadable number", None
    apply = _APPLY[match.group("op")]
    arithmetic_seen = False
    for state in reversed(states):  # the most recent state first: the usual case
        for ia, ib in _pairs(state, a, b):
            exact = apply(state[ia], state[ib])
            if exact is None or not c.matches(exact):
                continue
            arithmetic_seen = True
            rest = [x for k, x in enumerate(state) if k not in (ia, ib)]
            new_state = tuple(sorted(rest + [exact]))
            if left is None:
                return False, "no (left: …) list", new_state
            if _multiset_matches(left, new_state):
                return True, "ok", new_state
    if arithmetic_seen:
        return False, "left list does not match the numbers remaining", None
    if _plain_arithmetic_ok(a, b, c, apply):
        return False, "operands are not numbers available at any reached state", None
    return False, "arithmetic is wrong", None


def _pairs(state: tuple[Exact, ...], a: Shown, b: Shown) -> Iterator[tuple[int, int]]:
    for ia, x in enumerate(state):
        if a.matches(x):
            for ib, y in enumerate(state):
                if ib != ia and b.matches(y):
                    yield ia, ib


def _multiset_matches(shown: list[Shown], exact: tuple[Exact, ...]) -> bool:
    """Does each shown number match a distinct exact one? (Greedy is exact here: tolerances < 1.)"""
    if len(shown) != len(exact):
        return False
    if all(s.tolerance == 0 for s in shown):  # exact values: equal as sorted lists (`exact` is sorted)
        return sorted(s.value for s in shown) == list(exact)
    remaining = list(exact)
    for s in sorted(shown, key=lambda s: s.value):
        for k, x in enumerate(remaining):
            if s.matches(x):
                del remaining[k]
                break
        else:
            return False
    return True


def _plain_arithmetic_ok(a: Shown, b: Shown, c: Shown, apply) -> bool:
    exact = apply(a.value, b.value)
    return exact is not None and c.matches(exact)


# ---------------------------------------------------------------------------------------------------
# An answer written as steps (docs/answers.md): `6 - 4 = 2`, `4 + 8 = 12`, `2 * 12 = 24`, with no
# combined expression. Each block of step lines (consecutive, blank lines allowed) is replayed from
# the puzzle's numbers; a block that combines them all into one value is a derivation, and its
# expression, built by substitution, is the answer the judge checks like any other.

# a step written result first (`24 = 2 × 12`, `where 2 = 6 − 4 and 12 = 4 + 8`), read as `a op b = c`;
# never a link of a longer chain (an operator or `=` on either side)
_REVERSED_STEP = re.compile(
    rf"(?<![\d.)=*/+-])(?<![\d.)=*/+-]\s)(?P<c>{_NUM})\s*=\s*\(?\s*(?P<a>{_NUM})\s*(?P<op>[-+*/])\s*(?P<b>{_NUM})\s*\)?"
    r"(?!\s*[-+*/=(]|[\w./])"
)
# what introduces a line's steps: a label (`Step 1:`, `Schritt 2：`, `The 24 can be made as follows:`) or a
# list number (`3.`)
_STEP_LABEL = re.compile(r"^[^\n:：=]{0,60}?[:：]\s*|^\s*\d{1,2}[.)]\s+")
_SEGMENTS = re.compile(r"[,;]\s+|\s*[→⇒]\s*")
MAX_STEP_LINES = 64  # lines of one block replayed at most (a derivation of 4 numbers has 3)


class Derivation(NamedTuple):
    """What the steps say: the combined expression (None where no block combines every number),
    why there is none where a block is refused, and where the deriving block ends."""

    expression: str | None
    why: str = ""
    end: int = 0


class _Step(NamedTuple):
    """One step `a op b = c`, its numbers as shown."""

    a: Shown
    b: Shown
    c: Shown
    op: str


# a step that combines more than two numbers (`2 × (8 + 4) = 24`, `(6 - 4) * (4 + 8) = 24`): whole
# numbers, brackets and the four operators, then its stated result; read as the steps it is made of
_GROUPED_NUMBER = r"\(*\s*\d+\s*\)*"
_COMPOUND_STEP = re.compile(
    rf"(?<![\w.])(?P<e>{_GROUPED_NUMBER}(?:\s*[-+*/]\s*{_GROUPED_NUMBER})+)\s*=\s*(?P<c>{_NUM})(?![\w/]|\.\d)"
    r"(?:\s*\([^()\n=]*\))?"  # an aside right after it (`(left: 2 4 8)`, `(using 6 and 4)`)
)


def _decomposed(expression: str, result: str) -> list[_Step] | None:
    """The binary steps `expression = result` is made of, innermost first, each with its exact
    value (`2 * (8 + 4) = 24` is `8 + 4 = 12`, `2 * 12 = 24`); the last states the shown `result`.
    None where it is no expression of the game (unbalanced, a division by zero)."""
    while expression.count("(") > expression.count(")") and expression.startswith("("):
        expression = expression[1:]  # `(6 - 4 = 2`: a bracket opened before the step, not in it
    while expression.count(")") > expression.count("(") and expression.endswith(")"):
        expression = expression[:-1]
    steps: list[_Step] = []

    def combine(op: str, a: Shown, b: Shown) -> Shown:
        value = _APPLY[op](a.value, b.value)
        if value is None:
            raise ExpressionError("division by zero")
        c = Shown(str(value), value, 0)
        steps.append(_Step(a, b, c, op))
        return c

    try:
        reduce_tokens(TOKEN.findall(expression), lambda token: Shown.parse(str(token)), combine)
        shown = Shown.parse(result)
    except (ExpressionError, ValueError, ZeroDivisionError):
        return None
    if not steps:
        return None
    steps[-1] = steps[-1]._replace(c=shown)
    return steps


def written_steps(expression: str, result: int) -> str:
    """`expression` written as the steps it is made of, one a line (`(6-4)*(4+8)` as `6 - 4 = 2`,
    `4 + 8 = 12`, `2 * 12 = 24`), or "" where it is no expression of the game (the probes' steps)."""
    steps = _decomposed(expression, str(result)) or []
    return "\n".join(f"{s.a.text} {s.op} {s.b.text} = {s.c.text}" for s in steps)


def _steps_of(line: str, numbers: list[int]) -> list[_Step] | None:
    """The steps one line holds (`a op b = c`, one or several separated by `,` `;` `→`; a step over
    more numbers as the steps it is made of), or None."""
    if len(line) > MAX_LINE_CHARS or "=" not in line:
        return None
    body = _STEP_LABEL.sub("", line, count=1)
    if rejected_in_its_sentence(body) or _CROSSED.search(body):  # `… = 24 is wrong.`, `… = 22 ✗`: struck out
        return None
    if not _MAY_BE_STEP.match(body):  # cheap, before any normalising
        return _steps_in_sentences(body, numbers)
    found = []
    for segment in _SEGMENTS.split(body):
        try:
            match = STEP_LINE.match(_forward(normalise(segment))) if segment.strip() else None
            step = _Step(*(Shown.parse(match.group(k)) for k in "abc"), match.group("op")) if match else None
        except (ExpressionError, ValueError, ZeroDivisionError):
            return None
        if match is None or _DIGIT.search(match.string, match.end()):  # `6 - 4 = 2 and 4 + 8 = 12`: more steps
            return _steps_in_sentences(body, numbers)
        found.append(step)
    return found or None


_LIST_NUMBER = re.compile(r"(?<![\w.])\d{1,2}[.)](?=\s)")  # `1. 6 - 4 = 2; 2. 4 + 8 = 12`


def _steps_in_sentences(body: str, numbers: list[int]) -> list[_Step] | None:
    """The steps of a line written as sentences (`First 6 - 4 = 2. Then 2 × (8 + 4) = 24.`), where
    every number on it is in a step, numbers a list item or restates a step's result (`To make 2
    and 12: (6-4) gives 2 and (4+8) gives 12, …`): a line that mentions any other number is
    reasoning about it, not a derivation. An aside holds no step of its own: `2 * 12 = 24 (since
    6 - 4 = 2 and 4 + 8 = 12)` is three steps."""
    try:
        plain = _forward(normalise(body))
    except ExpressionError:
        return None
    found: list[_Step] = []
    rest = plain
    for m in _COMPOUND_STEP.finditer(plain):
        if _combines_every_number(m.group("e"), numbers):
            continue  # its numbers stay in `rest`: the line is no step
        steps = _decomposed(m.group("e"), m.group("c"))
        if steps is None:
            return None
        found += steps
        rest = rest.replace(m.group(), " ", 1)
    rest = _LIST_NUMBER.sub(" ", rest)
    results = {step.c.text for step in found}  # `The trick is to make 2 and 12. (6-4) = 2 and …`: restated
    rest = _WHOLE.sub(lambda n: " " if n.group() in results else n.group(), rest)
    return found if found and not _DIGIT.search(rest) else None


def _combines_every_number(expression: str, numbers: list[int]) -> bool:
    """Does `expression` combine every number of the puzzle at once (`8 * 4 - 6 - 4`, `(6 - 4) *
    (4 + 8)`)? That is an attempt at the whole answer, read where the text puts its answer (or a try
    in its search), never a step: a step over more numbers combines some of them (`1 * 1 + 7 = 8`)
    or uses a value an earlier step made (`2 * (4 + 8) = 24`)."""
    return sorted(int(n) for n in _WHOLE.findall(expression)) == sorted(numbers)


def _forward(plain: str) -> str:
    """`plain` (normalised) with steps written result first as `a op b = c`."""
    return _REVERSED_STEP.sub(r"\g<a> \g<op> \g<b> = \g<c>", plain) if "=" in plain else plain


def _blocks(text: str, numbers: list[int]) -> list[tuple[int, int, list[_Step]]]:
    """Runs of step lines: (start offset, end offset, steps). A line met again is read once (a model
    stuck repeating one step line writes it thousands of times)."""
    blocks: list[tuple[int, int, list[_Step]]] = []
    current: list[_Step] = []
    start = offset = 0
    read: dict[str, list[_Step] | None] = {}
    for line in text.split("\n"):
        if line not in read:
            read[line] = _steps_of(line, numbers)
        steps = read[line]
        if steps:
            if not current:
                start = offset
            current += steps
        elif line.strip() and current:
            blocks.append((start, offset, current))
            current = []
        offset += len(line) + 1
    if current:
        blocks.append((start, offset, current))
    return blocks


def _replay(steps: list[_Step], numbers: list[int]) -> str | None:
    """The expression a block of steps builds from `numbers`, where it uses each exactly once and
    every stated result is the true one; None otherwise. The steps may come in any order (`2 × 12 =
    24, where 2 = 6 − 4 and 12 = 4 + 8`): a block of up to MOST_STEPS_ORDERED is tried in every order
    its operands allow (written order first), a longer one in the order written."""
    parsed = steps[:MAX_STEP_LINES]
    items = [(n, str(n)) for n in numbers]
    if len(parsed) > MOST_STEPS_ORDERED:
        for step in parsed:
            if not _apply(step, items):
                return None
        return items[0][1][1:-1] if len(items) == 1 and parsed else None
    if not parsed or any(_false(step) for step in parsed):
        return None  # a step that states a false result derives nothing, in any order
    return _in_some_order(parsed, items, frozenset(range(len(parsed))), set())


MOST_STEPS_ORDERED = 7  # a derivation of 8 numbers has 7 steps
MOST_ORDERS_TRIED = 512  # states of one block tried at most: the search stays bounded on any text


def _false(step: _Step) -> bool:
    """Does `step` state a false result whatever its operands' exact values (shown exactly)?"""
    a, b, c, op = step
    if a.tolerance or b.tolerance:
        return False  # a rounded operand: only the exact value it stands for decides
    value = _APPLY[op](a.value, b.value)
    return value is None or not c.matches(value)


def _in_some_order(
    parsed: list[_Step], items: list[tuple[Exact, str]], left: frozenset[int], tried: set[tuple]
) -> str | None:
    """The expression the steps `left` build from `items` applied in some order, or None."""
    if not left:
        return items[0][1][1:-1] if len(items) == 1 else None
    key = (left, tuple(sorted(value for value, _ in items)))
    if key in tried or len(tried) >= MOST_ORDERS_TRIED:
        return None
    tried.add(key)
    for i in sorted(left):  # written order first
        after = list(items)
        if _apply(parsed[i], after):
            found = _in_some_order(parsed, after, left - {i}, tried)
            if found is not None:
                return found
    return None


def _apply(step: _Step, items: list[tuple[Exact, str]]) -> bool:
    """Apply `step` to `items` (values, with the expressions that make them)
    where both its operands are there and its result is the true one; False otherwise (items as
    they were)."""
    a, b, c, op = step
    first = next((i for i in range(len(items) - 1, -1, -1) if a.matches(items[i][0])), None)
    second = next((i for i in range(len(items) - 1, -1, -1) if i != first and b.matches(items[i][0])), None)
    if first is None or second is None:
        return False
    (x, ex), (y, ey) = items[first], items[second]
    value = _APPLY[op](x, y)
    if value is None or not c.matches(value):
        return False  # a step that states a false result derives nothing
    for at in sorted((first, second), reverse=True):
        items.pop(at)
    items.append((value, f"({ex} {op} {ey})"))
    return True


def derivation_at(text: str, numbers: list[int]) -> str | None:
    """The expression the block of steps that begins on `text`'s first line builds from every
    number (an answer whose label stands over its steps: `Answer:` then `6 - 4 = 2`, `4 + 8 = 12`,
    `2 * 12 = 24`), or None. Every step of that block must take part, so that an answer followed by
    a check of another (`Answer: 4 * 6 = 24`, `Check: 6 - 4 = 2, …`) derives nothing."""
    blocks = _blocks(text, numbers)
    return _replay(blocks[0][2], numbers) if blocks and blocks[0][0] == 0 else None


def derivation(text: str, numbers: list[int], offers: Callable[[str], bool]) -> Derivation:
    """The last block of steps that combines every number, as one expression. Where an earlier
    block does too, with another expression, and the words between offer the later beside it
    (`offers`), there are two answers: refused (an earlier block never stands in for the last); so
    is a derivation the text then takes back (`There is no solution.`)."""
    complete = [(start, end, e) for start, end, steps in _blocks(text, numbers) if (e := _replay(steps, numbers))]
    if not complete:
        return Derivation(None)
    start, end, expression = complete[-1]
    if lines_deny(text[end:]):
        return Derivation(None, "no final answer: after its steps the text says there is no solution")
    if talk_takes_back(text[end:]):
        return Derivation(None, "no final answer: after its steps the text doubts them or takes them back")
    for _start, earlier_end, earlier in reversed(complete[:-1]):
        if earlier != expression:
            if offers(text[earlier_end:start]):
                return Derivation(None, "two different derivations (another is offered after the first)")
            break
    return Derivation(expression, end=end)
