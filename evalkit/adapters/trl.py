"""A verifier as a TRL `GRPOTrainer` reward function.

TRL calls `reward(prompts=..., completions=..., completion_ids=..., trainer_state=..., **columns)`
where every dataset column arrives as a list aligned with the completions. The task for sample i
is its `task` column (a dict or JSON text) if present, else the other columns' i-th values.
Returns a list of floats, None where a sample has no reward (a verifier ERROR, by default).
Each call also sends `evalkit/error_rate` and `evalkit/invalid_rate` through TRL's `log_metric`
(averaged per logging step by TRL), so verifier failures show in the trainer's logs.
"""

from __future__ import annotations

from typing import Any, Callable

import verifiers
from verifiers import Score, Verifier
from verifiers.score import ITEM_TIMEOUT_SECONDS
from verifiers.text import strip_special_tokens

from .errors import ErrorPolicy
from .tasks import completion_text

TRL_ARGUMENTS = {"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric"}


def _tasks(verifier: Verifier, n: int, columns: dict[str, Any]) -> list[dict[str, Any] | Score]:
    """The task of each sample, or an ERROR score for a `task` cell that is no task (`"{not json"`,
    None): that item's fault, never the batch's."""
    data = {k: v for k, v in columns.items() if k not in TRL_ARGUMENTS and isinstance(v, (list, tuple)) and len(v) == n}
    if "task" not in data:
        return [{k: v[i] for k, v in data.items()} for i in range(n)]
    out: list[dict[str, Any] | Score] = []
    for cell in data["task"]:
        try:
            out.append(verifier.task_from_ground_truth(cell))
        except (ValueError, TypeError) as exc:
            out.append(Score.error(f"bad task cell: {exc}", task_error=True))
    return out


def _merge(items: list[dict[str, Any] | Score], scored: list[Score]) -> list[Score]:
    """Scores in item order: the ready ERRORs where a task was bad, the scored ones elsewhere."""
    fresh = iter(scored)
    return [item if isinstance(item, Score) else next(fresh) for item in items]


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

    def prepare(completions: list[Any], columns: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]], list[Any]]:
        """(texts, tasks) to score, and every item's task or its ready ERROR, in order."""
        items = _tasks(v, len(completions), columns)
        texts = [
            strip_special_tokens(completion_text(c)) for c, t in zip(completions, items) if not isinstance(t, Score)
        ]
        return texts, [t for t in items if not isinstance(t, Score)], items

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
            texts, tasks, items = prepare(completions or [], columns)
            scored = await v.ascore_batch(texts, tasks, workers=workers, timeout=timeout) if tasks else []
            return finish(_merge(items, scored), columns)
    else:

        def reward(
            prompts: list[Any] | None = None, completions: list[Any] | None = None, **columns: Any
        ) -> list[float | None]:
            texts, tasks, items = prepare(completions or [], columns)
            scored = v.score_batch(texts, tasks, workers=workers, timeout=timeout) if tasks else []
            return finish(_merge(items, scored), columns)

    reward.__name__ = f"evalkit_{v.name}"  # TRL logs each reward function under its name
    reward.error_policy = policy  # type: ignore[attr-defined]
    return reward
