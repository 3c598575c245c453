"""Answers read as a class: generated puzzles, their right expressions rendered every way the
plugin's renderers know (where the answer sits x markup x operator spellings x the stated value x
words after it) score correct, earning at least what the plain answer does; the same renderings of generated
wrong answers (a power in any spelling, a superscript, a number reused or left out, two numbers run
together, a wrong value, a false final link, a denied value (`≠ 24`), an implicit product with a number of its own
(`2(…)`), a factorial, a root, a decimal, an operation in words after the expression: `squared`, `times 2`)
are never correct and never earn what a right answer earns; a right answer's products written as algebra writes
them (`(6-4)(4+8)`) are right. Thousands of cases, seeds fixed."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verifiers
from pytest_plugin.renderings import renderings, split_over_lines
from verifiers import Verdict
from verifiers.game24.solver import solutions

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def game24():
    return verifiers.get("game24")


def _puzzles() -> list[tuple[list[int], int, str]]:
    """(numbers, target, a right expression) for the classic and countdown puzzles."""
    out = []
    for task in verifiers.get("game24", task_set="mix").tasks("all"):
        found = solutions(task["numbers"], task.get("target", 24))
        if found:
            out.append((task["numbers"], task.get("target", 24), found[len(out) % len(found)]))
    return out


PUZZLES = _puzzles()
NUMBER = re.compile(r"(?<![\d.])\d+(?![\d.])")


def _numbers_in(expression: str) -> list[re.Match[str]]:
    return list(NUMBER.finditer(expression))


def _replace(expression: str, match: re.Match[str], text: str) -> str:
    return expression[: match.start()] + text + expression[match.end() :]


# an operation written after the expression in words: reading the expression alone would pay it
OPERATION_WORDS = ["squared", "cubed", "to the power of 2", "raised to 2", "times 2", "plus 1", "divided by 2", "mod 5"]


@st.composite
def wrong_answers(draw: st.DrawFn) -> tuple[str, list[int], int, str, int | None]:
    """(kind, numbers, target, a wrong expression, the value it states or None)."""
    numbers, target, expression = draw(st.sampled_from(PUZZLES))
    spots = _numbers_in(expression)
    spot = draw(st.sampled_from(spots))
    kinds = {
        "power": lambda: f"({expression}) {draw(st.sampled_from(['**', '^']))} {draw(st.sampled_from(['1', '2']))}",
        "superscript": lambda: _replace(
            expression, spot, spot.group() + draw(st.sampled_from(["²", "³", "¹", "⁰", "⁻¹"]))
        ),
        "subscript": lambda: _replace(expression, spot, spot.group() + draw(st.sampled_from(["₁", "₂"]))),
        "reused number": lambda: _replace(expression, spot, draw(st.sampled_from([m.group() for m in spots]))),
        "missing number": lambda: re.sub(r"\s*[-+*/]\s*\d+\)*\s*$", "", expression) or expression + " + 1",
        "run together": lambda: "".join(m.group() for m in spots[:2]) + "".join(f" + {m.group()}" for m in spots[2:]),
        "factorial": lambda: _replace(expression, spot, spot.group() + "!"),
        "root": lambda: _replace(expression, spot, "√" + spot.group()),
        "decimal": lambda: _replace(expression, spot, spot.group() + ".5"),
        "implicit product with an extra number": lambda: f"2({expression})",
        "wrong value": lambda: _replace(expression, spot, str(int(spot.group()) + 1)),
        "operation in words": lambda: f"({expression}) {draw(st.sampled_from(OPERATION_WORDS))}",
    }
    kind = draw(st.sampled_from([*kinds, "false final link", "denied value"]))
    if kind == "false final link":
        return kind, numbers, target, expression, target + draw(st.sampled_from([1, -1, 10]))
    if kind == "denied value":
        return kind, numbers, target, expression, None
    return kind, numbers, target, kinds[kind](), None


@settings(max_examples=2500, **SETTINGS)
@given(st.data())
def test_every_rendering_of_a_right_answer_is_correct(game24, data):
    numbers, target, expression = data.draw(st.sampled_from(PUZZLES))
    task = {"numbers": numbers, "target": target}
    plain = game24.score(f"Answer: {expression}", task)
    completion = data.draw(renderings(expression, target))
    score = game24.score(completion, task)
    assert plain.verdict is Verdict.CORRECT
    assert score.verdict is Verdict.CORRECT, (completion, score.reason)
    assert score.reward >= plain.reward, (completion, score.reward)  # more where `(left: …)` makes it a step too


_DIVIDES_A_PRODUCT = re.compile(r"/ (?:\d+\(|\([^()]*\)[(\d])")  # the divisor is a product without '*'
_TIMES_A_GROUP = re.compile(r"(?<=[0-9)]) \* (?=\()|(?<=\)) \* (?=[0-9])")


@settings(max_examples=500, **SETTINGS)
@given(st.data())
def test_a_product_written_as_algebra_writes_it_is_read_as_the_product(game24, data):
    """`(6-4)(4+8)`, `2(4+8)`, `(4+8)2`: two operands side by side with a parenthesis between them
    have no reading but their product, except as a divisor (`8 / 2(2 + 2)`), which conventions read
    two ways: refused."""
    numbers, target, expression = data.draw(st.sampled_from(PUZZLES))
    if not _TIMES_A_GROUP.search(expression):
        return
    algebra = _TIMES_A_GROUP.sub("", expression)
    completion = data.draw(renderings(algebra, target))
    score = game24.score(completion, {"numbers": numbers, "target": target})
    if _DIVIDES_A_PRODUCT.search(algebra):  # `8 / 2(2 + 2)`: conventions differ, refused as written
        assert score.verdict is Verdict.INVALID, (completion, score.reason)
    else:
        assert score.verdict is Verdict.CORRECT, (completion, score.reason)


@settings(max_examples=300, **SETTINGS)
@given(st.sampled_from(PUZZLES), st.booleans(), st.sampled_from(["", " = {t}"]))
def test_an_expression_split_over_two_lines_is_read_whole(game24, puzzle, before_operator, stated):
    numbers, target, expression = puzzle
    split = split_over_lines(expression, before_operator)
    if split is None:
        return
    score = game24.score(f"Answer: {split}{stated.format(t=target)}", {"numbers": numbers, "target": target})
    assert score.verdict is Verdict.CORRECT, (split, score.reason)


@settings(max_examples=300, **SETTINGS)
@given(st.sampled_from(PUZZLES), st.sampled_from([1, -1, 10]))
def test_a_false_value_on_the_line_after_an_expression_is_read(game24, puzzle, off):
    """`(7 - 8/8) * 4` then `= 25` on the next line: the value belongs to the answer, and is false."""
    numbers, target, expression = puzzle
    score = game24.score(f"Answer: {expression}\n= {target + off}", {"numbers": numbers, "target": target})
    assert score.verdict is Verdict.INCORRECT, score.reason


def test_a_list_under_a_complete_answer_is_not_read_as_its_continuation(game24):
    completion = "Answer: (7 - 8/8) * 4 = 24\n- 8/8 = 1\n- 7 - 1 = 6"
    assert game24.score(completion, {"numbers": [4, 7, 8, 8], "target": 24}).verdict is Verdict.CORRECT


@settings(max_examples=2500, **SETTINGS)
@given(st.data())
def test_no_rendering_of_a_wrong_answer_passes_or_earns_what_a_right_one_does(game24, data):
    kind, numbers, target, wrong, value = data.draw(wrong_answers())
    task = {"numbers": numbers, "target": target}
    right = game24.score(f"Answer: {solutions(numbers, target)[0]}", task)
    completion = data.draw(renderings(wrong, target, value, denied=kind == "denied value"))
    score = game24.score(completion, task)
    if kind in ("reused number", "wrong value", "missing number") and _is_right(game24, wrong, task):
        return  # the change happened to give another right answer (2 * 2 for 2 + 2)
    assert score.verdict is not Verdict.CORRECT, (kind, completion, score.reason)
    assert score.reward < right.reward, (kind, completion, score.reward)


def _is_right(game24, expression: str, task: dict) -> bool:
    return game24.score(f"Answer: {expression}", task).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "completion, verdict",
    [
        ("<answer>(7 - 8/8) * 4</answer>\nLet me check again. <answer>", Verdict.CORRECT),  # cut off by the token limit
        ("<answer>7 * 4 - 8 / 8</answer>\n<answer>(7 - 8/8) * 4", Verdict.CORRECT),  # `</answer>` was the stop string
        ("<answer>(7 - 8/8) * 4</answer>\n<answer>7 * 4 - 8 / 8", Verdict.INCORRECT),  # the last answer counts
    ],
)
def test_an_answer_tag_never_closed(game24, completion, verdict):
    assert game24.score(completion, {"numbers": [4, 7, 8, 8], "target": 24}).verdict is verdict
