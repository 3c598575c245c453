"""Worker processes that score items with a hard per-item wall-clock timeout.

Why processes and not SIGALRM: an alarm only works in the main thread of the caller's process
and cannot interrupt C code; a worker process can always be killed. Each worker writes to shared
memory which chunk and item it is on and when that item started, so the parent can kill exactly
the worker whose item overran, score that item `ERROR`, and hand the rest of the work to a fresh
worker. Items travel in chunks (a few hundred messages for 100,000 items), and each worker holds
two chunks so it never waits for the parent between them. Inboxes are queues with a feeder
thread, so the parent never blocks on a busy worker and always keeps watching the clock.
"""

from __future__ import annotations

import atexit
import contextlib
import inspect
import math
import multiprocessing as mp
import os
import pickle
import sys
import threading
import time
import weakref
from collections import deque
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator, Sequence

from .protocol import Item, Scorer
from .score import Score

Chunk = tuple[int, list[Item]]  # (sequence number, items)
IN_FLIGHT = 2  # chunks queued per worker
_IDLE = -1.0
_SEQ, _POS, _START = 0, 1, 2  # fields of a worker's shared state


def _worker_main(blob: bytes, inbox: Any, conn: Any, state: Any, memory_mb: int | None) -> None:
    """Loop: take a chunk, score it item by item (recording chunk, position and start time), send results."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: no traceback per worker
    _die_with_parent()
    if memory_mb:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    verifier = pickle.loads(blob)
    score, now = verifier.score, time.monotonic
    while True:
        message = inbox.get()
        if message is None:
            close = getattr(verifier, "close", None)  # a plain Scorer (the SVG render job) has nothing to close
            if callable(close):
                close()  # release what this worker opened (sandbox containers, engines)
            return
        seq, items = message
        out = []
        for pos, (_i, completion, task) in enumerate(items):
            state[_START] = now()
            state[_SEQ] = seq
            state[_POS] = pos
            out.append(score(completion, task).to_row())
        state[_POS] = _IDLE
        conn.send((seq, out))


def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies (e.g. a Ray actor that was killed), so no worker
    lives on holding sandbox containers; what it held is then an orphan its successor releases."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


class _Worker:
    def __init__(self, ctx: Any, blob: bytes, memory_mb: int | None) -> None:
        self.inbox = ctx.Queue()
        self.conn, child = ctx.Pipe(duplex=False)
        self.state = ctx.Array("d", [_IDLE, _IDLE, 0.0], lock=False)
        self.process = ctx.Process(
            target=_worker_main, args=(blob, self.inbox, child, self.state, memory_mb), daemon=True
        )
        self.process.start()
        child.close()
        self.in_flight: deque[Chunk] = deque()
        self.started_any = False  # has it ever begun an item? (to tell a broken start from a crash)

    def give(self, chunk: Chunk) -> None:
        self.in_flight.append(chunk)
        self.inbox.put(chunk)

    def current(self) -> tuple[Chunk | None, int]:
        """The chunk being scored and the position in it, if the worker is inside an item."""
        if self.in_flight and self.state[_POS] >= 0 and int(self.state[_SEQ]) == self.in_flight[0][0]:
            self.started_any = True
            return self.in_flight[0], int(self.state[_POS])
        return None, -1

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.inbox.cancel_join_thread()  # never wait on a feeder thread nobody reads from
        self.inbox.close()
        self.conn.close()


_live_pools: "weakref.WeakSet[WorkerPool]" = weakref.WeakSet()
_main_lock = threading.Lock()


@contextlib.contextmanager
def _main_not_reimported(needs_main: bool) -> Iterator[None]:
    """multiprocessing re-imports the caller's `__main__` in each worker (from its `__file__`, or
    its module name under `python -m`). A script without an `if __name__ == "__main__":` guard then
    runs again in every worker, and its `score_batch` call kills the worker at start. Workers need
    nothing from `__main__` unless the verifier itself is defined there (its pickle names
    `__main__`), so hide the script while a worker starts, as joblib's loky does. From `python -`
    or an embedding host `__file__` is "<stdin>" or missing: hidden too."""
    with _main_lock:  # read and hide under one lock: a thread that read while another hid would see no
        # script, start its worker unhidden, and race the restore (the worker then re-runs the script)
        main = sys.modules.get("__main__")
        path = getattr(main, "__file__", None)
        spec = getattr(main, "__spec__", None)
        if (
            main is None
            or (path is None and spec is None)
            or (needs_main and path is not None and os.path.isfile(path))
        ):
            yield
            return
        if path is not None:
            del main.__file__  # type: ignore[union-attr]
        main.__spec__ = None  # type: ignore[union-attr]
        try:
            yield
        finally:
            if path is not None:
                main.__file__ = path  # type: ignore[union-attr]
            main.__spec__ = spec  # type: ignore[union-attr]


class WorkerPool:
    """A fixed number of worker processes that each hold one unpickled copy of the verifier."""

    def __init__(self, scorer: Scorer, size: int, memory_mb: int | None) -> None:
        # forkserver: safe when the caller has threads (fork is not), far cheaper than spawn.
        self.ctx = mp.get_context("forkserver")
        self.blob = pickle.dumps(scorer)
        # releases what a killed worker held (containers, dirs); held weakly, so the pool never
        # keeps its scorer alive (pools are closed when their scorer is collected)
        killed = getattr(scorer, "worker_killed", None)
        self._worker_killed = weakref.WeakMethod(killed) if inspect.ismethod(killed) else (lambda: killed)
        self.size = size
        self.memory_mb = memory_mb
        self.workers: list[_Worker] = []
        self.lock = threading.Lock()
        self.closed = False
        self._seq = 0
        _live_pools.add(self)

    def run(self, items: Sequence[Item], timeout: float | None, progress: Callable[[int], None]) -> dict[int, Score]:
        chunk_size = max(1, min(1024, math.ceil(len(items) / (self.size * 8))))
        pending: deque[list[Item]] = deque(list(items[k : k + chunk_size]) for k in range(0, len(items), chunk_size))
        out: dict[int, Score] = {}
        broken_starts = 0
        while pending or any(w.in_flight for w in self.workers):
            self._assign(pending)
            busy = [w for w in self.workers if w.in_flight]
            wait([x for w in busy for x in (w.conn, w.process.sentinel)], timeout=self._wait_time(busy, timeout))
            for w in busy:
                if self._collect(w, out, progress, timeout, pending) == "dead":
                    self.workers.remove(w)
                    broken_starts = 0 if w.started_any else broken_starts + 1
                    if broken_starts >= 3:  # the verifier cannot even start in a worker: stop trying
                        self._fail_all(pending, out, progress)
        return out

    def _assign(self, pending: deque[list[Item]]) -> None:
        while pending and len(self.workers) < self.size:
            with _main_not_reimported(b"__main__" in self.blob):
                self.workers.append(_Worker(self.ctx, self.blob, self.memory_mb))
        for w in self.workers:
            while pending and len(w.in_flight) < IN_FLIGHT:
                self._seq += 1
                w.give((self._seq, pending.popleft()))

    @staticmethod
    def _wait_time(busy: list[_Worker], timeout: float | None) -> float:
        if timeout is None:
            return 1.0
        now = time.monotonic()
        left = [w.state[_START] + timeout - now for w in busy if w.state[_POS] >= 0]
        return max(0.005, min(left, default=timeout))

    def _collect(
        self,
        w: _Worker,
        out: dict[int, Score],
        progress: Callable[[int], None],
        timeout: float | None,
        pending: deque[list[Item]],
    ) -> str:
        """Take finished chunks, or handle a crash or an overrun. Returns 'ok' or 'dead'."""
        try:
            while w.in_flight and w.conn.poll():
                seq, scores = w.conn.recv()
                _seq, items = w.in_flight.popleft()
                w.started_any = True
                for (i, _c, _t), row in zip(items, scores):
                    out[i] = Score.from_row(row)
                progress(len(items))
        except (EOFError, OSError):  # the worker died mid-send: the liveness check below handles it
            pass
        chunk, pos = w.current()
        if not w.process.is_alive():
            code = w.process.exitcode
            why = "was killed (SIGKILL; out of memory?)" if code == -9 else f"exited with code {code}"
            self._abandon(w, chunk, pos, pending, out, progress, f"worker process {why} while scoring this item")
            return "dead"
        if timeout is not None and chunk is not None and time.monotonic() - w.state[_START] > timeout:
            self._abandon(
                w,
                chunk,
                pos,
                pending,
                out,
                progress,
                f"scoring took longer than {timeout:g} s (wall clock); worker killed",
            )
            return "dead"
        return "ok"

    def _abandon(
        self,
        w: _Worker,
        chunk: Chunk | None,
        pos: int,
        pending: deque[list[Item]],
        out: dict[int, Score],
        progress: Callable[[int], None],
        reason: str,
    ) -> None:
        """Kill `w`; its current item becomes ERROR, everything else it held goes back in the queue."""
        w.kill()
        self._release(w)
        requeue = []
        for seq_items in w.in_flight:
            items = seq_items[1]
            if chunk is not None and seq_items[0] == chunk[0] and 0 <= pos < len(items):
                out[items[pos][0]] = Score.error(reason)
                progress(1)
                items = items[:pos] + items[pos + 1 :]
            if items:
                requeue.append(items)
        w.in_flight.clear()
        pending.extendleft(reversed(requeue))

    def _release(self, w: _Worker) -> None:
        try:
            release = self._worker_killed()
            if w.process.pid is not None and release is not None:
                release(w.process.pid)
        except Exception:  # cleanup is best effort; the item's score is already decided
            pass

    @staticmethod
    def _fail_all(pending: deque[list[Item]], out: dict[int, Score], progress: Callable[[int], None]) -> None:
        for items in pending:
            for i, _c, _t in items:
                out[i] = Score.error("batch worker failed to start three times in a row")
            progress(len(items))
        pending.clear()

    def close(self) -> None:
        for w in self.workers:
            with contextlib.suppress(OSError, ValueError):
                w.inbox.put(None)
        for w in self.workers:
            w.process.join(10)
            killed = w.process.is_alive()
            w.kill()
            if killed:
                self._release(w)
        self.workers.clear()
        self.closed = True


@atexit.register
def _close_all_pools() -> None:
    for pool in list(_live_pools):
        pool.close()
