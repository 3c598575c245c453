"""Scoring on a Ray cluster, for users who outgrow one machine: `score_batch(..., executor="ray")`.

Long-lived actors each hold a ready verifier (CLIP loaded once, the Docker pool warm) inside a
one-worker `WorkerPool`, so every item keeps the local pool's guarantees (hard timeout, crash
isolation). The actors are kept with the verifier's pools (`batch.pools_for`) and reused by every
later call, until `verifier.close()`. Chunks go to whichever actor is free. When an actor dies, its chunk is
retried on another (up to `RETRIES` times, then its items are ERROR), and a replacement actor is
started on the dead one's node, where it first releases what the dead one left (sandbox
containers, work dirs, cgroups). Nothing is left behind when the group ends either: `close()`
sweeps every node an actor ran on (a killed actor cannot clean up after itself), and a driver
that exits without closing (or after `ray.shutdown()`, which kills the actors) sweeps its own host
once the actors are gone.
"""

from __future__ import annotations

import atexit
import math
import os
import pickle
import time
import warnings
from collections import deque
from typing import Any, Callable, Sequence

from .deadline import Deadline
from .protocol import Item, Progress, Scorer
from .score import Score

RETRIES = 2  # times a chunk is retried after the actor scoring it died
START_SECONDS = 120.0  # for an actor to load its verifier (CLIP, a Docker pool) on a loaded node
FREE_WAIT_SECONDS = 10.0  # for CPUs of actors that just closed to show as free


class ScoringActor:
    """One warm verifier in a Ray worker process (wrapped with `ray.remote` at use)."""

    def __init__(self, blob: bytes, memory_mb: int | None) -> None:
        from .pool import WorkerPool

        self.verifier = pickle.loads(blob)
        self.verifier.release_orphans()  # what actors that died on this node left behind
        self.pool = WorkerPool(self.verifier, 1, memory_mb)

    def where(self) -> tuple[str, int]:
        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid()

    def score(self, items: list[Item], timeout: float | None) -> list[tuple[int, tuple]]:
        return [(i, s.to_row()) for i, s in self.pool.run(items, timeout, lambda n: None).items()]

    def close(self) -> None:
        self.pool.close()
        self.verifier.close()


class ActorGroup:
    """The warm actors of one verifier (kept in the verifier's pools, closed with it)."""

    def __init__(self, verifier: Any, size: int, memory_mb: int | None) -> None:
        import ray

        self.ray = ray
        self.blob = pickle.dumps(verifier)
        self.memory_mb = memory_mb
        self.remote_class = ray.remote(num_cpus=1)(ScoringActor)
        self.nodes: dict[Any, str] = {}
        self.pids: dict[str, set[int]] = {}  # node -> pids of every actor started there
        self.replaced = 0
        self.closed = False
        self.actors = [self._start() for _ in range(self._affordable(size))]
        atexit.register(self._at_exit)

    def _affordable(self, size: int) -> int:
        """Each actor takes one CPU: asking for more than the cluster has free would wait forever, so
        scale down to what is free (with a warning), or fail when nothing is. CPUs that actors just
        closed come back within moments, so the count is read for up to FREE_WAIT_SECONDS first."""
        deadline = time.monotonic() + FREE_WAIT_SECONDS
        free = int(self.ray.available_resources().get("CPU", 0))
        while free < size and time.monotonic() < deadline:
            time.sleep(0.2)
            free = int(self.ray.available_resources().get("CPU", 0))
        if free < 1:
            raise RuntimeError(
                "the Ray cluster has no free CPU for a scoring actor (each takes one): "
                "close other verifiers' actors (verifier.close()) or add CPUs"
            )
        if size > free:
            warnings.warn(
                f"{size} Ray workers asked for but {free} CPUs are free: scoring with {free} actors", stacklevel=4
            )
        return min(size, free)

    def _start(self, node_id: str | None = None) -> Any:
        options: dict[str, Any] = {}
        if node_id is not None:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node_id, soft=True)
        actor = self.remote_class.options(**options).remote(self.blob, self.memory_mb)
        try:  # waits until it is warm; a cluster that cannot place it says so instead of hanging
            node, pid = self.ray.get(actor.where.remote(), timeout=START_SECONDS)
            self.nodes[actor] = node
            self.pids.setdefault(node, set()).add(pid)
        except self.ray.exceptions.GetTimeoutError:
            self.ray.kill(actor)
            raise RuntimeError(f"a Ray scoring actor did not start within {START_SECONDS:g} s (no free CPU?)") from None
        return actor

    def run(
        self, items: Sequence[Item], timeout: float | None, progress: Progress, deadline: Deadline | None = None
    ) -> dict[int, Score]:
        """Chunks to free actors; each reply must answer exactly its chunk's items (an actor that
        answers for others is replaced, its chunk retried). At `deadline` what is not scored gets
        the deadline's score and the actors still on it are replaced, so none keeps working for nobody."""
        ray = self.ray
        if deadline is not None:
            deadline.begin()  # these actors serve this batch alone: its items are taken at once
        size = max(1, math.ceil(len(items) / (len(self.actors) * 4)))
        todo: deque[tuple[list[Item], int]] = deque((list(items[k : k + size]), 0) for k in range(0, len(items), size))
        idle = deque(self.actors)
        running: dict[Any, tuple[Any, list[Item], int]] = {}
        out: dict[int, Score] = {}

        def give_up(chunk: list[Item], score: Score) -> None:
            out.update({i: score for i, _c, _t in chunk})
            progress(len(chunk))

        while todo or running:
            while todo and idle:
                chunk, tries = todo.popleft()
                try:
                    ref = idle[0].score.remote(chunk, timeout)
                except Exception as exc:  # a chunk Ray cannot serialise: its items one by one
                    if len(chunk) > 1:
                        todo.extendleft(([item], tries) for item in reversed(chunk))
                    else:
                        give_up(
                            chunk,
                            Score.error(
                                f"the task cannot be sent to a Ray actor ({type(exc).__name__})", task_error=True
                            ),
                        )
                    continue
                running[ref] = (idle.popleft(), chunk, tries)
            if not running:
                continue
            wait = None if deadline is None else max(0.0, deadline.left())
            done, _ = ray.wait(list(running), num_returns=1, timeout=wait)
            if not done:  # the deadline passed: stop the actors still working for this batch
                for actor, chunk, _tries in running.values():
                    self.ray.kill(actor)
                    self._replace(actor)
                    give_up(chunk, deadline.late_score())  # type: ignore[union-attr]
                for chunk, _tries in todo:
                    give_up(chunk, deadline.late_score())  # type: ignore[union-attr]
                return out
            actor, chunk, tries = running.pop(done[0])
            try:
                rows = ray.get(done[0])
                answered = isinstance(rows, list) and sorted(i for i, _row in rows) == sorted(i for i, _c, _t in chunk)
            except ray.exceptions.RayActorError:
                rows, answered = None, False
            except ray.exceptions.RayError:  # the actor lives, its call failed on this chunk (an item it cannot load)
                idle.append(actor)
                if len(chunk) > 1:  # each item on its own: one such item must not fail the others
                    todo.extend(([item], tries) for item in chunk)
                elif tries < RETRIES:
                    todo.append((chunk, tries + 1))
                else:
                    give_up(chunk, Score.error(f"the Ray actor failed on this item, {RETRIES + 1} times"))
                continue
            if not answered:
                if rows is not None:  # alive but confused: never trust it again
                    self.ray.kill(actor)
                idle.append(self._replace(actor))
                if tries < RETRIES:
                    todo.append((chunk, tries + 1))
                else:
                    give_up(chunk, Score.error(f"the Ray actor scoring this item failed, {RETRIES + 1} times"))
                continue
            out.update({i: Score.from_row(row) for i, row in rows})
            idle.append(actor)
            progress(len(rows))
        return out

    def _replace(self, dead: Any) -> Any:
        """A new actor on the dead one's node (its start releases what the dead one held there)."""
        replacement = self._start(self.nodes.pop(dead, None))
        self.actors[self.actors.index(dead)] = replacement
        self.replaced += 1
        return replacement

    def where(self) -> list[tuple[str, int]]:
        return self.ray.get([actor.where.remote() for actor in self.actors])

    def close(self) -> None:
        """Each live actor closes its pool and verifier; then every node an actor ran on is swept
        for what dead ones left. After `ray.shutdown()` only this host can be swept."""
        if self.closed:
            return
        if not self.ray.is_initialized():  # `ray.shutdown()` came first: the actors died with the cluster
            self.closed = True
            _sweep_node(self.blob, sorted(pid for pids in self.pids.values() for pid in pids))
            return
        self.closed = True
        for actor in self.actors:
            try:
                self.ray.get(actor.close.remote(), timeout=30)
            except Exception:
                pass
            self.ray.kill(actor)
        sweep = self.ray.remote(num_cpus=0)(_sweep_node)
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        refs = [
            sweep.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False)).remote(
                self.blob, sorted(pids)
            )
            for node, pids in self.pids.items()
        ]
        try:
            self.ray.get(refs, timeout=120)
        except Exception:  # a node that is gone took its sandboxes with it
            pass

    def _at_exit(self) -> None:
        """The driver is exiting without having closed the group: close it now (after
        `ray.shutdown()` that sweeps this host, where the actors died with the cluster)."""
        self.close()


def _sweep_node(blob: bytes, pids: list[int], wait_seconds: float = 60.0) -> None:
    """On one node: wait until the given actor processes and everything in their process groups
    (the pool workers they started, which outlive them briefly) are gone, then release what evalkit
    processes that died there left. Waiting for the actors alone left a slow pool worker's work dir."""
    from sandboxes.owners import family_alive

    verifier = pickle.loads(blob)
    deadline = time.monotonic() + wait_seconds
    while family_alive(set(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    verifier.release_orphans()


def run_on_actors(
    pools: dict[Any, Any],
    verifier: Scorer,
    items: Sequence[Item],
    *,
    workers: int | None,
    timeout: float | None,
    memory_mb: int | None,
    progress: Callable[[int], None],
    deadline: Deadline | None = None,
) -> dict[int, Score]:
    """Score `items` on the verifier's warm actor group in `pools` (started on first use)."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("executor='ray' needs Ray: pip install 'evalkit-rl[ray]'") from None
    if not ray.is_initialized():
        ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    size = max(1, workers or int(ray.cluster_resources().get("CPU", 1)))
    key = ("ray", size, memory_mb)
    group = pools.get(key)
    if group is None or group.closed:
        group = pools[key] = ActorGroup(verifier, size, memory_mb)
    return group.run(items, timeout, progress, deadline)
