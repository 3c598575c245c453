"""Assertions for reward functions: exact expectations, orderings, bounds, and the invariants
every verifier must keep (`check_verifier`, in the spirit of gymnasium's `check_env`)."""

from __future__ import annotations

import json
import time
from typing import Any, Iterable, Mapping, Sequence

from verifiers import Score, Unsupported, Verdict, Verifier

from .expectations import Expected, compare

Task = Mapping[str, Any]


class RewardAssertionError(AssertionError):
    """A reward expectation failed; the message is a table of expected against actual."""


def assert_score(
    score_or_verifier: Score | Verifier,
    completion: str | None = None,
    task: Task | None = None,
    *,
    reward: Expected = None,
    verdict: str | Verdict | None = None,
    components: Mapping[str, Expected] | None = None,
    answer: str | None = None,
    label: str | None = None,
) -> Score:
    """`assert_score(v, completion, task, reward=1.0, verdict="correct", components={"process": (0.5, 1)})`.

    Accepts a `Score` or a verifier plus its inputs; a number expects a value, a pair a range.
    Returns the score so a test can look further.
    """
    if isinstance(score_or_verifier, Verifier):
        if completion is None or task is None:
            raise TypeError("assert_score(verifier, completion, task, ...) needs the completion and the task")
        score = score_or_verifier.score(completion, task)
        label = label or f"{score_or_verifier.name}: {_short(completion)}"
    else:
        score = score_or_verifier
    cmp = compare(score, label=label or "score", reward=reward, verdict=verdict, components=components, answer=answer)
    if not cmp.ok:
        raise RewardAssertionError("\n" + cmp.table())
    return score


def assert_ranks(verifier: Verifier, task: Task, completions: Sequence[str], *, strict: bool = True) -> list[Score]:
    """The completions are listed best first; their rewards must fall in that order (strictly, by default)."""
    scores = [verifier.score(c, task) for c in completions]
    bad = [
        i
        for i in range(1, len(scores))
        if (scores[i].reward >= scores[i - 1].reward if strict else scores[i].reward > scores[i - 1].reward)
    ]
    if bad:
        lines = ["rewards are not in the expected order (best first):"]
        for i, (c, s) in enumerate(zip(completions, scores)):
            flag = "✗" if i in bad else " "
            lines.append(f"{flag} #{i + 1}  reward {s.reward:.4f}  {s.verdict.value:<9}  {_short(c)}")
        raise RewardAssertionError("\n".join(lines))
    return scores


def assert_bounded(
    verifier: Verifier, inputs: Iterable[tuple[str, Task]], *, seconds: float = 5.0, memory_mb: int | None = 2048
) -> list[Score]:
    """Each input is scored in a worker process that is killed past `seconds` or `memory_mb`;
    any item that needs killing, crashes its worker or runs out of memory fails the assertion."""
    pairs = list(inputs)
    scores = verifier.score_batch(
        [c for c, _ in pairs], [t for _, t in pairs], workers=1, timeout=seconds, memory_mb=memory_mb
    )  # the verifier stays open: it is the caller's (its pools close with it)
    failures = [(c, s) for (c, _), s in zip(pairs, scores) if s.is_error and _is_resource_failure(s)]
    if failures:
        lines = [f"{len(failures)} input(s) exceeded {seconds:g} s / {memory_mb} MB or crashed the scorer:"]
        lines += [f"  {_short(c)}: {s.reason}" for c, s in failures]
        raise RewardAssertionError("\n".join(lines))
    return scores


def _is_resource_failure(score: Score) -> bool:
    reason = score.reason.lower()
    return any(word in reason for word in ("longer than", "worker process", "out of memory"))


HOSTILE_TEXTS: dict[str, str] = {
    "empty": "",
    "whitespace": " \n\t ",
    "one megabyte": "a" * 1_000_000,
    "deep nesting": "(" * 50_000 + ")" * 50_000,
    "control characters": "\x00\x01\x1b[31m\x7f",
    "lone surrogate": "\ud800 x \udfff",
    "right-to-left": "\u202e24 = 6 * 4\u202c",
    "markup soup": "<answer><svg><move>```python\n</answer></svg></move>```",
    "unicode digits": "٣ ٤ ٥ ６ 𝟕",
    "json": '{"completion": null, "reward": 1.0}',
}


def check_verifier(
    verifier: Verifier,
    tasks: Sequence[Task] | None = None,
    completions: Sequence[str] = (),
    *,
    samples: int = 5,
    seconds: float = 10.0,
) -> None:
    """Check the invariants every verifier must keep; raise one error listing every violation.

    - its config round-trips through a plain JSON dict;
    - it builds a prompt for each task (when it offers prompts);
    - on hostile text and the given completions it never reports its own failure (ERROR),
      stays within `seconds`, returns rewards that are finite and within `reward_bounds()`,
      never pairs a verdict with a reward that contradicts it (for verifiers that declare
      `verdicts_order_rewards`: no INCORRECT/INVALID at the top reward, no CORRECT at the bottom),
      gives the same score twice, and its scores round-trip through JSON;
    - `score_batch` agrees with `score`.
    """
    problems: list[str] = []
    name = verifier.name or type(verifier).__name__
    try:
        rebuilt = type(verifier)(**json.loads(json.dumps(verifier.config_dict())))
        if rebuilt != verifier:
            problems.append("config does not round-trip: rebuilt verifier differs")
    except Exception as exc:
        problems.append(f"config does not round-trip through JSON: {type(exc).__name__}: {exc}")
    if tasks is None:
        try:
            tasks = verifier.tasks("test", limit=samples)
        except Unsupported:
            raise TypeError(f"{name} ships no tasks: pass tasks=[...] to check_verifier") from None
    tasks = list(tasks)[:samples]
    if not tasks:
        problems.append("no tasks to check against")
    low, high = verifier.reward_bounds()
    pairs: list[tuple[str, Task]] = []
    for task in tasks:
        try:
            prompt = verifier.prompt(task)
            if not isinstance(prompt, str) or not prompt.strip():
                problems.append(f"prompt({_short(str(task))}) is not a non-empty string")
            texts = list(HOSTILE_TEXTS.values()) + [prompt] + list(completions)
        except Unsupported:
            texts = list(HOSTILE_TEXTS.values()) + list(completions)
        pairs += [(text, task) for text in texts]
    scores = []
    for text, task in pairs:
        start = time.perf_counter()
        s = verifier.score(text, task)
        elapsed = time.perf_counter() - start
        scores.append(s)
        where = f"on {_short(text)!r}"
        if elapsed > seconds:
            problems.append(f"took {elapsed:.1f} s {where} (limit {seconds:g} s)")
        if s.is_error:
            problems.append(f"reported its own failure {where}: {s.reason}")
        if not low - 1e-9 <= s.reward <= high + 1e-9:
            problems.append(f"reward {s.reward} outside reward_bounds() {low, high} {where}")
        if verifier.verdicts_order_rewards and _verdict_contradicts_reward(s, low, high):
            problems.append(f"verdict {s.verdict.value} with reward {s.reward} {where}: verdict and reward disagree")
        if verifier.score(text, task) != s:
            problems.append(f"not deterministic {where}")
        if Score.from_dict(json.loads(json.dumps(s.to_dict()))) != s:
            problems.append(f"score does not round-trip through JSON {where}")
    sample = pairs[: max(1, min(len(pairs), 3 * samples))]
    batch = verifier.score_batch([c for c, _ in sample], [t for _, t in sample], workers=1, timeout=seconds + 5)
    if batch != scores[: len(sample)]:
        problems.append("score_batch disagrees with score")
    if problems:
        unique = list(dict.fromkeys(problems))
        raise RewardAssertionError(
            f"{name} breaks {len(unique)} invariant(s):\n" + "\n".join(f"  - {p}" for p in unique[:30])
        )


def _verdict_contradicts_reward(s: Score, low: float, high: float) -> bool:
    """A wrong or invalid answer with the top reward, or a correct one with the bottom reward."""
    if s.verdict in (Verdict.INCORRECT, Verdict.INVALID) and s.reward >= high - 1e-9 and high > low:
        return True
    return s.verdict is Verdict.CORRECT and s.reward <= low + 1e-9 and high > low


def _short(text: str, width: int = 60) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= width else text[: width - 1] + "…"
