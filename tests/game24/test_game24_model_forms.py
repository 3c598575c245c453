"""Correct answers as models write them score as correct; the normalisation never makes a wrong
or unsafe answer right; the credit for a wrong answer can require the puzzle's numbers."""

import ast
import re
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import verifiers
from pytest_plugin import RewardAssertionError, check_verifier
from verifiers import Score, Verdict, Verifier
from verifiers.game24.expression import parse_plain
from verifiers.game24.solver import solutions

PUZZLE = {"numbers": [4, 4, 6, 8]}


@pytest.fixture(scope="module")
def game24():
    return verifiers.get("game24")


@pytest.mark.parametrize(
    "completion",
    [
        "**Answer:** (6-4)*(4+8) = 24",
        "Answer: **(6-4)*(4+8)**",
        "Answer: \\((6-4)\\times(4+8)\\)",
        "Answer: $$(6-4) \\cdot (4+8)$$",
        "Answer: (6-4)*(4+8) = 24 ✓",
        "Answer: (6-4)*(4+8) = 24 ✅",
        "Answer: (6-4)*(4+8) = 24<|im_end|>",
        "Answer: (6-4)*(4+8)</s>",
        "Answer: (6-4)*(4+8) = 24\n<|im_end|><|endoftext|>",
        "<answer>\\((8 - (6 - 4)) \\times 4\\)</answer>",
    ],
)
def test_correct_answers_as_models_write_them(game24, completion):
    s = game24.score(completion, PUZZLE)
    assert s.verdict.value == "correct", (completion, s.reason)


@pytest.mark.parametrize(
    "completion, task",
    [
        ("Answer: 20 - 10 + 21 = 31 = 31", {"numbers": [20, 10, 21], "target": 31}),
        ("Answer: = 10 - 20 + 21 = 11", {"numbers": [10, 20, 21], "target": 11}),
        ("Answer: 24 = (6-4)*(4+8)", PUZZLE),
        ("Answer: (6-4) x (4+8) = 24", PUZZLE),
        ("Answer: (6 - 4)X(4 + 8)", PUZZLE),
        ("Answer: (6-4)*(4+8) = 24.0", PUZZLE),
        ("Answer: **(6-4)*(4+8)** = 24", PUZZLE),
        ("Answer: (6-4)*(4+8), which equals 24", PUZZLE),
        ("Answer: (6-4)*(4+8) which is 24.", PUZZLE),
        ("Final answer:\n(6-4)*(4+8) = 24", PUZZLE),
        ("**Final answer:**\n\n\\((6-4) \\times (4+8)\\)", PUZZLE),
    ],
)
def test_answer_forms_models_print_score_correct(game24, completion, task):
    """Each form seen in real model output (issue 25) is read as written and scores like the plain answer."""
    s = game24.score(completion, task)
    assert s.verdict.value == "correct" and s.reward == pytest.approx(0.7), (completion, s.reason)


@pytest.mark.parametrize(
    "completion, reason",
    [
        ("Answer: 14 + 17 = 29", "states 29"),  # the stated value contradicts the expression's 31
        ("Answer: 14 + 17 = 31 = 32", "states 32"),
        ("Answer: 14 + 17 = 31.5", "states 31.5"),
        ("Answer: 14 + 17 = 31, which equals 30", "states 30"),
        ("Answer: 17 - 14 = 31", "evaluates to 3"),
        ("Answer: 14 x 17 = 31", "evaluates to 238"),
        ("Answer: 14 + 16 = 31", "uses 14 16"),
    ],
)
def test_a_chain_with_a_contradicting_link_is_wrong(game24, completion, reason):
    s = game24.score(completion, {"numbers": [14, 17], "target": 31})
    assert s.verdict.value == "incorrect" and reason in s.reason, s.reason


@pytest.mark.parametrize(
    "completion, reason",
    [
        ("Answer: 14 + 17 = = 31", "nothing on one side"),
        ("Answer: 14.0 + 17 = 31", "not allowed"),  # a decimal is only ever a stated value, never arithmetic
        ("Answer: 14x + 17", "not allowed"),
        ("Answer: 1=2=3=4=5=6=7=8=9", "more than"),
    ],
)
def test_other_refusals_keep_their_reason(game24, completion, reason):
    s = game24.score(completion, {"numbers": [14, 17], "target": 31})
    assert s.verdict.value == "invalid" and reason in s.reason, s.reason


def test_latex_fractions_are_evaluated(game24):
    puzzle = {"numbers": [1, 2, 3, 4]}
    assert game24.score("Answer: \\[ \\frac{4 \\times 3 \\times 2}{1} \\]", puzzle).verdict.value == "correct"
    assert game24.score("Answer: \\dfrac{4 \\times 3}{2} \\times 1", puzzle).verdict.value == "incorrect"


@pytest.mark.parametrize(
    "completion, verdict",
    [
        ("**Answer:** 4**6", "invalid"),  # bold markers around a power stay a power
        ("Answer: **4*6**", "incorrect"),  # bold removed, the arithmetic kept: wrong numbers
        ("Answer: 24 ✓", "incorrect"),  # a check mark proves nothing
        ("Answer: \\frac{4}{6}*8*4", "incorrect"),  # a fraction is evaluated, never trusted
        ("Answer: (6-4)*(4+8)<|im_end|> and more", "correct"),  # the turn ends at <|im_end|> (docs/answers.md)
        (
            "Answer: (6-4)*(4+4)<|im_end|>\nUser: no.\nAnswer: (6-4)*(4+8)",
            "incorrect",
        ),  # after the turn: not the model's
        ("<think>Answer: (6-4)*(4+8)", "invalid"),  # reasoning never closed: no conclusion
        ("Answer: (6-4)*(4+8)*", "invalid"),  # a dangling operator is not emphasis
        ("Answer: __import__('os')", "invalid"),
    ],
)
def test_normalisation_never_makes_a_wrong_answer_right(game24, completion, verdict):
    assert game24.score(completion, PUZZLE).verdict.value == verdict, completion


def test_the_credit_for_a_wrong_answer_needs_the_puzzles_numbers_except_in_the_seed_preset():
    default, seed = verifiers.get("game24"), verifiers.get("game24", preset="published_formula")
    assert default.config.credit_needs_numbers and not seed.config.credit_needs_numbers
    assert seed.score("Answer: 1 + 1", PUZZLE).reward == pytest.approx(0.55 * 0.35 + 0.15)
    assert default.score("Answer: 1 + 1", PUZZLE).reward == pytest.approx(0.15)
    assert default.score("Answer: 4 + 4 + 6 + 8", PUZZLE).reward == pytest.approx(0.55 * 0.35 + 0.15)
    # settings beside a preset win; an unknown preset is refused when the verifier is built
    assert verifiers.get("game24", preset="published_formula", credit_needs_numbers=True).config.credit_needs_numbers
    with pytest.raises(ValueError, match="unknown preset"):
        verifiers.get("game24", preset="nope")


def test_the_default_passes_every_probe_at_the_plugins_default_threshold():
    from pytest_plugin import assert_not_hackable

    for task in verifiers.get("game24").tasks("test", limit=3):
        assert_not_hackable(verifiers.get("game24"), task)
    with pytest.raises(AssertionError):  # the seed's literal formula pays format alone: the probes say so
        assert_not_hackable(verifiers.get("game24", preset="published_formula"), PUZZLE)


class Contradictory(Verifier):
    name = "contradictory"
    verdicts_order_rewards = True

    def evaluate(self, completion, task):
        return Score(1.0, Verdict.INCORRECT, reason="top reward for a wrong answer")

    def prompt(self, task):
        return "say something"


def test_check_verifier_flags_a_verdict_that_contradicts_its_reward():
    with pytest.raises(RewardAssertionError, match="verdict and reward disagree"):
        check_verifier(Contradictory(), tasks=[{}])


# operators as models write them: ASCII, Unicode, LaTeX commands and words
NOTATIONS = {"*": ("*", "×", "·", "\\times", "\\cdot", "times"), "/": ("/", "÷", "\\div"), "-": ("-", "−"), "+": ("+",)}
MATH_WRAPS = ("{}", "${}$", "$$ {} $$", "\\[ {} \\]", "\\( {} \\)")
CHAIN_LEADS = ("Answer: ", "So ", "", "## Solution\n\n", "We get ")


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, dict, bool]:
    """A solution written as a chain through the values of its two halves (`(6-4) × (4+8) = 2 × 12 =
    24`) in one notation, or the same chain with a wrong last value; and whether it must be paid."""
    task = draw(st.sampled_from(CHAIN_TASKS))
    solution = draw(st.sampled_from(solutions(task["numbers"], 24)))
    node = ast.parse(solution, mode="eval").body
    halves = [_exact(node.left), _exact(node.right)]
    assume(all(h.denominator == 1 for h in halves))
    notation = {op: draw(st.sampled_from(forms)) for op, forms in NOTATIONS.items()}

    def written(text: str) -> str:
        return re.sub(r" ?([-+*/]) ?", lambda m: f" {notation[m.group(1)]} ", text)

    op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(node.op)]
    right = draw(st.booleans())
    stated = 24 if right else draw(st.sampled_from([23, 25, 42]))
    chain = f"{written(ast.unparse(node))} = {written(f'{halves[0]} {op} {halves[1]}')} = {stated}"
    text = draw(st.sampled_from(CHAIN_LEADS)) + draw(st.sampled_from(MATH_WRAPS)).format(chain)
    return text, task, right


CHAIN_TASKS = [
    {"numbers": [4, 4, 6, 8]},
    {"numbers": [1, 2, 3, 4]},
    {"numbers": [3, 3, 8, 8]},
    {"numbers": [2, 5, 7, 9]},
]


def _exact(node: ast.expr) -> Fraction:
    """The exact value of a solver's expression node."""
    value = parse_plain(ast.unparse(node))
    return Fraction(value.num, value.den)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(chains())
def test_a_chain_through_the_halves_values_reads_in_any_operator_notation(game24, case):
    """The chain's middle link (`2 \\times 12`) combines two values with an operator of any notation:
    never a step on the value before it, nor a reason to refuse (issue 53: `= 2 \\times 12 = 24` read as
    a step `times 12 = 24` on the 2 before it)."""
    text, task, right = case
    score = game24.score(text, task)
    assert score.correct is right, (text, score.reason)
