"""verl's custom reward function. In verl 0.9 the keys live under `reward.`:

    reward.custom_reward_function.path=/path/to/evalkit/adapters/verl.py   (or pkg://evalkit.adapters.verl)
    reward.custom_reward_function.name=compute_score

(older releases read the same keys at the top level). The file imports nothing relative, so verl
may load it by path. `data_source` picks the verifier (its name or one of its `aliases`, any case);
`ground_truth` is read by the verifier's `task_from_ground_truth` (numpy arrays too).

Every call returns the same keys, whatever the verifier and verdict, because verl builds its
columns from the first item of a batch: `score`, `acc`, `error`, `invalid`, `pred` (the canonical
answer, for verl's maj@N) and one key per component any known verifier declares (NaN where this
verifier has no such component). Keyword arguments that name fields of the verifier's config configure it
(`reward_kwargs`); the rest (e.g. `reward_router_address`) are verl's and ignored. Bad input (an
unknown data_source, a ground truth that is no task) is an ERROR item, never an exception; verl
has no "no reward", so an ERROR scores `ERROR_POLICY.value` (0.0 unless set) with `error: 1.0`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import verifiers
from evalkit.adapters.core import cached_verifier, config_fields, response_text, score_labelled
from evalkit.adapters.errors import ErrorPolicy
from verifiers import Score, Verdict

ERROR_POLICY = ErrorPolicy(value=0.0)


def compute_score(
    data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> dict[str, Any]:
    try:
        name = _verifier_name(str(data_source))
    except verifiers.UnknownVerifier:
        return result(
            Score.error(
                f"no evalkit verifier for data_source {str(data_source)[:60]!r}; known: "
                f"{', '.join(verifiers.names())} and their aliases",
                task_error=True,
            )
        )
    v = cached_verifier(name, config_fields(name, kwargs))
    extra = extra_info.get("task") if isinstance(extra_info, dict) else None
    (score,) = score_labelled(v, [response_text(solution_str)], [ground_truth], extras=[extra])
    return result(score)


@lru_cache(maxsize=256)
def _verifier_name(data_source: str) -> str:
    """verl calls once per item: resolving a data source reads the installed entry points (ms),
    so each is resolved once per process."""
    return verifiers.resolve(data_source)


@lru_cache(maxsize=1)
def _components() -> tuple[str, ...]:
    return verifiers.all_components()


def result(score: Score) -> dict[str, Any]:
    """The fixed-key dict verl aggregates."""
    out: dict[str, Any] = {
        "score": ERROR_POLICY.reward(score, no_reward=None),
        "acc": float(score.correct),
        "error": float(score.is_error),
        "invalid": float(score.verdict is Verdict.INVALID),
        "pred": "" if score.answer is None else str(score.answer),
    }
    out.update({c: float(score.components.get(c, math.nan)) for c in _components()})
    return out
