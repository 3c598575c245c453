"""The step checker: arithmetic, bookkeeping, rounding and backtracking search traces, as listed
cases and as generated step chains (every value shown whole, as a fraction or rounded)."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.game24.steps import check_steps

TOT_EXAMPLE = """4 + 8 = 12 (left: 4 6 12)
6 - 4 = 2 (left: 2 12)
2 * 12 = 24 (left: 24)
Answer: (6 - 4) * (4 + 8) = 24"""


def test_the_tot_format_is_all_valid():
    r = check_steps(TOT_EXAMPLE, [4, 4, 6, 8])
    assert r.valid == (True, True, True) and r.share_valid == 1.0


def test_wrong_arithmetic_and_wrong_bookkeeping_are_caught():
    text = "4 + 8 = 13 (left: 4 6 13)\n4 + 8 = 12 (left: 4 6 11)\n4 + 8 = 12"
    r = check_steps(text, [4, 4, 6, 8])
    assert r.valid == (False, False, False)
    assert r.reasons == ("arithmetic is wrong", "left list does not match the numbers remaining", "no (left: …) list")


def test_operands_must_be_available():
    r = check_steps("9 + 15 = 24 (left: 24)", [4, 4, 6, 8])
    assert r.valid == (False,) and "not numbers available" in r.reasons[0]


def test_rounded_decimals_within_their_display_precision():
    text = "8 / 3 = 2.67 (left: 2.67 3 8)\n3 - 2.67 = 0.33 (left: 0.33 8)\n8 / 0.33 = 24 (left: 24)"
    assert check_steps(text, [3, 3, 8, 8]).valid == (True, True, True)
    assert check_steps("8 / 3 = 2.7 (left: 2.7 3 8)", [3, 3, 8, 8]).valid == (True,)
    assert check_steps("8 / 3 = 2.6 (left: 2.6 3 8)", [3, 3, 8, 8]).valid == (False,)
    assert check_steps("8 / 3 = 3 (left: 3 3 8)", [3, 3, 8, 8]).valid == (False,)  # integers are exact


def test_backtracking_to_an_earlier_state_is_valid():
    text = """1 + 2 = 3 (left: 3 3 4)
3 * 3 = 9 (left: 4 9)
4 + 9 = 13 (left: 13)
Backtrack to 1 2 3 4:
1 + 3 = 4 (left: 2 4 4)
2 * 4 = 8 (left: 4 8)
Back to 3 3 4:
3 + 3 = 6 (left: 4 6)
4 * 6 = 24 (left: 24)"""
    r = check_steps(text, [1, 2, 3, 4])
    assert r.valid == (True,) * 7
    # A step from a state never reached is not valid even if the arithmetic is right.
    assert check_steps("4 * 6 = 24 (left: 24)", [1, 2, 3, 4]).valid == (False,)


def test_step_count_includes_unchecked_lines_beyond_the_cap():
    text = "\n".join("1 + 2 = 3 (left: 3 3 4)" for _ in range(10))
    r = check_steps(text, [1, 2, 3, 4], max_checked=4)
    assert r.total_lines == 10 and len(r.valid) == 4


def _shown(value: Fraction, style: str) -> str:
    """`value` as a model shows it: whole, `a/b`, or rounded to two decimals."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}" if style == "fraction" else f"{float(value):.2f}"


@st.composite
def step_chains(draw: st.DrawFn) -> tuple[list[int], list[tuple[str, Fraction, Fraction, Fraction, list[Fraction]]]]:
    """A puzzle and a chain of steps that combine two numbers of the current state (results never
    negative, never a division by zero), as (op, a, b, c, the numbers left)."""
    numbers = draw(st.lists(st.integers(0, 13), min_size=2, max_size=5))
    state = [Fraction(n) for n in numbers]
    steps = []
    while len(state) > 1 and draw(st.booleans() if steps else st.just(True)):
        ia, ib = draw(st.permutations(range(len(state))))[:2]
        a, b = state[ia], state[ib]
        op = draw(st.sampled_from("+-*/"))
        if op == "-" and a < b or op == "/" and b == 0:
            op = "+"
        c = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[op]
        state = [x for k, x in enumerate(state) if k not in (ia, ib)] + [c]
        steps.append((op, a, b, c, sorted(state)))
    return numbers, steps


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(step_chains(), st.sampled_from(["fraction", "decimal"]), st.sampled_from(["right", "result", "left"]))
def test_generated_step_chains_are_valid_and_their_mistakes_are_caught(case, style, mistake_kind):
    """Every step of a generated chain is valid however its values are shown; a result that is off
    by one, or a left list with one number off by one, makes that step invalid."""
    numbers, steps = case
    lines = []
    for k, (op, a, b, c, left) in enumerate(steps):
        shown_c, shown_left = c, list(left)
        if k == len(steps) - 1 and mistake_kind == "result":
            shown_c = c + 1
            shown_left[left.index(c)] = c + 1
        if k == len(steps) - 1 and mistake_kind == "left":
            shown_left[0] += 1
        left_text = " ".join(_shown(x, style) for x in shown_left)
        lines.append(f"{_shown(a, style)} {op} {_shown(b, style)} = {_shown(shown_c, style)} (left: {left_text})")
    report = check_steps("\n".join(lines), numbers)
    expected = (True,) * len(steps) if mistake_kind == "right" else (True,) * (len(steps) - 1) + (False,)
    assert report.valid == expected, (lines, report.reasons)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(["\n", " ", "-", "*", "=", "7", "12", "a", "(", "é", "٣", "\r", "\u2028"]), max_size=30)
)
def test_the_any_step_prefilter_finds_exactly_the_lines_a_multiline_scan_finds(pieces):
    """The prefilter (the first line matched in place, later ones found from their newline) says yes
    exactly when the one-pattern scan `^…` in MULTILINE mode does: the same texts reach the checker."""
    import re

    from verifiers.game24 import steps

    text = "".join(pieces)
    multiline = re.compile(r"^\W*\d[^\n]*=", re.MULTILINE).search(text) is not None
    prefilter = bool(steps._FIRST_LINE_STEP.match(text) or steps._LATER_LINE_STEP.search(text))
    assert prefilter == multiline
