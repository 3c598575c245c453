"""What worker pools and executors need from the thing they run: the `Scorer` protocol.

Every `Verifier` is a Scorer, and so is anything else with these methods (the SVG verifier's
render job is one). Keeping pools and executors on this small protocol, rather than on the
`Verifier` class, is what keeps `base`, `batch` and `pool` free of import circles.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from .score import Score

Item = tuple[int, str, Mapping[str, Any]]  # (index in the batch, completion, task)
Progress = Callable[[int], None]  # called with how many items just finished


@runtime_checkable
class Scorer(Protocol):
    """Scores one item; must pickle (workers get a copy) and never raise on model input."""

    def score(self, completion: str, task: Mapping[str, Any]) -> Score: ...


@runtime_checkable
class BatchScorer(Scorer, Protocol):
    """A scorer that scores whole batches itself (e.g. SVG: batched CLIP, parallel renders).
    `score_batch` hands it the batch instead of running its own executor."""

    def score_items(
        self, items: Sequence[Item], *, workers: int | None, timeout: float | None, progress: Progress
    ) -> dict[int, Score]: ...


def spec_json_of(scorer: Scorer) -> str:
    """What identifies the scorer's config in a cache key (a Verifier's `spec_json`)."""
    spec = getattr(scorer, "spec_json", None)
    return spec() if callable(spec) else type(scorer).__qualname__


def time_budget_of(scorer: Scorer) -> float | None:
    budget = getattr(scorer, "time_budget", None)
    return budget() if callable(budget) else None
