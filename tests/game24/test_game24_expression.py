"""The expression checker: exact arithmetic, the rules, and every pitfall from the research notes."""

import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.game24.expression import ExpressionError, parse


@pytest.mark.parametrize(
    "text, value, numbers",
    [
        ("(6 - 4) * (4 + 8)", 24, (6, 4, 4, 8)),
        ("8/(3-8/3)", 24, (8, 3, 8, 3)),  # 23.999999999999996 in floats
        ("(6 − 4) × (4 + 8) = 24", 24, (6, 4, 4, 8)),  # U+2212 and the multiplication sign
        ("（６－４）＊（４＋８）", 24, (6, 4, 4, 8)),  # full width, NFKC
        ("12 ÷ 3 · 6", 24, (12, 3, 6)),
        ("\\left(6-4\\right) \\times (4+8)", 24, (6, 4, 4, 8)),
        ("٣*8*1*1", 24, (3, 8, 1, 1)),  # Arabic-Indic digits, as models print them
        ("(6-4) ∙ (4+8)", 24, (6, 4, 4, 8)),
        ("(6-4) ⨯ (4+8)", 24, (6, 4, 4, 8)),
        ("(6-4) ✖️ (4\u200b+8)", 24, (6, 4, 4, 8)),  # an emoji times sign and a zero-width space
        ("\\Big(6-4\\Big) \\ast \\bigl(4+8\\bigr)", 24, (6, 4, 4, 8)),
    ],
)
def test_accepts_well_formed_expressions(text, value, numbers):
    ev = parse(text)
    assert ev.value == value and sorted(ev.numbers) == sorted(numbers)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("9**9**9", "'**'"),
        ("2^3*3*1", "not allowed"),
        ("4!*1*1*1", "not allowed"),
        ("6*4/(1-1)", "division by zero"),
        ("08*3*1*1", "leading zero"),
        ("-(1-4)*8*1", "unary"),
        ("__import__('os').system('id')", "not allowed"),
        ("3²*8", "superscript"),  # NFKC would read 3² as 32
        ("4⁻¹*24", "superscript"),  # and 4⁻¹ as 4-1
        ("½*48", "fraction character"),
        ("x₂+1", "subscript"),
        ("1 = 2 = 3", "trailing"),
        ("3.0*8", "not allowed"),
        ("", "empty"),
        ("(" * 300 + "1" + ")" * 300, "longer than"),
        (
            "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
            "",
        ),
    ],
)
def test_rejects_with_a_reason(text, reason):
    try:
        parse(text)
    except ExpressionError as exc:
        assert reason in str(exc)
    else:
        assert reason == "", f"{text!r} should have been rejected"


def test_wrong_numbers_and_truncation_are_visible():
    ev = parse("(9+8)*(10/7)")
    assert ev.value == Fraction(170, 7)  # int() truncation would call this 24
    assert not parse("24*1*1*1").uses_exactly([2, 4, 1, 1])  # concatenation of 2 and 4


ops = st.sampled_from("+-*/")


@st.composite
def expression_trees(draw, leaves):
    """A random binary expression over `leaves` (each used once), with its exact value or None on /0."""
    nodes = [(str(n), Fraction(n)) for n in leaves]
    while len(nodes) > 1:
        i = draw(st.integers(0, len(nodes) - 1))
        a = nodes.pop(i)
        j = draw(st.integers(0, len(nodes) - 1))
        b = nodes.pop(j)
        op = draw(ops)
        value = None
        if a[1] is not None and b[1] is not None:
            if op == "/":
                value = a[1] / b[1] if b[1] != 0 else None
            else:
                value = {"+": a[1] + b[1], "-": a[1] - b[1], "*": a[1] * b[1]}[op]
        nodes.append((f"({a[0]} {op} {b[0]})", value))
    return nodes[0]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(1, 13), min_size=4, max_size=4).flatmap(
        lambda nums: st.tuples(st.just(nums), expression_trees(nums))
    )
)
def test_random_trees_evaluate_exactly_as_fraction_arithmetic(case):
    nums, (text, value) = case
    if value is None:
        with pytest.raises(ExpressionError, match="division by zero"):
            parse(text)
    else:
        ev = parse(text)
        assert ev.value == value
        assert ev.uses_exactly(nums)


# ------------------------------------------------------------------- the shortcuts equal the general paths
@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.from_regex(r"[0-9]{1,4}|0[0-9]{1,3}|[0-9]{198,203}", fullmatch=True))
def test_a_literal_link_reads_as_parse_plain_reads_it(literal):
    """read_chain takes a bare literal (`= 24`) without parse_plain's checks: same link, same refusal."""
    from verifiers.game24.answer import read_chain
    from verifiers.game24.expression import parse_plain

    try:
        expected = parse_plain(literal, 200)
    except ExpressionError as exc:
        with pytest.raises(ExpressionError, match=re.escape(str(exc))):
            read_chain(f"1 + 2 = {literal}", 200)
        return
    link = read_chain(f"1 + 2 = {literal}", 200)[-1]
    ev = link.expression
    assert (link.text, link.num, link.den) == (expected.text, expected.num, expected.den)
    assert (ev.text, ev.num, ev.den, ev.numbers) == (expected.text, expected.num, expected.den, expected.numbers)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-3, 10**6 + 3), min_size=0, max_size=10),
        st.lists(st.one_of(st.integers(0, 30), st.booleans(), st.floats(0, 30), st.text("0123456789", max_size=3))),
    ),
    st.one_of(st.integers(-50, 50), st.floats(-50, 50), st.booleans(), st.just("24")),
)
def test_the_usual_tasks_quick_check_agrees_with_the_general_one(numbers, target):
    """_task_numbers returns at once for a plain list of ints: exactly what the general path returns."""
    from verifiers.base import TaskError
    from verifiers.game24 import verifier as game24_verifier

    task = {"numbers": numbers, "target": target}
    try:
        quick = game24_verifier._task_numbers(task)
    except TaskError as exc:
        with pytest.raises(TaskError, match=re.escape(str(exc))):
            game24_verifier._checked_task_numbers(task)
        return
    assert quick == game24_verifier._checked_task_numbers(task)


_SHAPE_TEXT = st.lists(
    st.one_of(
        st.sampled_from(["+", "-", "*", "/", "(", ")", " ", "**", "//", "0", "00"]),
        st.integers(0, 130).map(str),
    ),
    min_size=1,
    max_size=14,
).map("".join)


@settings(max_examples=4000, derandomize=True, deadline=None)
@given(
    st.one_of(
        _SHAPE_TEXT, st.from_regex(r"\(?[1-9]\)? ?[-+*/] ?\(?[0-9]{1,2}(?: ?[-+*/] ?\(?[0-9]\)?){0,3}", fullmatch=True)
    )
)
def test_a_compiled_shape_evaluates_exactly_as_the_tokens_do(text):
    """parse_plain evaluates most answers by their shape, compiled once (grammar.compiled): the
    same value, the same numbers and the same refusal as evaluating the tokens one by one."""
    from verifiers.game24.expression import parse_plain
    from verifiers.game24.grammar import TOKEN, evaluate_tokens

    parse_plain.cache_clear()
    numbers: list[int] = []
    try:
        if "**" in text or "//" in text:
            raise ExpressionError("'**' and '//' are not allowed")
        expected = evaluate_tokens(TOKEN.findall(text), numbers)
    except ExpressionError as exc:
        with pytest.raises(ExpressionError, match=re.escape(str(exc))):
            parse_plain(text, 200)
        return
    ev = parse_plain(text, 200)
    assert (ev.num, ev.den, ev.numbers) == (*expected, tuple(sorted(numbers)))
