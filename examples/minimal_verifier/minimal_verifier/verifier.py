"""The verifier: its Config, its class, and the hooks that give it evalkit's tools.

Only `evaluate` is required. The rest is optional, each with a base-class default:
`prompt` and `tasks` (for `evalkit eval` and GRPO), `aliases` and `components` (for verl),
`task_from_shorthand` (labels that are not JSON tasks), `probes` (known reward hacks for
`assert_not_hackable`), `strategies` (hypothesis strategies for property tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from verifiers import Score, TaskError, Verdict, Verifier
from verifiers.testing import Probe, Strategies

from . import tasks as task_files
from .extract import final_answer


@dataclass(frozen=True)
class ReverseConfig:
    case_sensitive: bool = False  # "Desserts" counts for "desserts" unless set
    max_answer_chars: int = 100  # a longer answer line is INVALID, not searched

    def validate(self) -> None:
        """Called by the base class when the verifier is built: bad settings fail at once."""
        if self.max_answer_chars < 1:
            raise ValueError("max_answer_chars must be at least 1")


class ReverseVerifier(Verifier):
    """1.0 for the word written backwards on the answer line, 0.0 for anything else."""

    Config = ReverseConfig
    verdicts_order_rewards = True  # check_verifier then holds verdict and reward together
    aliases = ("reverse-text", "reversal")  # other names a framework's data may use
    components = ("exact",)
    task_fields = {  # docs/reference.md lists these; a task field nobody declares is a test failure
        "word": "str, needed: the word to write backwards",
        "id": "str, optional: the task's name in results",
        "difficulty": "str, optional: the bucket reports group results by",
    }

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        word = task.get("word")
        if not isinstance(word, str) or not word:
            raise TaskError("'word' must be a non-empty string")  # the caller's data: scores ERROR
        answer = final_answer(completion, self.config.max_answer_chars)
        if answer is None:
            return Score.invalid("no 'Answer:' line (or it is empty or too long)")
        expected = word[::-1]
        same = answer == expected if self.config.case_sensitive else answer.casefold() == expected.casefold()
        if same:
            return Score(1.0, Verdict.CORRECT, {"exact": 1.0}, answer, f"{word!r} reversed is {answer!r}")
        return Score(0.0, Verdict.INCORRECT, {"exact": 0.0}, answer, f"expected {expected!r}, got {answer[:40]!r}")

    def prompt(self, task: Mapping[str, Any]) -> str:
        return task_files.prompt(task)

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        return task_files.load(split, limit, seed)

    def task_from_shorthand(self, value: Any) -> dict[str, Any]:
        """A bare word is the task (verl's ground_truth "stressed")."""
        if isinstance(value, str) and value.strip() and " " not in value.strip():
            return {"word": value.strip()}
        return super().task_from_shorthand(value)

    def probes(self) -> list[Probe]:
        return [
            Probe("the word unreversed", lambda v, t: f"Answer: {t['word']}"),
            Probe("every guess on one line", lambda v, t: f"Answer: {t['word']} or {t['word'][::-1]}"),
            Probe("reversed in the reasoning only", lambda v, t: f"Reversed: {t['word'][::-1]}. Answer: ?"),
        ]

    def strategies(self) -> Strategies:
        from .strategies import correct_answer, wrong_answer

        return Strategies.from_tasks(self, correct=correct_answer, wrong=wrong_answer)
