"""Scoring on a Ray cluster, for users who outgrow one machine: `score_batch(..., executor="ray")`.
Items go out in chunks as Ray tasks; each chunk is scored in a worker with the same per-item
guarantees as the local pool (it runs one `WorkerPool` of size 1 inside the Ray worker)."""
from __future__ import annotations

import math
import pickle
from typing import Any, Callable, Sequence

from .score import Score

Item = tuple[int, str, Any]


def _score_chunk(blob: bytes, items: list[Item], timeout: float | None, memory_mb: int | None) -> list[tuple[int, tuple]]:
    from .pool import WorkerPool

    verifier = pickle.loads(blob)
    pool = WorkerPool(verifier, 1, memory_mb)
    try:
        scores = pool.run(items, timeout, lambda n: None)
    finally:
        pool.close()
        verifier.close()
    return [(i, s.to_row()) for i, s in scores.items()]


def run_on_ray(verifier: Any, items: Sequence[Item], *, workers: int | None, timeout: float | None,
               memory_mb: int | None, progress: Callable[[int], None]) -> dict[int, Score]:
    try:
        import ray
    except ImportError:
        raise RuntimeError("executor='ray' needs Ray: pip install 'evalkit[ray]'") from None
    if not ray.is_initialized():
        ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(_score_chunk)
    blob = pickle.dumps(verifier)
    n_chunks = max(1, min(len(items), (workers or int(ray.cluster_resources().get("CPU", 1))) * 4))
    size = math.ceil(len(items) / n_chunks)
    pending = [remote.remote(blob, list(items[k:k + size]), timeout, memory_mb) for k in range(0, len(items), size)]
    out: dict[int, Score] = {}
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        rows = ray.get(done[0])
        out.update({i: Score.from_row(row) for i, row in rows})
        progress(len(rows))
    return out
