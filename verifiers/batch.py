"""Parallel batch scoring with a hard per-item wall-clock timeout.

Why processes and not SIGALRM: an alarm only works in the main thread of the
caller's process and cannot stop C code; a worker process can always be killed.
Each worker records which item it is on and when it started (shared memory), so
the parent can kill exactly the worker whose item overran and score that item
`ERROR`, then hand the rest of its chunk to a fresh worker. Items travel in
chunks so that 100,000 cheap items cost a few hundred messages, not 100,000.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import math
import multiprocessing as mp
import os
import pickle
import threading
import time
import weakref
from collections import deque
from multiprocessing.connection import wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .score import Score

if TYPE_CHECKING:
    from .base import Verifier
    from .cache import ScoreCache

Item = tuple[int, str, Mapping[str, Any]]
Progress = Callable[[int], None]

# executor name -> "module:function" taking (verifier, items, workers, timeout, memory_mb, progress) -> {index: Score}
EXECUTORS: dict[str, str] = {
    "process": "verifiers.batch:run_in_processes",
    "serial": "verifiers.batch:run_serially",
    "ray": "verifiers.ray_executor:run_on_ray",
}


def item_key(spec_json: str, completion: str, task: Mapping[str, Any]) -> str:
    """Content hash of one scoring job: same verifier config, completion and task -> same key."""
    blob = json.dumps([spec_json, completion, task], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(blob.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def score_batch(
    verifier: "Verifier",
    completions: Sequence[str],
    tasks: Sequence[Mapping[str, Any]],
    *,
    workers: int | None = None,
    timeout: float | None = 10.0,
    executor: str = "process",
    cache: "ScoreCache | str | Path | None" = None,
    progress: Progress | None = None,
    memory_mb: int | None = None,
) -> list[Score]:
    """Score `completions[i]` against `tasks[i]` for every i; results in input order.

    workers: processes to use (default: CPU count); 0 scores in this process with no timeout.
    timeout: wall-clock seconds per item; an item over it is `ERROR`. None disables it.
    executor: "process" (default), "serial", or "ray" (needs the `ray` extra).
    cache: a `ScoreCache` or a path to one; scores other than ERROR are reused across runs.
    progress: called with the number of items just finished (duplicates and cache hits included).
    memory_mb: address-space cap per worker (default: the verifier's `worker_memory_mb`).
    """
    if len(completions) != len(tasks):
        raise ValueError(f"{len(completions)} completions but {len(tasks)} tasks")
    spec = verifier.spec_json()
    keys = [item_key(spec, c if isinstance(c, str) else repr(c), t) for c, t in zip(completions, tasks)]
    results: list[Score | None] = [None] * len(keys)
    first_of: dict[str, int] = {}
    for i, key in enumerate(keys):
        first_of.setdefault(key, i)

    store = _open_cache(cache)
    known = store.get_many(list(first_of)) if store is not None else {}
    todo: list[Item] = [(i, completions[i], tasks[i]) for key, i in first_of.items() if key not in known]

    def count_done(n: int) -> None:
        if progress is not None:
            progress(n)

    if todo:
        run = _executor(executor if workers != 0 else "serial")
        fresh = run(verifier, todo, workers=workers, timeout=timeout,
                    memory_mb=memory_mb if memory_mb is not None else verifier.worker_memory_mb,
                    progress=count_done)
        known.update({keys[i]: s for i, s in fresh.items()})
        if store is not None:
            store.put_many({keys[i]: s for i, s in fresh.items() if not s.is_error})
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


def _executor(name: str) -> Callable[..., dict[int, Score]]:
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; choose from {sorted(EXECUTORS)}")
    module, _, attr = EXECUTORS[name].partition(":")
    import importlib

    return getattr(importlib.import_module(module), attr)


def run_serially(verifier: "Verifier", items: Sequence[Item], *, progress: Progress, **_: Any) -> dict[int, Score]:
    """In this process, one by one: no isolation and no timeout (for debugging and tiny batches)."""
    out = {}
    for i, completion, task in items:
        out[i] = verifier.score(completion, task)
        progress(1)
    return out


def run_in_processes(
    verifier: "Verifier",
    items: Sequence[Item],
    *,
    workers: int | None,
    timeout: float | None,
    memory_mb: int | None,
    progress: Progress,
) -> dict[int, Score]:
    """Score in a pool of worker processes owned by the verifier and reused across calls."""
    n_workers = max(1, workers or os.cpu_count() or 1)
    key = (n_workers, memory_mb)
    pool = verifier._pools.get(key)
    if pool is None or pool.closed:
        pool = verifier._pools[key] = WorkerPool(verifier, n_workers, memory_mb)
    if not pool.lock.acquire(blocking=False):  # another thread is using it: use a private pool
        private = WorkerPool(verifier, n_workers, memory_mb)
        try:
            return private.run(items, timeout, progress)
        finally:
            private.close()
    try:
        return pool.run(items, timeout, progress)
    finally:
        pool.lock.release()


# ---------------------------------------------------------------------- worker side
_IDLE = -1.0


def _worker_main(blob: bytes, conn: Any, state: Any, memory_mb: int | None) -> None:
    """Loop: receive a chunk, score it item by item (recording position and start time), send results."""
    if memory_mb:
        import resource

        limit = memory_mb * 1024 * 1024
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard if hard != resource.RLIM_INFINITY and hard < limit else resource.RLIM_INFINITY))
    verifier = pickle.loads(blob)
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        out = []
        for pos, (_i, completion, task) in enumerate(chunk):
            state[1] = time.monotonic()
            state[0] = float(pos)
            out.append(verifier.score(completion, task))
        state[0] = _IDLE
        conn.send(out)


# ---------------------------------------------------------------------- parent side
class _Worker:
    def __init__(self, ctx: Any, blob: bytes, memory_mb: int | None) -> None:
        self.conn, child = ctx.Pipe()
        self.state = ctx.Array("d", [_IDLE, 0.0], lock=False)
        self.process = ctx.Process(target=_worker_main, args=(blob, child, self.state, memory_mb), daemon=True)
        self.process.start()
        child.close()
        self.chunk: list[Item] | None = None

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


_live_pools: "weakref.WeakSet[WorkerPool]" = weakref.WeakSet()


class WorkerPool:
    """A fixed number of worker processes that each hold one unpickled copy of the verifier."""

    def __init__(self, verifier: "Verifier", size: int, memory_mb: int | None) -> None:
        # forkserver: safe when the caller has threads (fork is not), cheaper than spawn per worker.
        self.ctx = mp.get_context("forkserver")
        self.blob = pickle.dumps(verifier)
        self.size = size
        self.memory_mb = memory_mb
        self.workers: list[_Worker] = []
        self.lock = threading.Lock()
        self.closed = False
        _live_pools.add(self)

    def _spawn(self) -> _Worker:
        return _Worker(self.ctx, self.blob, self.memory_mb)

    def run(self, items: Sequence[Item], timeout: float | None, progress: Progress) -> dict[int, Score]:
        chunk_size = max(1, min(256, math.ceil(len(items) / (self.size * 8))))
        pending: deque[list[Item]] = deque(list(items[k:k + chunk_size]) for k in range(0, len(items), chunk_size))
        out: dict[int, Score] = {}
        failed_starts = 0
        while pending or any(w.chunk is not None for w in self.workers):
            while len(self.workers) < min(self.size, len(pending) + self._busy()):
                self.workers.append(self._spawn())
            for w in self.workers:
                if w.chunk is None and pending:
                    w.chunk = pending.popleft()
                    w.state[0] = _IDLE
                    w.conn.send(w.chunk)
            busy = [w for w in self.workers if w.chunk is not None]
            wait([x for w in busy for x in (w.conn, w.process.sentinel)], timeout=self._wait_time(busy, timeout))
            for w in busy:
                finished = self._collect(w, out, progress, timeout, pending)
                if finished == "dead":
                    failed_starts = failed_starts + 1 if w.state[0] == _IDLE else 0
                    self.workers.remove(w)
                    if failed_starts >= 3:  # the verifier cannot even start in a worker: stop trying
                        for chunk in pending:
                            for i, _c, _t in chunk:
                                out[i] = Score.error("batch worker failed to start three times in a row")
                        pending.clear()
        return out

    def _busy(self) -> int:
        return sum(w.chunk is not None for w in self.workers)

    @staticmethod
    def _wait_time(busy: list[_Worker], timeout: float | None) -> float:
        if timeout is None:
            return 1.0
        now = time.monotonic()
        left = [w.state[1] + timeout - now for w in busy if w.state[0] != _IDLE]
        return max(0.005, min(left, default=timeout))

    def _collect(self, w: _Worker, out: dict[int, Score], progress: Progress, timeout: float | None,
                 pending: deque[list[Item]]) -> str:
        """Take a finished chunk, or handle a crash or an overrun. Returns 'ok', 'busy' or 'dead'."""
        chunk = w.chunk
        assert chunk is not None
        if w.conn.poll():
            try:
                scores = w.conn.recv()
            except (EOFError, OSError):
                scores = None
            if scores is not None:
                for (i, _c, _t), s in zip(chunk, scores):
                    out[i] = s
                w.chunk = None
                progress(len(chunk))
                return "ok"
        pos = int(w.state[0])
        if not w.process.is_alive() or w.conn.closed:
            code = w.process.exitcode
            why = "killed (SIGKILL; out of memory?)" if code == -9 else f"exited with code {code}"
            self._abandon(w, pos, pending, out, progress, f"worker process {why} while scoring this item")
            return "dead"
        if timeout is not None and pos >= 0 and time.monotonic() - w.state[1] > timeout:
            self._abandon(w, pos, pending, out, progress, f"scoring took longer than {timeout:g} s (wall clock); worker killed")
            return "dead"
        return "busy"

    def _abandon(self, w: _Worker, pos: int, pending: deque[list[Item]], out: dict[int, Score],
                 progress: Progress, reason: str) -> None:
        """Kill `w`; its current item becomes ERROR, the rest of its chunk goes back in the queue."""
        chunk = w.chunk or []
        w.kill()
        w.chunk = None
        if 0 <= pos < len(chunk):
            out[chunk[pos][0]] = Score.error(reason)
            progress(1)
            rest = chunk[:pos] + chunk[pos + 1:]
        else:
            rest = chunk
        if rest:
            pending.appendleft(rest)

    def close(self) -> None:
        for w in self.workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        for w in self.workers:
            w.process.join(1)
            w.kill()
        self.workers.clear()
        self.closed = True


@atexit.register
def _close_all_pools() -> None:
    for pool in list(_live_pools):
        pool.close()
