"""The usual endings' quick reader (`verifiers/game24/usual.py`) gives exactly the score the
general reader gives: generated completions that end in `Answer: <expression> = N`,
`<answer>…</answer>` or `\\boxed{…}` (and near misses: double spaces, `**`, leading zeros, a lone
number, no operator, unbalanced parentheses, other cases and spacing of the tags, text after them),
after generated text that holds other answers, tags, boxes, steps, options chosen by name and
decisions (only the general reader resolves them), scored both ways under several configs. Seeds fixed."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verifiers
from verifiers.game24 import verifier as game24_verifier
from verifiers.game24.usual import read_usual_answer

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
CONFIGS = [
    {},
    {"credit_needs_numbers": False},
    {"max_expression_chars": 12},
    {"answer_formats": ["answer_tag", "boxed"]},
    {"answer_formats": ["answer_line"]},
    {"answer_formats": ["answer_tag"]},
]
EARLIER_LINES = [
    "Let me think.",
    "Answer: 4 * 6 = 24",
    "Answer: 24",
    "## Answer",
    "<answer>(6 - 4) * (4 + 8)</answer>",
    "\\boxed{24}",
    "4 + 4 = 8 (left: 6 8 8)",
    "8 * 3 = 24 (left: 24)",
    "```",
    "$$",
    "So my final answer is 3 * 8",
    "Answer: (1 + 2",
    "Option A: 4 * 6. Option B: (6 - 4) * (4 + 8).",  # choices the general reader resolves
    "I choose option B.",
    "1. 4 * 6\n2. 3 * 8",
    "The second one works.",
    "4 * 6 or 3 * 8? I'll go with 3 * 8.",
    "Answer: 4 * 6, or maybe 3 * 8",
    "",
]


LAST_LINES = [
    "Answer: {e} = {s}",
    "Answer: {e} = {s} ",
    "answer: {e} = {s}",
    "Answer: {e}={s}",
    "<answer>{e}</answer>",
    "I'll go with <answer>{e}</answer>",
    "Option A: <answer>{e}</answer>",
    "<answer>{e} = {s}</answer>",
    "<answer> {e} </answer>",
    "<answer>\n{e}\n</answer>",
    "<ANSWER>{e}</ANSWER>",
    "<answer>{e}</answer>.",
    "<answer>`{e}`</answer>",
    "<answer>{e} = {s}</answer >",
    "<answer>3 + 5</answer> <answer>{e}</answer>",
    "Answer: <answer>{e}</answer>",
    "\\boxed{{{e}}}",
    "\\boxed{{{e} = {s}}}",
    "$\\boxed{{{e}}}$",
    "\\boxed{{ {e} }}",
    "\\boxed{{\\boxed{{{e}}}}}",
    "Answer: {e} = \\boxed{{{s}}}",
    "Answer: \\boxed{{{e}}}",
]


@st.composite
def expressions(draw: st.DrawFn) -> str:
    """An arithmetic expression over small numbers, sometimes with the spacing, doubled operators,
    leading zeros and unbalanced parentheses the general reader refuses or rewrites."""
    parts = [draw(st.sampled_from(["1", "2", "3", "4", "6", "8", "10", "12", "13", "0", "08", "24"]))]
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["+", "-", "*", "/", "**", "//"]))
        operand = draw(st.sampled_from(["1", "2", "3", "4", "6", "8", "13", "0", "(3 + 1)", "(8 - 2)", "(4"]))
        space = draw(st.sampled_from([" ", "", "  "]))
        parts.append(f"{space}{op}{space}{operand}")
    expression = "".join(parts)
    if draw(st.booleans()):
        expression = f"({expression})"
    return expression


@st.composite
def completions(draw: st.DrawFn) -> tuple[str, dict]:
    numbers = draw(
        st.one_of(
            st.sampled_from([[4, 6], [4, 4, 6, 8], [3, 8], [24]]),  # the earlier lines' puzzles
            st.lists(st.sampled_from([1, 2, 3, 4, 6, 8, 13, 24]), min_size=1, max_size=4),
        )
    )
    target = draw(st.sampled_from([24, 7, 0, numbers[0]]))
    earlier = draw(st.lists(st.sampled_from(EARLIER_LINES), max_size=4))
    stated = draw(st.sampled_from([str(target), "24", "25", "0", "024", "3"]))
    last = draw(st.sampled_from(LAST_LINES))
    expression = draw(st.one_of(expressions(), st.sampled_from(["24", "(24)", "4 * 6", "(6 - 4) * (4 + 8)"])))
    text = "\n".join([*earlier, last.format(e=expression, s=stated)])
    return text + draw(st.sampled_from(["", "<|im_end|>"])), {"numbers": numbers, "target": target}


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: ",".join(c) or "default")
def game24(request):
    return verifiers.get("game24", **request.param)


@settings(max_examples=600, **SETTINGS)
@given(completions())
def test_the_quick_reader_scores_exactly_as_the_general_reader(game24, case):
    completion, task = case
    quick = game24.score(completion, task)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(game24_verifier, "read_usual_answer", lambda *_: None)
        general = game24.score(completion, task)
    assert quick == general


@pytest.mark.parametrize(
    "completion, used",
    [
        ("Steps.\nAnswer: (6 - 4) * (4 + 8) = 24", True),
        ("Think.\n<answer>(6 - 4) * (4 + 8)</answer>", True),
        ("<answer> 4*6 = 24 </answer>", True),
        ("So \\boxed{(6-4)*(4+8)}", True),
        ("<answer>4 * 6</answer>\n", False),
        ("<Answer>4 * 6</Answer>", False),
        ("<answer>24</answer>", False),  # no operator: may defer to an earlier answer
        ("\\boxed{4 \\times 6}", False),
        ("Answer: 4 * 6 = 24", True),
        ("Answer: 4*6 = 25", True),
        ("Answer: 4  * 6 = 24", False),  # spacing the general reader folds
        ("Answer: 2 ** 3 = 8", False),  # refused by the general reader, with its reason
        ("Answer: 24 = 24", False),  # no operator: may defer to an earlier answer
        ("Answer: 4 * 6 = 24.", False),
        ("Answer: 4 * 6 = 24\n", False),
        ("**Answer:** 4 * 6 = 24", False),
    ],
)
def test_the_quick_reader_takes_only_the_usual_endings(completion, used):
    """The test above can fail only if the quick reader is used: it is, for the usual endings."""
    formats = ("answer_line", "answer_tag", "boxed")
    assert (read_usual_answer(completion, 200, formats) is not None) is used
