"""Metrics over scored samples: pass@k, maj@k, mean reward with an interval, and the seed's rates.

- pass@k: the unbiased estimator of Chen et al. (2021), 1 - C(n-c, k) / C(n, k), averaged over
  tasks; only for k <= n (the estimator does not exist beyond that), so asking for more refuses.
- maj@k: the probability that a majority vote over k of the n samples picks a correct answer,
  averaged over all k-subsets (exactly when there are at most 20,000 of them, otherwise over 20,000
  seeded random subsets). Votes go by `Score.answer`; samples with no answer (invalid output) do not
  vote, and a subset where nobody votes counts as wrong. Ties go to the answer that appears first in
  sample order, as lm-eval and lighteval do. An answer counts as correct when a sample with that
  answer was scored CORRECT.
- accuracy: share of samples scored CORRECT (= pass@1); incompletion: share that hit the length
  limit; error rate: share whose verdict is ERROR (the verifier failed, not the model).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from verifiers.score import verdict_counts

EXACT_SUBSETS = 20_000


class MetricError(ValueError):
    """A metric was asked for that the data cannot support (e.g. pass@k with k > n)."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task with n samples of which c are correct."""
    if k > n:
        raise MetricError(f"pass@{k} needs at least {k} samples per task, got {n}")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def _majority_correct(answers: Sequence[str | None], correct_answers: set[str]) -> bool:
    votes = Counter(a for a in answers if a is not None)
    if not votes:
        return False
    top = max(votes.values())
    winner = next(a for a in answers if a is not None and votes[a] == top)  # first occurrence wins ties
    return winner in correct_answers


def maj_at_k(answers: Sequence[str | None], correct: Sequence[bool], k: int, seed: int = 0) -> float:
    """Majority-vote accuracy over k-subsets of one task's samples (see the module docstring)."""
    n = len(answers)
    if k > n:
        raise MetricError(f"maj@{k} needs at least {k} samples per task, got {n}")
    correct_answers = {a for a, ok in zip(answers, correct) if ok and a is not None}
    if math.comb(n, k) <= EXACT_SUBSETS:
        subsets: Iterable[tuple[int, ...]] = itertools.combinations(range(n), k)
        total = math.comb(n, k)
    else:
        rng = random.Random(seed)
        subsets = (tuple(sorted(rng.sample(range(n), k))) for _ in range(EXACT_SUBSETS))
        total = EXACT_SUBSETS
    hits = sum(_majority_correct([answers[i] for i in s], correct_answers) for s in subsets)
    return hits / total


def shown(value: float | None) -> str:
    """A rate for tables: three decimals, or "n/a" where it cannot be measured (maj@k without answers)."""
    return "n/a" if value is None else f"{value:.3f}"


def mean_interval(values: Sequence[float], resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean and a 95% percentile-bootstrap interval (seeded). Unlike mean ± 1.96·sd/√n, it stays
    inside the range the values can take: a reward that cannot be negative never gets a negative bound."""
    if not values:
        return float("nan"), float("nan"), float("nan")
    arr = np.asarray(values, dtype=float)
    mean = float(arr.mean())
    if arr.size == 1 or np.all(arr == arr[0]):
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, arr.size, size=(resamples, arr.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return mean, float(low), float(high)


def difference_interval(
    a: dict[str, list[float]], b: dict[str, list[float]], resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of mean(b) - mean(a), each a {task: its samples' values}.
    Tasks are the unit resampled (samples of one task are not independent); where both runs hold
    the same tasks the draws are paired (the same tasks for both), which is what a comparison of
    two models or settings on one task set wants."""
    if not a or not b:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)

    def sums(groups: dict[str, list[float]], keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([sum(groups[k]) for k in keys], float), np.array([len(groups[k]) for k in keys], float))

    def means(total: np.ndarray, count: np.ndarray, draws: np.ndarray) -> np.ndarray:
        return total[draws].sum(axis=1) / count[draws].sum(axis=1)

    if set(a) == set(b):
        keys = sorted(a)
        draws = rng.integers(0, len(keys), size=(resamples, len(keys)))
        diffs = means(*sums(b, keys), draws) - means(*sums(a, keys), draws)
    else:
        ka, kb = sorted(a), sorted(b)
        da = rng.integers(0, len(ka), size=(resamples, len(ka)))
        db = rng.integers(0, len(kb), size=(resamples, len(kb)))
        diffs = means(*sums(b, kb), db) - means(*sums(a, ka), da)
    low, high = np.percentile(diffs, [2.5, 97.5])
    return float(low), float(high)


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson 95% interval for a rate: within [0, 1] and sensible at 0 or n successes."""
    if n == 0:
        return float("nan"), float("nan")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Summary:
    """Metrics for one group of samples (all, one task, one difficulty bucket)."""

    tasks: int
    samples: int
    accuracy: float
    incompletion: float
    error_rate: float
    mean_reward: float
    reward_low: float
    reward_high: float
    accuracy_stderr: float  # standard errors over per-task means: samples of one task are not independent
    reward_stderr: float
    accuracy_low: float  # Wilson 95% interval
    accuracy_high: float
    verdicts: dict[str, int]  # correct / partial / incorrect / invalid / timeout / error
    pass_at: dict[int, float]
    maj_at: dict[int, float | None]  # None where answers cannot vote (e.g. drawings)
    length_mean: float
    length_p50: float
    length_p90: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def ks_for(n: int) -> list[int]:
    """The k values worth reporting for n samples per task: 1, then powers of two up to n."""
    ks, k = [], 1
    while k <= n:
        ks.append(k)
        k *= 2
    if n not in ks:
        ks.append(n)
    return ks


def summarise(records: Sequence[dict[str, Any]], ks: Sequence[int] | None = None) -> Summary:
    """Metrics over sample records (as written to samples.jsonl)."""
    by_task: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_task.setdefault(r["task_id"], []).append(r)
    n_min = min((len(v) for v in by_task.values()), default=0)
    ks = [k for k in (ks or ks_for(n_min)) if k <= n_min]
    verdicts = [r["score"]["verdict"] for r in records]
    rewards = [r["score"]["reward"] for r in records if r["score"]["verdict"] != "error"]
    lengths = np.asarray([r["tokens"] for r in records], dtype=float)
    mean, low, high = mean_interval(rewards)
    pass_at = {
        k: float(
            np.mean(
                [pass_at_k(len(v), sum(x["score"]["verdict"] == "correct" for x in v), k) for v in by_task.values()]
            )
        )
        for k in ks
    }
    votes = any(r["score"].get("answer") is not None for r in records)
    maj: dict[int, float | None] = {  # None (shown as n/a): no sample has an answer that can vote
        k: float(
            np.mean(
                [
                    maj_at_k(
                        [x["score"].get("answer") for x in sorted(v, key=lambda x: x["sample"])],
                        [x["score"]["verdict"] == "correct" for x in sorted(v, key=lambda x: x["sample"])],
                        k,
                    )
                    for v in by_task.values()
                ]
            )
        )
        if votes
        else None
        for k in ks
    }
    n = max(1, len(records))
    per_task_correct = [np.mean([x["score"]["verdict"] == "correct" for x in v]) for v in by_task.values()]
    per_task_reward = [
        np.mean(r)
        for r in ([x["score"]["reward"] for x in v if x["score"]["verdict"] != "error"] for v in by_task.values())
        if r
    ]
    return Summary(
        tasks=len(by_task),
        samples=len(records),
        accuracy=verdicts.count("correct") / n,
        incompletion=sum(r["finish_reason"] == "length" for r in records) / n,
        error_rate=verdicts.count("error") / n,
        mean_reward=mean,
        reward_low=low,
        reward_high=high,
        pass_at=pass_at,
        maj_at=maj,
        accuracy_stderr=_stderr(per_task_correct),
        reward_stderr=_stderr(per_task_reward),
        accuracy_low=wilson(verdicts.count("correct"), len(records))[0],
        accuracy_high=wilson(verdicts.count("correct"), len(records))[1],
        verdicts=verdict_counts(verdicts),
        length_mean=float(lengths.mean()) if lengths.size else float("nan"),
        length_p50=float(np.percentile(lengths, 50)) if lengths.size else float("nan"),
        length_p90=float(np.percentile(lengths, 90)) if lengths.size else float("nan"),
    )


def _stderr(values: Sequence[float]) -> float:
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else float("nan")


LEVELS = {"easy": 0, "medium": 1, "hard": 2}


def group_order(name: str) -> tuple[str, int, str]:
    """Buckets in difficulty order (easy, medium, hard; `c3-easy` before `c3-hard`), not alphabetically."""
    prefix, _, level = name.rpartition("-") if "-" in name else ("", "", name)
    return (prefix, LEVELS.get(level, len(LEVELS)), name)


def summarise_groups(records: Sequence[dict[str, Any]], key: str) -> dict[str, Summary]:
    """One summary per value of `key` in the records (e.g. "difficulty"), in difficulty order;
    records without it are skipped."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r.get(key) is not None:
            groups.setdefault(str(r[key]), []).append(r)
    return {name: summarise(groups[name]) for name in sorted(groups, key=group_order)}
