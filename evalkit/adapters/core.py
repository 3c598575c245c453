"""What every framework adapter shares, so each route scores the same way:

- one verifier per process and config, built on first use and kept (a framework calls the reward
  function once per batch; building a verifier and its worker pool each time cost 0.24-58 s);
- the text a framework hands over made plain: its prompt removed, trailing chat special tokens
  stripped (OpenRLHF decodes with them kept);
- labels read per item: a bad one is that item's ERROR, never an exception for the batch;
- one result per item, from `Score`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Mapping, Sequence

import verifiers
from verifiers import Score, Verifier
from verifiers.score import ITEM_TIMEOUT_SECONDS
from verifiers.text import strip_special_tokens

from .tasks import task_from_ground_truth


@lru_cache(maxsize=32)
def _cached(name: str, config_json: str) -> Verifier:
    return verifiers.get(name, **json.loads(config_json))


def cached_verifier(name: str, config: Mapping[str, Any] | None = None) -> Verifier:
    """The process's verifier for (name, config); its worker pool stays warm between calls."""
    return _cached(name, json.dumps(dict(config or {}), sort_keys=True, default=str))


def config_fields(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of `options` that name fields of the verifier's config (the rest are the framework's)."""
    fields = set(getattr(verifiers.verifier_class(name).Config, "__dataclass_fields__", {}))
    return {k: v for k, v in options.items() if k in fields}


def response_text(query: Any, prompt: Any = None) -> str:
    """The model's response: `query` minus its `prompt` prefix, without trailing special tokens."""
    text = query if isinstance(query, str) else str(query)
    if isinstance(prompt, str) and prompt and text.startswith(prompt):
        text = text[len(prompt) :]
    return strip_special_tokens(text)


def plain(value: Any) -> Any:
    """numpy arrays and scalars (as verl passes ground truths) as plain Python values."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    return value


def score_labelled(
    v: Verifier,
    responses: Sequence[str],
    labels: Sequence[Any],
    *,
    extras: Sequence[Mapping[str, Any] | None] | None = None,
    timeout: float = ITEM_TIMEOUT_SECONDS,
    workers: int | None = None,
    deadline: Any = None,
) -> list[Score]:
    """Scores for (response, label) pairs; a label that is no task for this verifier is that item's ERROR.
    `workers` and `deadline` as `score_batch` takes them."""
    scores: list[Score | None] = [None] * len(responses)
    good: list[int] = []
    tasks: list[dict[str, Any]] = []
    for i, label in enumerate(labels):
        try:
            tasks.append(task_from_ground_truth(v, plain(label), extras[i] if extras else None))
            good.append(i)
        except (ValueError, TypeError) as exc:
            scores[i] = Score.error(f"bad label: {exc}", task_error=True)
    for i, score in zip(
        good,
        v.score_batch([responses[i] for i in good], tasks, timeout=timeout, workers=workers, deadline=deadline)
        if good
        else [],
    ):
        scores[i] = score
    return scores  # type: ignore[return-value]
