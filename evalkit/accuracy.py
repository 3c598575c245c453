"""How accurate is a cheaper reward? The seed's question (003, section 2.1: rewards from 2, 8 or 32
tests), for any verifier setting that trades cost for accuracy: `max_tests` for code, `rollouts` for
the games. The same items are scored at each setting and at the full budget; each setting's reward
is judged against the full-budget one:

- false pass: the setting says CORRECT where the full budget does not (share of the not-correct);
- false fail: the setting says anything else where the full budget says CORRECT (share of the correct);
- mean absolute error of the reward, and the share of items whose reward differs at all;
- cost: wall seconds per score, measured on the same batch at the same worker count.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

import verifiers
from verifiers import Score


@dataclass(frozen=True)
class SettingAccuracy:
    value: Any  # the knob's setting
    scores: int
    false_pass: float  # P(setting CORRECT | full not CORRECT)
    false_fail: float  # P(setting not CORRECT | full CORRECT)
    reward_mae: float
    reward_differs: float  # share of items whose reward is not the full budget's
    seconds_per_score: float
    errors: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def compare(scores: Sequence[Score], full: Sequence[Score]) -> dict[str, float]:
    """The error figures of `scores` against the full-budget `full`, items that are ERROR in
    either left out (counted apart by the caller)."""
    pairs = [(s, f) for s, f in zip(scores, full) if not s.is_error and not f.is_error]
    correct = [s.correct for s, f in pairs if f.correct]
    wrong = [s.correct for s, f in pairs if not f.correct]
    diffs = [abs(s.reward - f.reward) for s, f in pairs]
    return {
        "false_pass": sum(wrong) / len(wrong) if wrong else 0.0,
        "false_fail": (len(correct) - sum(correct)) / len(correct) if correct else 0.0,
        "reward_mae": sum(diffs) / len(diffs) if diffs else 0.0,
        "reward_differs": sum(d > 1e-9 for d in diffs) / len(diffs) if diffs else 0.0,
    }


def knob_accuracy(
    verifier: str,
    knob: str,
    values: Sequence[Any],
    completions: Sequence[str],
    tasks: Sequence[Mapping[str, Any]],
    *,
    full: Any = None,
    config: Mapping[str, Any] | None = None,
    workers: int | None = 2,
    progress: Any = None,
) -> tuple[list[SettingAccuracy], list[Score]]:
    """Score every item at each of `values` of `knob` and at `full` (the reference); returns one
    row per setting (the full budget's last) and the full-budget scores."""
    base = dict(config or {})
    results: dict[Any, tuple[list[Score], float]] = {}
    for value in [full, *[v for v in values if v != full]]:
        v = verifiers.get(verifier, base, **{knob: value})
        try:
            v.score_batch(completions[:1], tasks[:1], workers=workers)  # warm the pool: cost is per score, not start-up
            start = time.perf_counter()
            scores = v.score_batch(completions, tasks, workers=workers)
            results[repr(value)] = (scores, (time.perf_counter() - start) / max(1, len(scores)))
        finally:
            v.close()
        if progress is not None:
            progress(value)
    reference = results[repr(full)][0]
    rows = []
    for value in [*[v for v in values if v != full], full]:
        scores, seconds = results[repr(value)]
        rows.append(
            SettingAccuracy(
                value=value,
                scores=len(scores),
                seconds_per_score=seconds,
                errors=sum(s.is_error for s in scores),
                **compare(scores, reference),
            )
        )
    return rows, reference
