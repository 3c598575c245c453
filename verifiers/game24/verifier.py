r"""The 24-point verifier: r = 0.55·r_oc + 0.3·r_pr + 0.15·r_l, the seed report's reward.

- r_oc (outcome): 1 for a correct final expression, 0.35 for a well-formed one that is wrong
  (wrong value or wrong numbers: the seed pays it to encourage answering), 0 for none.
- r_pr (process): the share of valid `a op b = c (left: …)` steps (0 when there are none).
- r_l (length): 1 for l ≤ t steps, else 1/(1+e^{k(l−t−m)}); t=4, m=20, k=0.2, l = step lines.

One deliberate change from the seed formula: r_l is paid only when a final expression is
present. Otherwise an empty completion (l = 0 ≤ t) would earn 0.15 for saying nothing. Steps that
combine every number into the target with no expression line are read as the expression they
build (`steps_answer`, off in `published_formula`): a right answer written that way is right.

What a format-only answer earns: by default the 0.35 credit is paid only to an expression over
exactly the puzzle's numbers (`credit_needs_numbers=True`), so `Answer: 24` alone, `Answer: 1 + 1`
or the prompt echoed back earn r_l only: 0.15, against 0.70 for a correct answer without steps.
The seed's literal formula is the preset `published_formula` (`verifiers.get("game24",
preset="published_formula")`; `seed`, its old name, still works with a warning): there
every well-formed final expression earns the credit, so those format-only answers get
0.55·0.35 + 0.15 = 0.3425, and the plugin's reward-hacking probes flag it.

Answers are read as models write them: trailing chat special tokens (`<|im_end|>`, `</s>`),
markdown bold, LaTeX delimiters, `\frac`, `\times`, `\div`, `\cdot` and trailing check marks are
normalised away; the arithmetic itself is never rewritten.

`Score.answer` is what majority voting compares: "<value> using <sorted numbers>", e.g.
"24 using 4 4 6 8". All correct answers to a puzzle collapse to one string (however the
expression is written), a wrong value or a wrong multiset of numbers votes separately.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, Callable, Mapping

from ..base import TaskError, Verifier, setting, shown
from ..locate import (
    CONCLUDES,
    called_wrong,
    denial_at,
    denied_before,
    introduced_as_mistake,
    introduced_as_the_form,
    labelled,
    none_stated_at,
    offers,
    rank,
    says_no_answer,
    with_choices_resolved,
)
from ..registry import register
from ..score import Score, Verdict
from ..splits import select
from ..testing import Probe, Strategies
from ..text import strip_special_tokens
from ..turn import Turn, model_turn
from .answer import Link, read_chain
from .countdown import TASK_SETS
from .expression import Evaluated, ExpressionError
from .extract import (
    EXTRACTORS,
    arithmetic_in,
    cut_off,
    final_answers,
    located_answer,
    offers_another,
    turned_to_another,
    with_verbs_written_out,
)
from .steps import check_steps, derivation, derivation_at
from .tasks import load_tasks, own_puzzle_part, prompt_text
from .usual import read_usual_answer


@dataclass(frozen=True)
class Game24Config:
    weights: tuple[float, float, float] = setting((0.55, 0.3, 0.15), client="free")  # outcome, process, length
    wrong_answer_credit: float = setting(0.35, client="free")  # r_oc for a well-formed but wrong final expression
    credit_needs_numbers: bool = setting(
        True, client="free"
    )  # pay that credit only when the expression uses exactly the puzzle's numbers
    length_threshold: int = setting(4, client="free")  # t
    length_margin: int = setting(20, client="free")  # m
    length_slope: float = setting(0.2, client="free")  # k
    answer_formats: tuple[str, ...] = setting(("answer_line", "answer_tag", "boxed"), client="free")
    # an answer written only as steps that combine every number (`6 - 4 = 2`, `4 + 8 = 12`,
    # `2 * 12 = 24`) is read as the expression they build (docs/answers.md); the seed's formula
    # wants a final expression line
    steps_answer: bool = setting(True, client="free")
    max_expression_chars: int = setting(200, client="at_most")
    max_steps_checked: int = setting(256, client="at_most")
    prompt_style: str = setting(
        "steps", client="free"
    )  # "steps" (the seed's step format) or "short" (answer line only)
    task_set: str = setting(
        "classic", client="free"
    )  # built-in tasks: the 1362 classic puzzles, a countdown set, or "mix" (countdown.py)

    def validate(self) -> None:
        """Called by the base class when the verifier is built."""
        unknown = set(self.answer_formats) - set(EXTRACTORS)
        if unknown:
            raise ValueError(f"unknown answer format(s) {sorted(unknown)}; known: {sorted(EXTRACTORS)}")
        if len(self.weights) != 3:
            raise ValueError("weights must be (outcome, process, length)")
        if min(self.weights) < 0:
            raise ValueError(
                f"weights must be >= 0 (a component that lowers the reward inverts it), got {self.weights}"
            )
        if not 0 <= self.wrong_answer_credit < 1:  # a wrong answer never earns what a right one does
            raise ValueError(f"wrong_answer_credit must be in [0, 1), got {self.wrong_answer_credit}")
        if min(self.length_threshold, self.length_margin, self.length_slope) < 0:
            raise ValueError("length_threshold, length_margin and length_slope must be >= 0 (a decay with length)")
        if self.prompt_style not in ("steps", "short"):
            raise ValueError("prompt_style must be 'steps' or 'short'")
        if self.task_set not in ("classic", "mix", *TASK_SETS):
            raise ValueError(f"unknown task_set {self.task_set!r}; known: classic, mix, {', '.join(TASK_SETS)}")


def length_reward(steps: int, t: int = 4, m: int = 20, k: float = 0.2) -> float:
    """1 for steps ≤ t, then a logistic decay centred at t + m."""
    if steps <= t:
        return 1.0
    z = k * (steps - t - m)
    return 0.0 if z > 700 else 1.0 / (1.0 + math.exp(z))


MAX_NUMBERS, MAX_NUMBER = 8, 10**6  # a task's numbers: how many, and how large
MAX_TARGET = 10**60  # past any value 8 numbers up to 1e6 can make (1e48); far below what prints (4300 digits)
_INT_ONLY = {int}


_LIST_ITEM = re.compile(r"[ \t>]*(?:[-+*•◦▪‣]|\d{1,2}[.)])[ \t]+")  # `- `, `* `, `1. `, `2) `


def _task_numbers(task: Mapping[str, Any]) -> tuple[list[int], tuple[int, ...], int]:
    """The task's numbers (as given, and sorted: what an answer must use) and its target, or
    TaskError naming the field that is wrong."""
    given, target = task.get("numbers"), task.get("target", 24)
    if (  # the usual task, checked at a fifth of the general path's cost
        type(given) is list
        and type(target) is int
        and 1 <= len(given) <= MAX_NUMBERS
        and set(map(type, given)) == _INT_ONLY
    ):
        wanted = tuple(sorted(given))
        if 0 <= wanted[0] and wanted[-1] <= MAX_NUMBER and -MAX_TARGET <= target <= MAX_TARGET:
            return given, wanted, target
    return _checked_task_numbers(task)


def _checked_task_numbers(task: Mapping[str, Any]) -> tuple[list[int], tuple[int, ...], int]:
    """`_task_numbers` for any task: numbers as text or any iterable, integers as text."""
    given = task.get("numbers")
    numbers = given.replace(",", " ").split() if isinstance(given, str) else given
    try:
        if isinstance(numbers, (str, bytes)) or not hasattr(numbers, "__iter__"):
            raise TypeError
        nums = [_integer(n) for n in numbers]  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise TaskError(f"'numbers' must be a list of integers, got {shown(given)}") from None
    try:
        target = _integer(task.get("target", 24))
    except (TypeError, ValueError):
        raise TaskError(f"'target' must be an integer, got {shown(task.get('target'))}") from None
    if not 1 <= len(nums) <= MAX_NUMBERS or min(nums) < 0 or max(nums) > MAX_NUMBER:
        raise TaskError(f"'numbers' must hold 1-8 integers in 0..1e6, got {shown(given)}")
    if not -MAX_TARGET <= target <= MAX_TARGET:
        raise TaskError("'target' must be an integer of at most 60 digits")
    return nums, tuple(sorted(nums)), target


def _integer(value: Any) -> int:
    """An int from an int or its decimal text; never from a float or bool (3.7 is not 3)."""
    if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
        raise ValueError(value)
    return int(value)


def _main_expression(links: list[Link], wanted: tuple[int, ...]) -> Evaluated | None:
    """The link the answer stands on: the first expression over exactly the puzzle's numbers
    (`wanted`, sorted), else the first with an operator, else the first expression at all."""
    first = with_operator = None
    for link in links:
        expression = link.expression
        if expression is None:
            continue
        if expression.numbers == wanted:
            return expression
        first = first or expression
        with_operator = with_operator or (expression if link.has_operator else None)
    return with_operator or first


@lru_cache(maxsize=4096)
def _listed(numbers: tuple[int, ...]) -> str:
    """`4 4 6 8`: numbers as the answer and the reasons show them (cached: a puzzle's answers share them)."""
    return " ".join(map(str, numbers))


_AFTER_WORDS = re.compile(r"(?<=[^\W\d_]|[,;:])[ \t]+(?=[(\[0-9])")  # `… = 22, but (6 - 4) * …`, `… and 8 * 3`


def _states_only(answer: str, target: int, max_chars: int) -> bool:
    """Is `answer` the target alone (no arithmetic), as a model restates its result?"""
    try:
        links = read_chain(answer, max_chars)
    except ExpressionError:
        return False
    return all(not link.has_operator and not link.differs_from(target, 1) for link in links)


_WHOLE_NUMBER = re.compile(r"\d+")
_LETTER = re.compile(r"[^\W\d_]")
# an expression with no stated value, then the words that explain its numbers (`2 * 12 where 2 = 6 - 4`)
_HEAD_BEFORE_EXPLANATION = re.compile(r"(?P<head>[^=\n]+?)[ \t,;]+(?:where|with|since|because)\b", re.IGNORECASE)
_OPENINGS = ("\\boxed{", "\\boxed {", "<answer>")  # what opens a final answer's place on the line of its expression
_BEFORE_AN_OPENING = " \t$*_=:"


def _without_opening(before: str) -> str:
    """The text before a stated target without what opens its place (`(6-4)*(4+8) = \\boxed{24}`
    leaves `(6-4)*(4+8)`, not `(6-4)*(4+8) = \\boxed{`, which reads as no answer)."""
    while True:
        stripped = before.rstrip(_BEFORE_AN_OPENING)
        for opening in _OPENINGS:
            stripped = stripped.removesuffix(opening)
        if stripped == before:
            return before
        before = stripped


@register("game24")
class Game24Verifier(Verifier):
    """Exact, safe scoring of 24-point answers and of the reasoning steps that lead to them."""

    Config = Game24Config
    verdicts_order_rewards = True
    aliases = ("24game", "countdown24", "countdown")
    task_fields = {
        "numbers": "list of int, needed: the numbers to combine, each used exactly once",
        "target": "int, optional (24): the value to make; countdown task sets set it",
        "id": "str, optional: the task's name in results (its index otherwise)",
        "difficulty": "str, optional: the bucket reports group results by",
        "n_solutions": "int, informational: how many distinct solutions the puzzle has",
        "needs_fractions": "bool, informational: every solution passes through a fraction",
        "solution": "str, informational: one solution (never shown to the model)",
        "task_set": "str, informational: the built-in set the puzzle comes from",
    }
    # the seed report's formula, to the letter
    presets = {"published_formula": {"credit_needs_numbers": False, "steps_answer": False}}
    deprecated_presets = {"seed": "published_formula"}
    components = ("outcome", "process", "length")
    # exact arithmetic on capped expressions and step lines: about 0.01 ms an item (0.05 ms with three
    # steps) in this thread against 0.27 ms for a round trip to a worker; long (possibly hostile)
    # completions go to the pool
    inline_max_chars = 16_384

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        cfg = self.config
        numbers, wanted, target = _task_numbers(task)
        completion = own_puzzle_part(completion, numbers)  # never a next puzzle the model invented
        turn = model_turn(completion)  # where the final answer may be (docs/answers.md)
        completion = strip_special_tokens(completion)
        steps = check_steps(completion, numbers, cfg.max_steps_checked)
        info: dict[str, Any] = {"steps": steps.total_lines, "steps_valid": 0}
        r_pr = 0.0  # the share of valid steps (0 with none)
        if steps.total_lines:
            info["steps_valid"], r_pr = steps.n_valid, steps.share_valid
            info["step_problems"] = [f"step {i + 1}: {r}" for i, r in enumerate(steps.reasons) if r != "ok"][:10]
        # the usual endings (`Answer: <expression> = N`, `<answer>…</answer>`, `\boxed{…}`) are read
        # in one step, with nothing else to weigh; anything else, in full
        usual = None if turn.unfinished else read_usual_answer(turn.text, cfg.max_expression_chars, cfg.answer_formats)
        if usual is not None and cfg.steps_answer and not usual[1][0].expression.uses_exactly(wanted):
            if "=" in turn.text[: turn.text.rfind(usual[0])]:  # steps before it (most wrong answers have none)
                usual = None  # `Answer: 2 * 12 = 24` may end steps that combine every number: read in full
        if usual is not None:
            return self._scored(*usual, wanted, target, steps.total_lines, info, r_pr)
        raw, turn = self._read_in_full(turn, wanted, target)
        why_not = turn.unfinished or "no final answer found"
        if raw is not None:
            if cfg.steps_answer:
                raw = self._answer_from_steps(raw, turn.text, wanted, target)
            info["expression"] = raw[:200]
            try:
                links = read_chain(raw, cfg.max_expression_chars)
            except ExpressionError as exc:
                why_not = f"final answer rejected: {exc}"
            else:
                return self._scored(raw, links, wanted, target, steps.total_lines, info, r_pr)
        w_pr = cfg.weights[1]  # no answer to judge: the valid steps' share alone, and no length reward
        return Score(
            w_pr * r_pr, Verdict.INVALID, {"outcome": 0.0, "process": r_pr, "length": 0.0}, None, why_not, info
        )

    def _read_in_full(self, turn: Turn, wanted: tuple[int, ...], target: int) -> tuple[str | None, Turn]:
        """The final answer of a text that does not end in a usual answer, and the turn (its text
        with choices and verbs resolved, and why no answer stands where none does)."""
        cfg = self.config
        if turn.unfinished:
            return None, turn
        # choices (`Option A: …` then `I choose option A`, a decision) never end as usual answers do
        turn = turn._replace(text=with_verbs_written_out(with_choices_resolved(turn.text)))  # `Multiply 6 by 4`
        raw = self._final(final_answers(turn.text, cfg.answer_formats), wanted, target)
        if raw is not None:  # `Answer: A` / `Wait, that is wrong. Corrected:` / `(8 - 4) * 6 = 24`
            raw = self._written_after_a_denial(turn.text, raw, wanted, target) or raw
            raw = self._written_after_a_turn(turn.text, raw, wanted, target) or raw  # `Answer: A, or rather B`
        if raw is None:  # no marked answer: where the text's structure puts one (verifiers/locate.py)
            raw = located_answer(
                turn.text,
                self._is_expression,
                lambda a: self._answers_puzzle(a, wanted, target),
                lambda a: self._attempts_puzzle(a, wanted),
            )
            if raw is not None and not self._answers_puzzle(raw, wanted, target):
                raw = self._reached_in_its_list(turn.text, raw, wanted, target) or raw
            if raw is not None and self._states_its_miss(raw, target):  # `A gives 22, but B gives 24.`
                raw = self._reached_later_in_its_sentence(raw, wanted, target) or raw
            if raw is not None and cfg.steps_answer and not self._answers_puzzle(raw, wanted, target):
                # an attempt that is the last step of steps combining every number (`8 / 4 = 2`,
                # then `(2 + 2) * 6 = 24` where 2 is also the puzzle's): the steps are the answer
                derived = derivation(turn.text, list(wanted), offers)
                raw = derived.expression if derived.expression and turn.text.rfind(raw) < derived.end else raw
        if raw is None and cfg.steps_answer:  # no expression anywhere: steps combining every number
            derived = derivation(turn.text, list(wanted), offers)
            raw = derived.expression
            turn = turn._replace(unfinished=derived.why) if derived.why else turn
        # the target alone restates an answer before it (a usual answer always combines numbers: never
        # a bare target): steps that combine every number (`Answer: 24` after them), else the
        # expression computed before it (`… = 24.` then `\\boxed{24}`)
        if raw is not None and _states_only(raw, target, cfg.max_expression_chars):
            derived = derivation(turn.text, list(wanted), offers).expression if cfg.steps_answer else None
            before = self._computed_before(turn.text, raw, wanted, target)
            raw = derived or before or self._explained_after(turn.text, raw, wanted, target) or raw
        if raw is None:
            return None, turn
        if cut_off(turn.text):  # a usual ending is a whole answer
            return None, turn._replace(unfinished="the final answer was cut off (the text stops mid-answer)")
        if says_no_answer(raw) or 0 <= turn.text.rfind(raw) < none_stated_at(turn.text):
            return None, turn._replace(unfinished="the final answer says there is none (`Final answer: none`)")
        if self._offers_another(turn.text, raw, wanted):
            why = "not one final answer (another is offered after it, or the text takes it back)"
            return None, turn._replace(unfinished=why)
        if self._concludes_another(turn.text, raw, wanted, target):
            return None, turn._replace(unfinished="not one final answer (the text concludes with another after it)")
        return raw, turn

    def _scored(
        self,
        raw: str,
        links: list[Link],
        wanted: tuple[int, ...],
        target: int,
        step_lines: int,
        info: dict[str, Any],
        r_pr: float,
    ) -> Score:
        """The score of a final answer read as `links`: its expression judged, and any value it states
        compared with the expression's."""
        cfg = self.config
        ev = _main_expression(links, wanted)
        if ev is None:  # only stated values: the first one is the answer's value
            ev = Evaluated(links[0].text, links[0].num, links[0].den, ())
        info["expression"] = raw[:200]
        info["value"] = value = ev.value_text()
        verdict, r_oc, reason = self._judge(ev, wanted, target)
        if verdict is Verdict.CORRECT:  # a right expression, unless a link states another value
            for link in links:
                if link.differs_from(ev.num, ev.den):
                    verdict, r_oc = Verdict.INCORRECT, cfg.wrong_answer_credit
                    reason = f"{ev.text} makes {target}, but the answer states {link.text} as its value"
                    break
        r_l = length_reward(step_lines, cfg.length_threshold, cfg.length_margin, cfg.length_slope)
        w_oc, w_pr, w_l = cfg.weights
        return Score(
            w_oc * r_oc + w_pr * r_pr + w_l * r_l,
            verdict,
            {"outcome": r_oc, "process": r_pr, "length": r_l},
            f"{value} using {_listed(ev.numbers)}",
            reason,
            info,
        )

    def _final(self, answers: list[str], wanted: tuple[int, ...], target: int) -> str | None:
        """The last answer, except that the bare target stated after a right expression (`… = 24`
        and then `\\boxed{24}` or `Final answer: 24`) defers to that expression."""
        if len(answers) < 2 or not _states_only(answers[-1], target, self.config.max_expression_chars):
            return answers[-1] if answers else None
        try:
            ev = _main_expression(read_chain(answers[-2], self.config.max_expression_chars), wanted)
        except ExpressionError:
            return answers[-1]
        right = ev is not None and ev.uses_exactly(wanted) and ev.equals(target)
        return answers[-2] if right else answers[-1]

    def _answer_from_steps(self, raw: str, text: str, wanted: tuple[int, ...], target: int) -> str:
        """`raw`, or where it is no expression over the puzzle's numbers, the expression its steps
        build: a labelled answer written as steps (`Answer: 8 + 4 = 12, 6 - 4 = 2, 12 * 2 = 24`,
        `Answer: 2 × 12 = 24, where 2 = 6 − 4 and 12 = 4 + 8`), or a label over its steps (`Answer:`
        then `6 - 4 = 2` …: the block that begins on its line, every step taking part). An answer
        refused as written keeps its reason (`14.0 + 17`). An answer that is the last of the steps
        before it, or restates it, answers with what they build (`_steps_it_ends`)."""
        if self._answers_puzzle(raw, wanted, target):
            return raw
        if "=" not in raw:
            return self._steps_it_ends(raw, text, wanted) or raw  # `… 2 * 12 = 24` then `Answer: 2 * 12`
        raw_steps = self._with_value_stated(raw, wanted)  # `2 * 12, where 2 = 6 - 4 and 12 = 4 + 8`
        if raw_steps.count("=") >= 2 and (derived := derivation(raw_steps, list(wanted), offers).expression):
            return derived
        at = max(0, text.rfind(raw))
        line_start = text.rfind("\n", 0, at) + 1
        if _LETTER.search(text[line_start:at]) and not self._is_expression(raw):
            return raw  # on its label's line (`Answer: 14.0 + 17 = 31`); a label alone heads steps in words too
        return derivation_at(text[line_start:], list(wanted)) or self._steps_it_ends(raw, text, wanted) or raw

    def _steps_it_ends(self, raw: str, text: str, wanted: tuple[int, ...]) -> str | None:
        """The expression built by the steps a final answer ends, combining every number: the answer
        is their last step (`6 - 4 = 2` / `4 + 8 = 12` / `Answer: 2 * 12 = 24`) or restates it
        after them (`… 2 * 12 = 24` then `Answer: 2 × 12 = 24`); None where it is neither (`Answer:
        3 * 8 = 24` after those steps is another answer, read as written)."""
        at = text.rfind(raw)
        if at < 0 or not self._is_expression(raw):
            return None
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at + len(raw))
        through = derivation(text[: len(text) if line_end < 0 else line_end], list(wanted), offers)
        if through.expression and through.end > line_start:
            return through.expression  # the answer's line is the steps' last
        before = derivation(text[:line_start], list(wanted), offers)
        if before.expression is None:
            return None
        last_step = arithmetic_in(text[: min(before.end, line_start)].rstrip().rsplit("\n", 1)[-1])
        return before.expression if last_step and self._same_answer(raw, last_step[-1], wanted) else None

    def _concludes_another(self, text: str, located: str, wanted: tuple[int, ...], target: int) -> bool:
        """Does the text, after the line of the answer it found (`located`), conclude with another
        attempt at the puzzle, presented as an answer: on a line that opens as a conclusion or under an
        answer's label, or stating the target (`Answer: A` … `Therefore B = 24.`; `Solution:` over its
        steps, then `So: B`)? Two different final answers: one too many (docs/answers.md, rule 5). The
        answer is compared as the verifier reads it (a label over steps: the expression they build)."""
        at = text.rfind(located)
        line_end = text.find("\n", at + len(located)) if at >= 0 else -1
        if line_end < 0:
            return False
        after = text[line_end:]
        attempts = partial(self._attempts_puzzle, wanted=wanted)
        later = located_answer(after, self._is_expression, lambda a: self._answers_puzzle(a, wanted, target), attempts)
        if later is None or not attempts(later) or self._states_its_miss(later, target):
            return False  # a try that states its true value (`(1 + 1) * (1 - 1) = 0`) offers nothing
        at = after.rfind(later)
        line_start = after.rfind("\n", 0, at) + 1  # a mistake's introduction may stand over its label's line
        shown = introduced_as_mistake(after, at) or introduced_as_mistake(after, line_start)
        if shown or introduced_as_the_form(after, at) or called_wrong(after, at + len(later)):
            return False  # `A common mistake is:` then another: shown beside the answer, not offered (rule 6)
        line = after[line_start : len(after) if (stop := after.find("\n", at)) < 0 else stop]
        if not (
            CONCLUDES.match(line) or any(rank(span) == 2 for span in labelled(line)) or self._claims(later, target)
        ):
            return False  # a try told of in passing (`My first idea, 8 * 4 - 6 - 4, only gives 22.`): no answer
        answer = self._answer_from_steps(located, text, wanted, target) if self.config.steps_answer else located
        if not self._is_expression(answer):
            return False  # a bare value (`\boxed{24}` then `Using …`): what follows explains it
        return not self._same_answer(answer, later, wanted)

    def _claims(self, answer: str, target: int) -> bool:
        """Does `answer` state the target as its value (`8 * 4 - 6 + 4 = 24`), true or not?"""
        try:
            links = read_chain(answer, self.config.max_expression_chars)
        except ExpressionError:
            return False
        return any(not link.has_operator and not link.differs_from(target, 1) for link in links)

    def _with_value_stated(self, raw: str, wanted: tuple[int, ...]) -> str:
        """`raw` with the value of an expression stated before its explanation (`2 * 12, where 2 = 6 -
        4 and 12 = 4 + 8` is `2 * 12 = 24, where …`): the last step of the steps it explains."""
        head = _HEAD_BEFORE_EXPLANATION.match(raw)
        if head is None:
            return raw
        try:
            main = _main_expression(read_chain(head.group("head"), self.config.max_expression_chars), wanted)
        except ExpressionError:
            return raw
        return raw if main is None else f"{head.group('head')} = {main.value_text()}{raw[head.end('head') :]}"

    def _reached_in_its_list(self, text: str, tried: str, wanted: tuple[int, ...], target: int) -> str | None:
        """Where the conclusion is an item of a list of tries that misses, its true value stated (`- (6
        - 4) * (4 + 4) = 16` under `- (6 - 4) * (4 + 8) = 24`), the one item of that list that reaches
        the target with exactly the puzzle's numbers; else None. A miss stated as the target (`= 24`,
        false) or a conclusion outside a list stays the answer."""
        at = text.rfind(tried)
        line_start = text.rfind("\n", 0, at) + 1
        if at < 0 or not _LIST_ITEM.match(text, line_start) or not self._states_its_miss(tried, target):
            return None
        reached = []
        for line in reversed(text[:line_start].split("\n")):
            if not line.strip():
                continue  # a loose list: blank lines between its items
            item = _LIST_ITEM.match(line)
            if item is None:
                break  # the list ends
            answer = line[item.end() :].strip()
            if self._answers_puzzle(answer, wanted, target) and not self._states_its_miss(answer, target):
                reached.append(answer)
        return reached[0] if len(reached) == 1 else None

    def _reached_later_in_its_sentence(self, tried: str, wanted: tuple[int, ...], target: int) -> str | None:
        """Where the conclusion opens with a try that misses, its true value stated (`8 * 4 - 6 - 4
        gives 22, but (6 - 4) * (4 + 8) gives 24.`), the first expression after it on its line that
        answers the puzzle and states no miss of its own; else None."""
        for start in _AFTER_WORDS.finditer(tried):  # where an expression may start: after a word or a clause's mark
            later = tried[start.end() :]
            if denied_before(tried, start.end()):
                continue  # `… = 22, not (6 - 4) * (4 + 8)`
            if self._answers_puzzle(later, wanted, target) and not self._states_its_miss(later, target):
                return later
        return None

    def _states_its_miss(self, answer: str, target: int) -> bool:
        """Does `answer` state a value other than the target, and is that its expression's true value?"""
        try:
            links = read_chain(answer, self.config.max_expression_chars)
        except ExpressionError:
            return False
        main = next((link for link in links if link.has_operator), None)
        stated = [link for link in links if not link.has_operator]
        if main is None or not stated or not main.differs_from(target, 1):
            return False
        return all(not link.differs_from(main.num, main.den) for link in stated)

    def _computed_before(self, text: str, stated: str, wanted: tuple[int, ...], target: int) -> str | None:
        """The expression that the bare target `stated` last in `text` restates: where the text's
        structure puts an answer (`locate`) in the text before it, an expression over exactly the
        puzzle's numbers (`We get (6-4)*(4+8) = 24.` then `The answer is \\boxed{24}`), or None."""
        at = text.rfind(stated)
        line_start = text.rfind("\n", 0, at) + 1
        before = _without_opening(text[:at]) if any(c.isdigit() for c in text[line_start:at]) else text[:line_start]
        if not before.strip():
            return None
        return located_answer(before, self._is_expression, lambda a: self._answers_puzzle(a, wanted, target))

    def _written_after_a_denial(self, text: str, marked: str, wanted: tuple[int, ...], target: int) -> str | None:
        """The answer written after a line that calls the marked answer `marked` wrong (`Answer: A`,
        then `Wait, that is wrong. Corrected:` and `(8 - 4) * 6 = 24`): the text replaced it (rule 5,
        docs/answers.md), in whatever form the new one takes. Only an expression over exactly the
        puzzle's numbers, where the text's structure puts an answer after the denial begins; else
        None (the denial then takes the marked answer back, with nothing in its place)."""
        at = text.rfind(marked)
        end = text.find("\n", at + len(marked)) if at >= 0 else -1  # its own line's words: `offers_another`'s
        denial = denial_at(text[end:], self._names_another(marked, wanted)) if end >= 0 else None
        if denial is None:
            return None
        answers = partial(self._answers_puzzle, wanted=wanted, target=target)
        return located_answer(text[end + denial :], self._is_expression, answers)

    def _written_after_a_turn(self, text: str, marked: str, wanted: tuple[int, ...], target: int) -> str | None:
        """The answer a clause after the marked answer turns to on its line (`Answer: A, or rather B.`,
        `A — sorry, I mean B = 24`, `A would be my choice, but I prefer B`): what the text ends on
        (rule 5, docs/answers.md). Only an expression over exactly the puzzle's numbers; else None
        (the marked answer then has another offered after it: refused)."""
        turned = turned_to_another(text, marked, self._names_another(marked, wanted))
        if turned is None:
            return None
        answers = partial(self._answers_puzzle, wanted=wanted, target=target)
        found = located_answer(text[turned:], self._is_expression, answers)
        return found if found is not None and answers(found) else None

    def _names_another(self, answer: str, wanted: tuple[int, ...]) -> Callable[[str], bool]:
        """Do words name an attempt at the puzzle other than `answer` (`Note that 8 * 4 - 6 - 4 = 22,
        so that does not work.`; `2 * 12 = 24`, a step, names none)?"""
        same, attempts = partial(self._same_answer, wanted=wanted), partial(self._attempts_puzzle, wanted=wanted)
        return lambda words: any(attempts(e) and not same(answer, e) for e in arithmetic_in(words))

    def _offers_another(self, text: str, raw: str, wanted: tuple[int, ...]) -> bool:
        """`extract.offers_another` for this puzzle: an answer restated (`4*6*(3-2) works too`) offers
        none, and only an attempt at the puzzle replaces it (`Actually, 8 * 4 - 6 - 4 is better.`)."""
        same = partial(self._same_answer, wanted=wanted)
        attempts = partial(self._attempts_puzzle, wanted=wanted)
        return offers_another(text, raw, self.config.answer_formats, same, attempts)

    def _same_answer(self, answer: str, other: str, wanted: tuple[int, ...]) -> bool:
        """Are two answers the same: expressions over the same numbers with the same value (`6*4*(3-2)`
        and `4*6*(3-2)`)? An answer offered beside its own restatement offers none."""
        try:
            a = _main_expression(read_chain(answer, self.config.max_expression_chars), wanted)
            b = _main_expression(read_chain(other, self.config.max_expression_chars), wanted)
        except ExpressionError:
            return False
        if a is None or b is None:
            return False
        return sorted(a.numbers) == sorted(b.numbers) and a.num * b.den == b.num * a.den

    def _explained_after(self, text: str, stated: str, wanted: tuple[int, ...], target: int) -> str | None:
        """The expression that the lines after the bare target `stated` explain it by (`\\boxed{24}`
        then `Using (6-4)*(4+8).`): where the text's structure puts an answer in them, an expression
        over exactly the puzzle's numbers; or None."""
        at = text.rfind(stated)
        line_end = text.find("\n", at)
        after = text[line_end:] if at >= 0 and line_end >= 0 else ""
        if not after.strip():
            return None
        found = located_answer(after, self._is_expression, lambda a: self._answers_puzzle(a, wanted, target))
        return found if found is not None and self._answers_puzzle(found, wanted, target) else None

    def _is_expression(self, text: str) -> bool:
        """Does `text` read as an answer: a chain with at least one link that combines numbers?"""
        try:
            return any(link.has_operator for link in read_chain(text, self.config.max_expression_chars))
        except ExpressionError:
            return False

    def _answers_puzzle(self, text: str, wanted: tuple[int, ...], target: int) -> bool:
        """Does `text` read as an answer to this puzzle: its expression uses exactly the puzzle's
        numbers (a step such as `2 * 12 = 24` states the target but answers nothing)?"""
        try:
            main = _main_expression(read_chain(text, self.config.max_expression_chars), wanted)
        except ExpressionError:
            return False
        return main is not None and main.uses_exactly(wanted)

    def _attempts_puzzle(self, text: str, wanted: tuple[int, ...]) -> bool:
        """Does `text` read as an attempt at this puzzle, right or wrong: an expression combining
        at least three numbers, either as many as the puzzle has or each one of the puzzle's
        (`(6 - 4) * (8 + 6)`, `(8 - 4) * 6`, and one that divides by zero, `(10 * 12) / (1 - 1)`)?
        A step combines two (`2 * 12 = 24`)."""
        try:
            main = _main_expression(read_chain(text, self.config.max_expression_chars), wanted)
            used = main.numbers if main is not None else ()
        except ExpressionError as exc:  # well formed, but it divides by zero: its literals as written
            if "division by zero" not in str(exc):
                return False
            used = tuple(int(n) for n in _WHOLE_NUMBER.findall(text.split("=")[0]))
        return len(used) >= 3 and (len(used) >= len(wanted) or set(used) <= set(wanted))

    def _judge(self, ev: Evaluated, wanted: tuple[int, ...], target: int) -> tuple[Verdict, float, str]:
        """Verdict, r_oc and reason for a well-formed final expression (`wanted`: the puzzle's
        numbers, sorted)."""
        credit = self.config.wrong_answer_credit
        if ev.numbers != wanted:
            paid = 0.0 if self.config.credit_needs_numbers else credit
            return Verdict.INCORRECT, paid, f"uses {_listed(ev.numbers) or 'no numbers'}, not {_listed(wanted)}"
        if not ev.equals(target):
            return Verdict.INCORRECT, credit, f"evaluates to {ev.value_text()}, not {target}"
        return Verdict.CORRECT, 1.0, f"{ev.text} = {target} with each number used once"

    # ------------------------------------------------------------------ tasks
    def task_from_shorthand(self, value: Any) -> dict[str, Any]:
        """The numbers alone ("4 4 6 8", "4,4,6,8" or a list) make a task with the target 24."""
        if isinstance(value, (list, tuple)):
            return {"numbers": list(value)}
        if isinstance(value, str):
            try:
                return {"numbers": [int(x) for x in value.replace(",", " ").split()]}
            except ValueError:
                pass
        shown = value.strip()[:60] if isinstance(value, str) else type(value).__name__
        raise ValueError(f"game24: ground truth must be numbers like '4 4 6 8' or a JSON task, got {shown!r}")

    def probes(self) -> list[Probe]:
        from .probes import PROBES

        return PROBES

    def strategies(self) -> Strategies:
        from .strategies import correct_answer, wrong_answer

        return Strategies.from_tasks(self, correct=correct_answer, wrong=wrong_answer)

    def prompt(self, task: Mapping[str, Any]) -> str:
        numbers, _, target = _task_numbers(task)
        return prompt_text(numbers, target, self.config.prompt_style)

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """The `task_set`'s puzzles (default: the 1362 solvable ones from 1..13, or a countdown set);
        `split` is "train" (80%), "test" (20%) or "all"."""
        return select(load_tasks(self.config.task_set), split, limit=limit, seed=seed)
