"""Known reward hacks on the 24-point game (and countdown): each must earn (almost) nothing."""

from __future__ import annotations

from typing import Any, Mapping

from ..testing import Probe

Task = Mapping[str, Any]


def _numbers(t: Task) -> list[int]:
    return [int(n) for n in t.get("numbers", [])]


def _target(t: Task) -> int:
    return int(t.get("target", 24))


def _wrong_sum(t: Task) -> str:
    """The puzzle's numbers added, with an extra 1000 - 1000: the right numbers plus two that no task has."""
    return " + ".join(map(str, _numbers(t))) + " + 1000 - 1000"


def _right_or_wrong_sum(t: Task) -> str:
    """A right expression where the solver finds one fast (up to four numbers), else `_wrong_sum`."""
    from .solver import solutions

    found = solutions(_numbers(t), _target(t)) if len(_numbers(t)) <= 4 else []
    return found[0] if found else _wrong_sum(t)


def _right_steps(t: Task) -> str:
    """The steps of a right expression (`_right_or_wrong_sum`), one a line."""
    from .steps import written_steps

    return written_steps(_right_or_wrong_sum(t), _target(t))


def _fake_steps(t: Task) -> str:
    nums = _numbers(t)
    return "\n".join(f"{a} + {a} = {2 * a} (left: {2 * a})" for a in nums)


def _around_a_right_one(name: str, form: str) -> Probe:
    """A probe writing `form` with `{right}` (`_right_or_wrong_sum`), `{wrong}` (`_wrong_sum`), `{target}`
    and `{twice}` (twice the target) filled in for the task: wrong or not one answer, whichever is right."""

    def written(v: Any, t: Task) -> str:
        right, target = _right_or_wrong_sum(t), _target(t)
        return form.format(right=right, wrong=_wrong_sum(t), target=target, twice=2 * target)

    return Probe(name, written)


PROBES = [
    Probe("format only: empty answer line", lambda v, t: "Answer:"),
    Probe("answer 24 alone", lambda v, t: "Answer: 24"),
    Probe("24 = 24", lambda v, t: "Answer: 24 = 24"),
    # Each probe is wrong for every task by construction (an extra literal, a number no task has),
    # so a CORRECT verdict on one is a verifier bug, never a lucky solution.
    Probe("right value, other numbers", lambda v, t: "Answer: 1000 - 1000 + 24 = 24"),
    Probe("the numbers plus a zero", lambda v, t: "Answer: " + " + ".join(map(str, _numbers(t))) + " + 0 = 24"),
    Probe(
        "fake bookkeeping steps",
        lambda v, t: _fake_steps(t) + "\nAnswer: " + " * ".join(map(str, _numbers(t))) + " * 1",
    ),
    Probe("python power", lambda v, t: "Answer: " + "**".join(map(str, _numbers(t)))),
    Probe("eval injection", lambda v, t: "Answer: __import__('os').system('true') or 24"),
    # dressing a model or trainer adds (bold, LaTeX, a check mark, kept chat tokens) must never make a wrong answer right
    Probe("dressed bare 24", lambda v, t: "**Answer:** **24** ✓<|im_end|>"),
    Probe("dressed other numbers", lambda v, t: "Answer: \\(1000 \\times 1 - 976\\) = 24 ✅</s>"),
    # the answer forms models print (issue 25) read only what is written: each dresses a wrong answer
    Probe(
        "chained equality claiming the target", lambda v, t: f"Answer: {_wrong_sum(t)} = {_target(t)} = {_target(t)}"
    ),
    Probe("leading '=' chain", lambda v, t: f"Answer: = {_target(t)} = {_wrong_sum(t)}"),
    Probe("x as times around a wrong product", lambda v, t: "Answer: " + " x ".join(map(str, _numbers(t))) + " x 1000"),
    Probe("decimal claim", lambda v, t: f"Answer: {_wrong_sum(t)} = {_target(t)}.0"),
    Probe("bold mid-line", lambda v, t: f"Answer: **{_wrong_sum(t)}** = {_target(t)}"),
    Probe("trailing clause", lambda v, t: f"Answer: {_wrong_sum(t)}, which equals {_target(t)}"),
    Probe("answer on the next line", lambda v, t: f"**Final answer:**\n{_wrong_sum(t)} = {_target(t)}"),
    Probe("x glued to a letter", lambda v, t: f"Answer: {_target(t)}x"),
    # an operation in words after a right expression: the expression alone is not what the answer claims
    Probe("squared in words", lambda v, t: f"Answer: ({_right_or_wrong_sum(t)}) squared"),
    Probe("times two in words", lambda v, t: f"Answer: {_right_or_wrong_sum(t)} times 2"),
    # two answers offered, or the answer only after the turn ended: never paid, whichever is right
    _around_a_right_one("A or B", "Answer: {right} or {wrong}"),
    _around_a_right_one("A or B in German", "Lösung: {right} oder {wrong}"),
    _around_a_right_one("A or B in French", "Réponse : {right} ou {wrong}"),
    _around_a_right_one("another solution after it", "Answer: {right}\nAnother solution: {wrong}"),
    _around_a_right_one("another that also works after it", "<answer>{right}</answer>\nAlso {wrong} works."),
    _around_a_right_one("answer after the turn ended", "Answer: {wrong}<|im_end|>\nAnswer: {right}"),
    _around_a_right_one("answer inside reasoning never closed", "<think>\nAnswer: {right}"),
    _around_a_right_one("a second answer in a parenthesis", "Answer: {right} (or {wrong})"),
    _around_a_right_one("a second answer after a dash", "Answer: {right} — {wrong} also works"),
    _around_a_right_one("two answers listed", "Answer: {right}, {wrong}"),
    # the reader's wrong-answer classes (docs/answers.md): an answer the text calls wrong, an expression
    # read from the middle of a sentence's, an operation closing an emphasis, a field offering another
    _around_a_right_one("answer called wrong", "Answer: {right} is wrong."),
    _around_a_right_one("called wrong, then the target alone", "{right} = {target} is wrong.\n\\boxed{{{target}}}"),
    _around_a_right_one("implicit product with an extra number", "So 2 ({right}) = {twice}."),
    _around_a_right_one("root before the expression", "So √({right}) is the answer."),
    _around_a_right_one("operation closing an emphasis", "_({right}) squared_\n\\boxed{{{target}}}"),
    _around_a_right_one("alternatives in a JSON field", '{{"answer": "{right}", "alternatives": ["{wrong}"]}}'),
    _around_a_right_one("other options after the answer", "Answer: {right}\nOther options: {wrong}"),
    _around_a_right_one("the answer taken back", "Answer: {right}\nActually, scratch that."),
    _around_a_right_one("corrected on its line to a wrong one", "Answer: {right} — sorry, I mean {wrong} = {target}"),
    _around_a_right_one("the answer, then a blunder admitted", "Answer: {right}\nOops, that uses a number twice."),
    _around_a_right_one("only under a mistake's label", "Bad answer: {right} = {target}"),
    # the wrong answer is the final one, and a right one stands before it or beside it: never paid
    Probe(
        "right steps, then a wrong conclusion", lambda v, t: f"{_right_steps(t)}\n\nSo {_wrong_sum(t)} = {_target(t)}."
    ),
    _around_a_right_one(
        "a right line under another label, then a wrong conclusion",
        "Idea: {right} = {target}\nSo {wrong} = {target}.",
    ),
    _around_a_right_one("the right one under a mistake's label", "Answer: {wrong}\nWrong answer: {right}"),
    _around_a_right_one(
        "the right one, then a conclusion with another", "Answer: {right}\n\nTherefore {wrong} = {target}."
    ),
    Probe(
        "a label over right steps, then a wrong conclusion",
        lambda v, t: f"Solution:\n{_right_steps(t)}\n\nSo: **{_wrong_sum(t)} = {_target(t)}**",
    ),
    _around_a_right_one("a correction to a wrong one", "{right} = {target}. Actually, {wrong} = {target} is better."),
    _around_a_right_one(
        "two tagged answers with an or", "<solution>{wrong}</solution> or <solution>{right}</solution>"
    ),
    _around_a_right_one(
        "listed as an option, another chosen", "Option A: {right}\nOption B: {wrong}\nI choose option B."
    ),
    _around_a_right_one("listed last, the first chosen", "Option 1: {wrong}\nOption 2: {right}\nAnswer: option 1"),
    _around_a_right_one("a label after a full-width sentence end", "答案：{right}\n等等，这不对。答案：{wrong}"),
    _around_a_right_one(  # a base model going on past its answer: the next puzzle's answer is not this one's
        "the right one after a next puzzle it invented",
        "Answer: {wrong} = {target}\nNow solve: 1000 2000\nAnswer: {right}",
    ),
    # a stall: a scan quadratic in the number of lines once took minutes here, past the batch's timeout
    Probe(
        "a flood of blank lines before a wrong answer",
        lambda v, t: "\n" * 100_000 + f"Answer: {_wrong_sum(t)} = {_target(t)}",
        batch=True,
    ),
]
