"""Every form quoted when answers were first read as a class (the hidden set's findings): the wrong
ones written with superscripts are never paid, and each right one in a form models print is correct."""

import pytest

import verifiers
from verifiers import Verdict

PUZZLE = {"numbers": [4, 4, 6, 8]}
E = "(6-4)*(4+8)"


@pytest.fixture(scope="module")
def game24():
    return verifiers.get("game24")


@pytest.mark.parametrize(
    "completion, task",
    [
        ("Answer: 5 × 5⁻¹ = 24", {"numbers": [1, 5, 5]}),  # NFKC read 5⁻¹ as 5-1
        ("Answer: 3² ÷ 8 = 4", {"numbers": [32, 8], "target": 4}),  # and 3² as 32
        ("Answer: 1⁰ + 14 = 24", {"numbers": [10, 14]}),  # and 1⁰ as 10
        ("Answer: 2⁴ + 8 = 24", {"numbers": [24, 8]}),
    ],
)
def test_superscripts_are_never_paid(game24, completion, task):
    s = game24.score(completion, task)
    assert s.verdict is Verdict.INVALID and "superscript" in s.reason, (completion, s.reason)


RIGHT_FORMS = [
    f"## Answer\n{E}",
    f"**Final Answer**\n{E}",
    f"### Final Answer\n\n{E}",
    f"Therefore, the answer is: {E}",
    f"So my final answer is {E}",
    f"The answer is {E} = 24.",
    f"Solution: {E}",
    f"Answer - {E}",
    f"Answer (expression): {E}",
    f"Answer:\n$$ {E} $$",
    f"Answer:\n\\[ {E} \\]",
    f"Answer:\n```\n{E}\n```",
    f"Answer:\n- {E}",
    f"Answer: {E} = 24\n\\boxed{{24}}",
    f"Answer: {E} = 24\nFinal answer: 24",
    f"Answer: {E} = 24;",
    f"Answer: {E} = 24,",
    f"Answer: {E} = 24 (correct)",
    f"Answer: {E} = 24 exactly",
    f"Answer: {E} → 24",
    f"Answer: {E} ⇒ 24",
    f"Answer: {E} == 24",
    f"Answer: {E} = 24 ✔️",
    f"Answer: {E} = 24 ☑️",
    f"Answer: {E} = 24 🎉",
    f"Answer: {E} = 24, since 2 * 12 = 24",
    f"Answer: {E} = 24 (each number used once)",
    f"Answer: {E}, which is exactly 24",
    f"Answer: {E} = 24 (left: 24)",
    f"Answer: {E} = 24 — every number once",
    "Answer: \\Big(6-4\\Big) \\times \\Big(4+8\\Big) = 24",
    "Answer: \\bigl(6-4\\bigr) \\times \\bigl(4+8\\bigr)",
    "Answer: \\(\\displaystyle (6-4) \\times (4+8)\\)",
    "Answer: \\(\\mathbf{(6-4) \\times (4+8)}\\)",
    "Answer: \\((6-4) \\times (4+8) = 24 \\text{ (each number once)}\\)",
    "Answer: \\(\\text{(6-4)} \\times \\text{(4+8)}\\)",  # `\\text` holding arithmetic only styles it
    "Answer: \\((6-4) \\times (4+8) \\text{=} 24\\)",
    "Answer: \\((6-4) \\ast (4+8)\\)",
    "Answer: \\((6-4) \\times (4+8) = 24 \\quad \\checkmark\\)",
    f"Answer: <b>{E}</b>",
    f"Answer: _{E}_",
    f"Answer: *{E}*",
    f"Answer: ***{E}***",
    "Answer: (6-4) \\* (4+8)",
    "Answer: `(6-4)` * `(4+8)`",
    "Answer: (6-4) ∙ (4+8)",
    "Answer: (6-4) ⨯ (4+8)",
    "Answer: (6-4) ✖️ (4+8)",
    "Answer: (6-4)*(4\u200b+8)",
    "Answer: (٦-٤)*(٤+٨)",
    f"İstanbul is far. <answer>{E}</answer>",
    "Answer: (6 - 4) *\n(4 + 8) = 24",
    f"| Ausdruck | Wert |\n|---|---|\n| {E} | 24 |",  # a header in words no lexicon holds labels its column
    f"| Expresión | Valor |\n|---|---|\n| (8 - 4) * 6 | 28 |\n| {E} | 24 |",
    "6 - 4 → 2\n4 + 8 → 12\n2 × 12 → 24",  # an arrow states a step's result as `=` does
    "6-4->2, 4+8->12, 2*12->24",
]


@pytest.mark.parametrize("completion", RIGHT_FORMS)
def test_each_form_models_print_is_correct(game24, completion):
    s = game24.score(completion, PUZZLE)
    assert s.verdict is Verdict.CORRECT and s.reward == pytest.approx(0.7), (completion, s.reason)


@pytest.mark.parametrize(
    "completion, task",
    [
        ("Answer: 3 − 8 = −5", {"numbers": [3, 8], "target": -5}),  # a negative target in the prompt's own format
        ("Answer: 1000 + 999 = 1,999", {"numbers": [1000, 999], "target": 1999}),  # a stated value in thousands
    ],
)
def test_stated_values_as_models_write_them(game24, completion, task):
    s = game24.score(completion, task)
    assert s.verdict is Verdict.CORRECT, (completion, s.reason)


def test_a_bare_target_defers_only_to_a_right_expression(game24):
    wrong_then_bare = game24.score("Answer: (6-4)*(4+4) = 16\n\\boxed{24}", PUZZLE)
    assert wrong_then_bare.verdict is not Verdict.CORRECT
    right_then_other = game24.score(f"Answer: {E}\n\\boxed{{25}}", PUZZLE)
    assert right_then_other.verdict is not Verdict.CORRECT  # the last answer states another value
