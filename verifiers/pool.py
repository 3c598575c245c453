"""Worker processes that score items with a hard per-item wall-clock timeout.

Why processes and not SIGALRM: an alarm only works in the main thread of the caller's process
and cannot interrupt C code; a worker process can always be killed. Each worker writes to shared
memory which chunk and item it is on and when that item started, so the parent can kill exactly
the worker whose item overran, score that item `ERROR`, and hand the rest of the work to a fresh
worker. Items travel in chunks (a few hundred messages for 100,000 items), and each worker holds
two chunks so it never waits for the parent between them. Each inbox is a pipe with a feeder
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
import signal
import sys
import threading
import time
import weakref
from collections import deque
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator, Sequence

from .deadline import Deadline
from .protocol import Item, Progress, Scorer
from .score import Score

Chunk = tuple[int, list[Item]]  # (sequence number, items)
IN_FLIGHT = 2  # chunks queued per worker
_IDLE = -1.0
_SEQ, _POS, _START = 0, 1, 2  # fields of a worker's shared state
_UNREADABLE = "unreadable"  # a worker's answer to a chunk it could not unpickle


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
        try:
            message = inbox.recv()
        except EOFError:  # the parent closed the inbox without a word: stop as if told to
            message = None
        if message is None:
            close = getattr(verifier, "close", None)  # a plain Scorer (the SVG render job) has nothing to close
            if callable(close):
                close()  # release what this worker opened (sandbox containers, engines)
            return
        seq, packed = message
        try:
            items = _unpack(packed)
        except Exception as exc:  # the parent packed it, so this is ours: every item of it is ERROR
            conn.send((seq, _UNREADABLE, f"{type(exc).__name__}: {exc}"[:300]))
            continue
        out = []
        for pos, (_i, completion, task) in enumerate(items):
            state[_START] = now()
            state[_SEQ] = seq
            state[_POS] = pos
            out.append(score(completion, task).to_row())
        state[_POS] = _IDLE
        conn.send_bytes(_results_message(seq, out))


def _results_message(seq: int, rows: list[tuple[Any, ...]]) -> bytes:
    """The pickled (seq, rows) a worker sends back. A row that cannot be pickled (a verifier put an
    odd object into `info`) becomes that item's ERROR instead of killing the worker mid-chunk."""
    try:
        return pickle.dumps((seq, rows), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        pass
    safe = []
    for row in rows:
        try:
            pickle.dumps(row)
        except Exception as exc:
            row = Score.error(f"the verifier's score cannot leave its worker ({type(exc).__name__})").to_row()
        safe.append(row)
    return pickle.dumps((seq, safe), protocol=pickle.HIGHEST_PROTOCOL)


def _pack(items: list[Item]) -> tuple[bytes | None, list[Item], list[tuple[int, str]]]:
    """Pickle a chunk here, in the dispatcher, where a failure is seen: (the pickled items that can
    travel, those items, [(index, why)] for those that cannot). The chunk is pickled whole (a task
    shared by a group's items travels once); if that fails, each item is pickled on its own, so one
    that is nested too deeply is the only one that fails (a queue's feeder thread would print such a
    failure and drop the whole chunk, leaving the worker's results paired with other items)."""
    try:
        return pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL), items, []
    except Exception:
        pass
    good: list[Item] = []
    blobs: list[bytes] = []
    bad: list[tuple[int, str]] = []
    for item in items:
        try:
            blobs.append(pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}"[:200]
            bad.append((item[0], why))
        else:
            good.append(item)
    return (pickle.dumps(blobs, protocol=pickle.HIGHEST_PROTOCOL) if good else None), good, bad


def _unpack(packed: bytes) -> list[Item]:
    """A worker's side of `_pack`: the items of a chunk pickled whole, or item by item."""
    loaded = pickle.loads(packed)
    return [pickle.loads(blob) for blob in loaded] if loaded and isinstance(loaded[0], bytes) else loaded


def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies (e.g. a Ray actor that was killed), so no worker
    lives on holding sandbox containers; what it held is then an orphan its successor releases."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


class _Inbox:
    """A worker's inbox: a one-way pipe fed by a thread of its own, so `put` never blocks on a busy
    worker. Not a `multiprocessing.Queue`: a queue's named semaphores are unlinked by whichever
    thread drops them last, often its daemon feeder, and a daemon thread frozen at interpreter exit
    between the unlink and its note to the resource tracker leaves a "leaked semaphore" warning on
    the user's terminal. One writer and one reader need no locks shared across processes."""

    def __init__(self, ctx: Any) -> None:
        self.reader, self._writer = ctx.Pipe(duplex=False)
        self._pending: deque[bytes] = deque()
        self._changed = threading.Condition()
        self._closed = False
        self._feeder: threading.Thread | None = None

    def put(self, message: Any) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with self._changed:
            if self._closed:
                raise ValueError("the inbox is closed")
            self._pending.append(data)
            if self._feeder is None:
                self._feeder = threading.Thread(target=self._feed, name="evalkit-inbox", daemon=True)
                self._feeder.start()
            self._changed.notify()

    def _feed(self) -> None:
        while True:
            with self._changed:
                while not self._pending and not self._closed:
                    self._changed.wait()
                if not self._pending:
                    break
                data = self._pending.popleft()
            try:
                self._writer.send_bytes(data)
            except OSError:  # the worker is gone: nothing more can reach it
                break
        self._writer.close()

    def close(self, drop_pending: bool = False) -> None:
        """No more messages; those queued are still sent unless `drop_pending` (the worker is dead)."""
        with self._changed:
            self._closed = True
            if drop_pending:
                self._pending.clear()
            self._changed.notify()
            feeding = self._feeder is not None
        if not feeding:
            self._writer.close()


class _Worker:
    def __init__(self, ctx: Any, blob: bytes, memory_mb: int | None) -> None:
        self.inbox = _Inbox(ctx)
        self.conn, child = ctx.Pipe(duplex=False)
        self.state = ctx.Array("d", [_IDLE, _IDLE, 0.0], lock=False)
        self.process = ctx.Process(
            target=_worker_main, args=(blob, self.inbox.reader, child, self.state, memory_mb), daemon=True
        )
        self.process.start()
        child.close()  # the worker holds its own copies now: a dead worker's pipes then report it
        self.inbox.reader.close()
        self.in_flight: deque[Chunk] = deque()
        self.started_any = False  # has it ever begun an item? (to tell a broken start from a crash)

    def give(self, chunk: Chunk, packed: bytes) -> None:
        """Queue `chunk` (already pickled as `packed`: the queue's feeder then only copies bytes)."""
        self.in_flight.append(chunk)
        self.inbox.put((chunk[0], packed))

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
        self.inbox.close(drop_pending=True)
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


class _Job:
    """One caller's batch: its chunks not yet handed out, its results, its per-item timeout.

    The last `callers_chunks` chunks of `pending` hold items its caller may score in its own
    thread (`WorkerPool.run`'s `caller`): workers take chunks from the front, the caller from the
    back, so both finish together. A chunk given back after a crash goes to the front, the workers'."""

    def __init__(self, items: Sequence[Item], timeout: float | None, chunk_size: int, callers_from: int = -1) -> None:
        split = len(items) if callers_from < 0 else callers_from
        workers_only, callers = _chunks(items[:split], chunk_size), _chunks(items[split:], chunk_size)
        self.pending: deque[list[Item]] = deque(workers_only + callers)
        self.callers_chunks = len(callers)
        self.timeout = timeout
        self.out: dict[int, Score] = {}
        self.indices = [i for i, _c, _t in items]
        self.total = len(items)
        self.changed = threading.Condition()
        self.cancelled = False  # its caller's deadline passed: nothing of it is worth scoring any more
        self.deadline: Deadline | None = None  # its clock starts when its first chunk reaches a worker

    def decide(self, index: int, score: Score) -> None:
        """The item's score; the first decision stands (a late result never replaces a deadline's)."""
        self.decide_all([(index, score)])

    def decide_all(self, scores: list[tuple[int, Score]]) -> None:
        """`decide` for many items at once: one wake-up of the caller."""
        with self.changed:
            for index, score in scores:
                self.out.setdefault(index, score)
            self.changed.notify_all()

    @property
    def finished(self) -> bool:
        return len(self.out) >= self.total

    def take_front(self) -> list[Item]:
        """The next chunk for a worker (under the pool's lock)."""
        if len(self.pending) == self.callers_chunks:
            self.callers_chunks -= 1
        return self.pending.popleft()

    def take_back(self) -> list[Item] | None:
        """The last chunk its caller may score itself, if any is left (under the pool's lock)."""
        if self.callers_chunks <= 0 or self.cancelled:
            return None
        self.callers_chunks -= 1
        return self.pending.pop()

    def drop_pending(self) -> list[list[Item]]:
        """Every chunk not handed out, taken away (under the pool's lock)."""
        chunks, self.pending, self.callers_chunks = list(self.pending), deque(), 0
        return chunks


def _chunks(items: Sequence[Item], size: int) -> list[list[Item]]:
    return [list(items[k : k + size]) for k in range(0, len(items), size)]


class WorkerPool:
    """A fixed number of worker processes that each hold one unpickled copy of the verifier.

    Callers on many threads at once (verl's reward workers, OpenRLHF's `asyncio.to_thread`, a
    server) share the same workers: each `run` is a job whose chunks a dispatcher thread hands out
    in turn, so N callers of one item each keep the warm workers busy instead of starting pools."""

    created = 0  # pools made in this process, and worker processes started by each (tests and benches count them)

    def __init__(self, scorer: Scorer, size: int, memory_mb: int | None) -> None:
        WorkerPool.created += 1
        self.workers_started = 0
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
        self.closed = False
        self._seq = 0
        self._jobs: list[_Job] = []  # in arrival order; chunks are taken from them in turn
        self._job_of: dict[int, _Job] = {}  # chunk sequence number -> its job
        self._lock = threading.Lock()
        self._wake_read, self._wake_write = os.pipe()
        self._dispatcher: threading.Thread | None = None
        self._broken_starts = 0
        _live_pools.add(self)

    # ------------------------------------------------------------------ callers
    def run(
        self,
        items: Sequence[Item],
        timeout: float | None,
        progress: Progress,
        deadline: Deadline | None = None,
        caller: Scorer | None = None,
        callers_from: int = -1,
    ) -> dict[int, Score]:
        """Score `items` (any thread); returns {index: Score}. Progress is reported in this thread.
        At `deadline` the job is cancelled: items not scored by then get the deadline's score, its
        chunks are dropped and workers still on its items are killed, so the pool is free again.

        With `caller`, this thread scores `items[callers_from:]` beside the workers, with
        `caller.score` (items safe to score without a worker: short, for a pure verifier), taking
        their chunks from the back of the queue while workers take from the front."""
        if not items:
            return {}
        shared = caller is not None and 0 <= callers_from < len(items)
        per_chunk = math.ceil(len(items) / (self.size * (32 if shared else 8)))  # smaller when shared: even ends
        job = _Job(items, timeout, max(1, min(1024, per_chunk)), callers_from if shared else -1)
        job.deadline = deadline
        with self._lock:
            if self.closed:
                raise RuntimeError("the worker pool is closed")
            self._jobs.append(job)
            if self._dispatcher is None or not self._dispatcher.is_alive():
                self._dispatcher = threading.Thread(target=self._dispatch, name="evalkit-pool", daemon=True)
                self._dispatcher.start()
        self._wake()
        reported = 0

        def report() -> None:
            nonlocal reported
            if len(job.out) > reported:
                progress(len(job.out) - reported)
                reported = len(job.out)

        if shared:
            self._score_here(job, caller, deadline, report)  # type: ignore[arg-type]
        with job.changed:
            while not job.finished:
                job.changed.wait(0.5 if deadline is None else max(0.001, min(0.5, deadline.left())))
                if deadline is not None and not job.finished and deadline.left() <= 0:
                    self._cancel(job, deadline.late_score())
                report()
                if not job.finished and (self._dispatcher is None or not self._dispatcher.is_alive()):
                    raise RuntimeError("the worker pool's dispatcher stopped")
        report()
        return job.out

    def _score_here(self, job: _Job, caller: Scorer, deadline: Deadline | None, report: Callable[[], None]) -> None:
        """Score the caller's chunks in this thread until none is left (or the deadline passes)."""
        if deadline is not None:
            deadline.begin()
        while True:
            with self._lock:
                chunk = job.take_back()
            if chunk is None:
                return
            scores = []
            for index, completion, task in chunk:
                if deadline is not None and deadline.passed():
                    job.decide_all(scores)
                    self._cancel(job, deadline.late_score())
                    return
                scores.append((index, caller.score(completion, task)))
            job.decide_all(scores)
            report()

    def _cancel(self, job: _Job, late: Score) -> None:
        """The job's deadline passed: every item not yet decided gets `late`, and the dispatcher
        stops whatever of it is still queued or running."""
        with self._lock:
            job.cancelled = True
            job.drop_pending()
        for i in job.indices:
            job.decide(i, late)
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")

    # ------------------------------------------------------------------ the dispatcher thread
    def _dispatch(self) -> None:
        try:
            while True:
                with self._lock:
                    if self.closed:
                        return
                    self._jobs = [j for j in self._jobs if not j.finished]
                    idle = not self._jobs and not any(w.in_flight for w in self.workers)
                self._assign()
                busy = [w for w in self.workers if w.in_flight]
                ready = wait(
                    [self._wake_read, *(x for w in busy for x in (w.conn, w.process.sentinel))],
                    timeout=None if idle else self._wait_time(busy),
                )
                if self._wake_read in ready:
                    os.read(self._wake_read, 4096)
                for w in busy:
                    if self._collect(w) == "dead":
                        self.workers.remove(w)
                        self._broken_starts = 0 if w.started_any else self._broken_starts + 1
                        if self._broken_starts >= 3:  # the verifier cannot even start in a worker: stop trying
                            self._fail_pending("batch worker failed to start three times in a row")
        except BaseException as exc:  # never leave a caller waiting on a dispatcher that died
            self._fail_pending(f"the worker pool failed: {type(exc).__name__}: {exc}", in_flight=True)
            raise

    def _next_chunk(self) -> tuple[int, list[Item], _Job] | None:
        """The next chunk and its new sequence number, taken from the jobs in turn so that no caller
        waits behind a big batch."""
        with self._lock:
            for _ in range(len(self._jobs)):
                job = self._jobs.pop(0)
                self._jobs.append(job)
                if job.pending:
                    self._seq += 1
                    self._job_of[self._seq] = job
                    return self._seq, job.take_front(), job
        return None

    def _assign(self) -> None:
        while len(self.workers) < self.size and any(j.pending for j in list(self._jobs)):
            with _main_not_reimported(b"__main__" in self.blob):
                self.workers.append(_Worker(self.ctx, self.blob, self.memory_mb))
            self.workers_started += 1
        for w in self.workers:
            while len(w.in_flight) < IN_FLIGHT:
                taken = self._next_chunk()
                if taken is None:
                    return
                seq, items, job = taken
                packed, items, unsendable = _pack(items)
                for index, why in unsendable:
                    job.decide(
                        index, Score.error(f"the task cannot be sent to a scoring worker ({why})", task_error=True)
                    )
                if packed is None:
                    self._job_of.pop(seq, None)
                    continue
                w.give((seq, items), packed)
                if job.deadline is not None:
                    job.deadline.begin()

    def _wait_time(self, busy: list[_Worker]) -> float:
        now, left = time.monotonic(), []
        for w in busy:
            if any(self._job_of.get(seq) is not None and self._job_of[seq].cancelled for seq, _ in w.in_flight):
                left.append(0.05)  # it holds a cancelled job's chunk: look again soon, to stop it once started
            chunk, _pos = w.current()
            job = self._job_of.get(chunk[0]) if chunk is not None else None
            if job is not None and job.timeout is not None:
                left.append(w.state[_START] + job.timeout - now)
        return max(0.005, min(left, default=1.0))

    def _collect(self, w: _Worker) -> str:
        """Take finished chunks, or handle a crash, an overrun, a cancelled job or a reply that does
        not answer the chunk the worker holds first. Returns 'ok' or 'dead'."""
        try:
            while w.in_flight and w.conn.poll():
                reply = w.conn.recv()
                if not self._accept(w, reply):
                    self._abandon(
                        w, None, -1, "the scoring worker answered for other items than it was given", rerun=False
                    )
                    return "dead"
        except (EOFError, OSError):  # the worker died mid-send: the liveness check below handles it
            pass
        chunk, pos = w.current()
        if not w.process.is_alive():
            code = w.process.exitcode
            if code == -9:
                why = "was killed (SIGKILL; out of memory?)"
            elif code is not None and code < 0 and -code in signal.valid_signals():
                why = f"was killed by {signal.Signals(-code).name}"
            else:
                why = f"exited with code {code}"
            self._abandon(w, chunk, pos, f"worker process {why} while scoring this item")
            return "dead"
        job = self._job_of.get(chunk[0]) if chunk is not None else None
        if job is not None and job.cancelled:
            self._abandon(w, chunk, pos, "cancelled: its batch's deadline passed")
            return "dead"
        timeout = job.timeout if job is not None else None
        if timeout is not None and time.monotonic() - w.state[_START] > timeout:
            self._abandon(w, chunk, pos, f"scoring took longer than {timeout:g} s (wall clock); worker killed")
            return "dead"
        return "ok"

    def _accept(self, w: _Worker, reply: Any) -> bool:
        """Decide the items of the worker's first chunk from `reply`, if it answers exactly that chunk
        (its sequence number and one row per item); False, deciding nothing, if it does not."""
        seq, items = w.in_flight[0]
        if not (isinstance(reply, tuple) and len(reply) in (2, 3) and reply[0] == seq):
            return False
        job = self._job_of.get(seq)
        if len(reply) == 3:  # the worker could not read the chunk
            if reply[1] != _UNREADABLE:
                return False
            if len(items) > 1 and job is not None and not job.cancelled:  # which item? each on its own, first
                w.in_flight.popleft()
                w.started_any = True
                self._job_of.pop(seq, None)
                with self._lock:
                    job.pending.extendleft([item] for item in reversed(items))
                return True
            rows = [Score.error(f"the scoring worker could not read this item: {reply[2]}").to_row()] * len(items)
        else:
            rows = reply[1]
            if not isinstance(rows, list) or len(rows) != len(items):
                return False
        w.in_flight.popleft()
        w.started_any = True
        self._job_of.pop(seq, None)
        if job is not None:
            job.decide_all([(i, Score.from_row(row)) for (i, _c, _t), row in zip(items, rows)])
        return True

    def _abandon(self, w: _Worker, chunk: Chunk | None, pos: int, reason: str, rerun: bool = True) -> None:
        """Kill `w`; its current item becomes ERROR, everything else it held goes back to its job
        (with `rerun` False, everything it held becomes ERROR)."""
        w.kill()
        self._release(w)
        for seq, items in w.in_flight:
            job = self._job_of.pop(seq, None)
            if job is None:
                continue
            if not rerun:  # a confused worker: none of what it held is run again
                for i, _c, _t in items:
                    job.decide(i, Score.error(reason))
                continue
            if chunk is not None and seq == chunk[0] and 0 <= pos < len(items):
                job.decide(items[pos][0], Score.error(reason))
                items = items[:pos] + items[pos + 1 :]
            if items and not job.cancelled:
                with self._lock:
                    job.pending.appendleft(items)
        w.in_flight.clear()

    def _release(self, w: _Worker) -> None:
        try:
            release = self._worker_killed()
            if w.process.pid is not None and release is not None:
                release(w.process.pid)
        except Exception:  # cleanup is best effort; the item's score is already decided
            pass

    def _fail_pending(self, reason: str, in_flight: bool = False) -> None:
        """Every item not handed out is ERROR; with `in_flight` (the pool is closing or its dispatcher
        failed) every item not yet decided, so that no caller waits for results that cannot come."""
        with self._lock:
            jobs = list(self._jobs)
            for job in jobs:
                chunks = job.drop_pending()
                undecided = [i for items in chunks for i, _c, _t in items]
                if in_flight:
                    undecided = [i for i in job.indices if i not in job.out]
                for i in undecided:
                    job.decide(i, Score.error(reason))

    def close(self) -> None:
        with self._lock:
            self.closed = True
        self._wake()
        if self._dispatcher is not None and self._dispatcher is not threading.current_thread():
            self._dispatcher.join(10)
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
        self._fail_pending("the worker pool was closed", in_flight=True)
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)


@atexit.register
def _close_all_pools() -> None:
    for pool in list(_live_pools):
        pool.close()
