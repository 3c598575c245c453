"""A verifier as a TRL `GRPOTrainer` reward function.

TRL calls `reward(prompts=..., completions=..., completion_ids=..., trainer_state=..., **columns)`
where every dataset column arrives as a list aligned with the completions. The task for sample i
is its `task` column (a dict or JSON text) if present, else the other columns' i-th values.
Returns a list of floats, None where a sample has no reward (a verifier ERROR, by default).
Each call also sends `evalkit/error_rate` and `evalkit/invalid_rate` through TRL's `log_metric`
(averaged per logging step by TRL), so verifier failures show in the trainer's logs.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import verifiers
from verifiers import Verifier
from verifiers.score import ITEM_TIMEOUT_SECONDS
from verifiers.text import strip_special_tokens

from .errors import ErrorPolicy
from .tasks import completion_text

TRL_ARGUMENTS = {"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric"}


def _tasks(n: int, columns: dict[str, Any]) -> list[dict[str, Any]]:
    data = {k: v for k, v in columns.items() if k not in TRL_ARGUMENTS and isinstance(v, (list, tuple)) and len(v) == n}
    if "task" in data:
        return [json.loads(t) if isinstance(t, str) else dict(t) for t in data["task"]]
    return [{k: v[i] for k, v in data.items()} for i in range(n)]


def trl_reward(
    verifier: Verifier | str,
    *,
    errors: ErrorPolicy | None = None,
    asynchronous: bool = False,
    workers: int | None = None,
    timeout: float = ITEM_TIMEOUT_SECONDS,
    **config: Any,
) -> Callable[..., Any]:
    """`GRPOTrainer(reward_funcs=[trl_reward("game24")], ...)`; `asynchronous=True` gives an async function."""
    v = verifiers.get(verifier, **config) if isinstance(verifier, str) else verifier
    policy = errors or ErrorPolicy()

    def prepare(completions: list[Any], columns: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
        return [strip_special_tokens(completion_text(c)) for c in completions], _tasks(len(completions), columns)

    def finish(scores: list[Any], columns: dict[str, Any]) -> list[float | None]:
        log_metric = columns.get("log_metric")
        if callable(log_metric) and scores:
            log_metric("evalkit/error_rate", sum(s.is_error for s in scores) / len(scores))
            log_metric("evalkit/invalid_rate", sum(s.verdict.value == "invalid" for s in scores) / len(scores))
        return [policy.reward(s, None) for s in scores]

    if asynchronous:

        async def reward(
            prompts: list[Any] | None = None, completions: list[Any] | None = None, **columns: Any
        ) -> list[float | None]:
            texts, tasks = prepare(completions or [], columns)
            return finish(await v.ascore_batch(texts, tasks, workers=workers, timeout=timeout), columns)
    else:

        def reward(
            prompts: list[Any] | None = None, completions: list[Any] | None = None, **columns: Any
        ) -> list[float | None]:
            texts, tasks = prepare(completions or [], columns)
            return finish(v.score_batch(texts, tasks, workers=workers, timeout=timeout), columns)

    reward.__name__ = f"evalkit_{v.name}"  # TRL logs each reward function under its name
    reward.error_policy = policy  # type: ignore[attr-defined]
    return reward
