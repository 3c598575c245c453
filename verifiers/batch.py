"""Batch scoring: identical items scored once, an optional disk cache, and a choice of executor.

Executors are plain functions (`EXECUTORS`): "process" (the default: `verifiers.pool.WorkerPool`
workers with a hard per-item timeout), "serial" (this process) and "ray" (a Ray cluster; Ray is
imported only then). A scorer that scores batches itself (`protocol.BatchScorer`, e.g. SVG) gets
the whole batch instead of the process or serial executor.

This module owns the worker pools (and Ray actor groups): they are kept per scorer, reused across
calls, and closed by `close_pools(scorer)` (what `Verifier.close()` calls) or when the scorer is
garbage-collected. The scorer itself holds no processes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .deadline import Deadline
from .pool import WorkerPool
from .protocol import BatchScorer, Item, Progress, Scorer, spec_json_of, time_budget_of
from .score import ITEM_TIMEOUT_SECONDS, Score

if TYPE_CHECKING:
    from .cache import ScoreCache

# ------------------------------------------------------------------ pools, owned here
_pools: dict[int, dict[Any, Any]] = {}  # id(scorer) -> {key: pool}; entries leave with their scorer
_pools_lock = threading.Lock()
_create_lock = threading.Lock()


def pools_for(scorer: Scorer) -> dict[Any, Any]:
    """The scorer's pools by key (created empty on first use, dropped and closed with the scorer)."""
    key = id(scorer)
    with _pools_lock:
        pools = _pools.get(key)
        if pools is None:
            pools = _pools[key] = {}
            weakref.finalize(scorer, _close_by_id, key)
    return pools


def close_pools(scorer: Scorer) -> None:
    """Stop every worker pool and actor group started for `scorer`."""
    _close_by_id(id(scorer))


def _close_by_id(key: int) -> None:
    with _pools_lock:
        pools = _pools.pop(key, {})
    for pool in pools.values():
        pool.close()


def _task_json(task: Mapping[str, Any]) -> str:
    return json.dumps(task, sort_keys=True, ensure_ascii=False, default=str)


def _digest(spec_digest: bytes, completion: str, task_json: str) -> str:
    h = hashlib.blake2b(spec_digest, digest_size=16)
    h.update(completion.encode("utf-8", "surrogatepass"))
    h.update(b"\x00")
    h.update(task_json.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _identities(
    spec_json: str, completions: Sequence[str], tasks: Sequence[Mapping[str, Any]], hashed: bool
) -> list[Any]:
    """One identity per item: equal identities mean the same job. A task object that repeats (the G
    samples of one prompt) is serialised once. Hashes are only made when a disk cache needs them.
    A task that cannot be serialised (nested too deeply) is its own job, `Unique`, never cached:
    one such item must not fail the batch; so is a completion that is not a string (its repr once
    stood for it, and the text `"['Answer: …']"` then shared the score of the list `['Answer: …']`)."""
    task_json: dict[int, str | None] = {}
    spec_digest = hashlib.blake2b(spec_json.encode(), digest_size=16).digest()
    out: list[Any] = []
    for index, (completion, task) in enumerate(zip(completions, tasks)):
        if id(task) not in task_json:
            try:
                task_json[id(task)] = _task_json(task)
            except (RecursionError, ValueError, TypeError):
                task_json[id(task)] = None
        tj = task_json[id(task)]
        if tj is None or not isinstance(completion, str):  # not text (INVALID at once): no text stands for it
            out.append(Unique(index))
            continue
        out.append(_digest(spec_digest, completion, tj) if hashed else (completion, tj))
    return out


def _code_version(verifier: Any) -> str:
    from .cache import code_version  # with the cache only (sqlite3 and a read of our sources)

    return code_version(verifier)


@dataclasses.dataclass(frozen=True)
class Unique:
    """The identity of an item that equals no other (see `_identities`)."""

    index: int


def score_batch(
    verifier: Scorer,
    completions: Sequence[str],
    tasks: Sequence[Mapping[str, Any]],
    *,
    workers: int | None = None,
    timeout: float | None = ITEM_TIMEOUT_SECONDS,
    executor: str = "process",
    cache: "ScoreCache | str | Path | None" = None,
    progress: Progress | None = None,
    memory_mb: int | None = None,
    deadline: "float | Deadline | None" = None,
) -> list[Score]:
    """Score `completions[i]` against `tasks[i]` for every i; results in input order.

    workers: processes to use (default: CPU count); 0 scores in this process with no timeout.
    timeout: wall-clock seconds per item; an item over it is `ERROR`. None disables it. It is never
        below the verifier's own `time_budget()`, so the verifier's limits decide TIMEOUT first.
    executor: "process" (default), "serial", or "ray" (needs the `ray` extra); a `BatchScorer`
        scores the batch itself under "process" and "serial".
    cache: a `ScoreCache` or a path to one; scores other than ERROR are reused across runs, while the
        config and the scoring code are the same (`cache.code_version`: a fixed verifier rescores).
    progress: called with the number of items just finished (duplicates and cache hits included).
    memory_mb: address-space cap per worker (default: the verifier's `worker_memory_mb`).
    deadline: seconds for the whole batch (or a `Deadline` its caller may cancel); items not scored by
        then are returned as TIMEOUT (reason: the deadline) with every score made in time, and the
        work left is cancelled. None: no deadline.
    """
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; choose from {sorted(EXECUTORS)}")
    if len(completions) != len(tasks):
        raise ValueError(f"{len(completions)} completions but {len(tasks)} tasks")
    budget = time_budget_of(verifier)
    if timeout is not None and budget is not None:
        timeout = max(timeout, budget)
    cutoff = deadline if isinstance(deadline, Deadline) or deadline is None else Deadline(deadline)
    store = _open_cache(cache)
    spec = spec_json_of(verifier) + (_code_version(verifier) if store is not None else "")
    keys = _identities(spec, completions, tasks, hashed=store is not None)
    results: list[Score | None] = [None] * len(keys)
    first_of: dict[Any, int] = {}
    for i, key in enumerate(keys):
        first_of.setdefault(key, i)

    known = store.get_many([k for k in first_of if not isinstance(k, Unique)]) if store is not None else {}
    todo: list[Item] = [(i, completions[i], tasks[i]) for key, i in first_of.items() if key not in known]

    def count_done(n: int) -> None:
        if progress is not None:
            progress(n)

    if todo:
        run = _executor(verifier, executor if workers != 0 else "serial")
        fresh = run(
            verifier,
            todo,
            workers=workers,
            timeout=timeout,
            memory_mb=memory_mb if memory_mb is not None else getattr(verifier, "worker_memory_mb", None),
            progress=count_done,
            deadline=cutoff,
        )
        known.update({keys[i]: s for i, s in fresh.items()})
        if store is not None:  # neither ERROR nor a deadline's placeholder is a score worth keeping
            store.put_many(
                {
                    keys[i]: s
                    for i, s in fresh.items()
                    if not s.is_error and s.info.get("scored") is not False and not isinstance(keys[i], Unique)
                }
            )
    count_done(len(keys) - len(todo))
    for i, key in enumerate(keys):
        results[i] = known[key]
    return results  # type: ignore[return-value]


def _open_cache(cache: Any) -> "ScoreCache | None":
    if cache is None:
        return None
    if isinstance(cache, (str, Path)):
        from .cache import ScoreCache

        return ScoreCache(cache)
    return cache


def _executor(scorer: Scorer, name: str) -> Callable[..., dict[int, Score]]:
    if name in ("process", "serial") and isinstance(scorer, BatchScorer):
        return run_batch_scorer
    return EXECUTORS[name]


def run_serially(
    verifier: Scorer, items: Sequence[Item], *, progress: Progress, deadline: Deadline | None = None, **_: Any
) -> dict[int, Score]:
    """In this process, one by one: no isolation and no per-item timeout (for debugging, tiny batches
    and items a verifier scores inline); the batch's deadline is checked between items."""
    out = {}
    if deadline is not None:
        deadline.begin()
    for i, completion, task in items:
        out[i] = (
            deadline.late_score() if deadline is not None and deadline.passed() else verifier.score(completion, task)
        )
        progress(1)
    return out


def run_in_processes(
    verifier: Scorer,
    items: Sequence[Item],
    *,
    workers: int | None,
    timeout: float | None,
    memory_mb: int | None,
    progress: Progress,
    deadline: Deadline | None = None,
) -> dict[int, Score]:
    """Score in the pool of worker processes kept for this verifier and reused across calls; callers
    on many threads at once share it (their items queue onto the same warm workers). Items the
    verifier scores inline (short enough for its `inline_max_chars`) never leave this thread."""
    limit = getattr(verifier, "inline_max_chars", 0)
    inline, pooled = [], []
    for item in items:
        (inline if limit and isinstance(item[1], str) and len(item[1]) <= limit else pooled).append(item)
    if len(inline) >= SHARE_INLINE_FROM and _workers_can_score(verifier):
        # many: this thread scores them from the back of the queue while the workers take from its front
        pool = _pool(verifier, workers, memory_mb)
        return pool.run(pooled + inline, timeout, progress, deadline, caller=verifier, callers_from=len(pooled))
    done = run_serially(verifier, inline, progress=progress, deadline=deadline) if inline else {}
    if not pooled:
        return done
    return {**done, **_pool(verifier, workers, memory_mb).run(pooled, timeout, progress, deadline)}


# Inline items in one batch from which the worker pool helps this thread. Below it (a GRPO step's
# batch) workers cost more than they save: handing an item to one costs this process about as much
# as scoring a game24 item here (both near 0.01 ms on two cores).
SHARE_INLINE_FROM = 4096


def _workers_can_score(verifier: Scorer) -> bool:
    """Can a worker process hold this verifier? Items it scores inline must never depend on that:
    a verifier that does not pickle, or whose class lives in the caller's script (a worker would
    re-run the script), keeps its inline items in this thread."""
    try:
        return b"__main__" not in pickle.dumps(verifier)
    except Exception:
        return False


def worker_count(workers: int | None) -> int:
    """How many worker processes a batch asking for `workers` gets (None: one per CPU)."""
    return max(1, workers or os.cpu_count() or 1)


def _pool(verifier: Scorer, workers: int | None, memory_mb: int | None) -> WorkerPool:
    """The verifier's warm pool for this many workers and this memory cap, made on first use."""
    n_workers = worker_count(workers)
    key = (n_workers, memory_mb)
    pools = pools_for(verifier)
    with _create_lock:  # two threads that find no pool make one, not two
        pool = pools.get(key)
        if pool is None or pool.closed:
            pool = pools[key] = WorkerPool(verifier, n_workers, memory_mb)
    return pool


def run_on_ray(verifier: Scorer, items: Sequence[Item], **options: Any) -> dict[int, Score]:
    """Score on a Ray cluster with warm actors kept for this verifier (needs the `ray` extra); the
    options are every executor's (`EXECUTORS`)."""
    from .ray_executor import run_on_actors  # Ray is optional: imported only when asked for

    return run_on_actors(pools_for(verifier), verifier, items, **options)


def run_batch_scorer(
    verifier: BatchScorer,
    items: Sequence[Item],
    *,
    workers: int | None,
    timeout: float | None,
    progress: Progress,
    **_: Any,
) -> dict[int, Score]:
    """Hand the whole batch to a scorer that scores batches itself (e.g. SVG batches CLIP). Such a
    scorer bounds each item itself; a batch deadline is not passed on."""
    return verifier.score_items(items, workers=workers, timeout=timeout, progress=progress)


# executor name -> function(verifier, items, *, workers, timeout, memory_mb, progress, deadline) -> {index: Score}
EXECUTORS: dict[str, Callable[..., dict[int, Score]]] = {
    "process": run_in_processes,
    "serial": run_serially,
    "ray": run_on_ray,
}
