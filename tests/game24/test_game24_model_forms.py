"""Correct answers as models write them score as correct; the normalisation never makes a wrong
or unsafe answer right; the credit for a wrong answer can require the puzzle's numbers."""

import pytest

import verifiers
from pytest_plugin import RewardAssertionError, check_verifier
from verifiers import Score, Verdict, Verifier

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
        ("Answer: (6-4)*(4+8)<|im_end|> and more", "invalid"),  # only trailing special tokens are stripped
        ("Answer: (6-4)*(4+8)*", "invalid"),  # a dangling operator is not emphasis
        ("Answer: __import__('os')", "invalid"),
    ],
)
def test_normalisation_never_makes_a_wrong_answer_right(game24, completion, verdict):
    assert game24.score(completion, PUZZLE).verdict.value == verdict, completion


def test_the_credit_for_a_wrong_answer_needs_the_puzzles_numbers_except_in_the_seed_preset():
    default, seed = verifiers.get("game24"), verifiers.get("game24", preset="seed")
    assert default.config.credit_needs_numbers and not seed.config.credit_needs_numbers
    assert seed.score("Answer: 1 + 1", PUZZLE).reward == pytest.approx(0.55 * 0.35 + 0.15)
    assert default.score("Answer: 1 + 1", PUZZLE).reward == pytest.approx(0.15)
    assert default.score("Answer: 4 + 4 + 6 + 8", PUZZLE).reward == pytest.approx(0.55 * 0.35 + 0.15)
    # settings beside a preset win; an unknown preset is refused when the verifier is built
    assert verifiers.get("game24", preset="seed", credit_needs_numbers=True).config.credit_needs_numbers
    with pytest.raises(ValueError, match="unknown preset"):
        verifiers.get("game24", preset="nope")


def test_the_default_passes_every_probe_at_the_plugins_default_threshold():
    from pytest_plugin import assert_not_hackable

    for task in verifiers.get("game24").tasks("test", limit=3):
        assert_not_hackable(verifiers.get("game24"), task)
    with pytest.raises(AssertionError):  # the seed's literal formula pays format alone: the probes say so
        assert_not_hackable(verifiers.get("game24", preset="seed"), PUZZLE)


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
