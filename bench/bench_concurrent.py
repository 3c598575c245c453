"""Rewards called the way verl's reward workers and OpenRLHF call them: one item per call, many calls
in flight on threads at once, on a warm verifier. Side by side in one run with one direct
`score_batch` of the same items: the per-item cost of each, and the pools and worker processes
started by the concurrent calls (target: none; they share the warm pool). Targets (issue 30):
per-item cost <= 5x direct for game24 and <= 1.5x for code."""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import verifiers
from bench.common import write_results
from verifiers.batch import pools_for
from verifiers.pool import WorkerPool

THREADS = 8
ROUNDS = 5
WORKERS = 2


def _items(name: str) -> tuple[list[str], list[dict]]:
    if name == "game24":
        v = verifiers.get("game24")
        tasks = v.tasks("test", limit=THREADS)
        return [f"Answer: {t['solution']}" for t in tasks], tasks
    from verifiers.code import leetcode

    problems = [p for p in leetcode.load_problems() if len(p["test"]) < 8000][:THREADS]
    programs = [p for p in leetcode.program_mix(mutants_per_problem=0, problems=problems) if p.kind == "canonical"]
    return [p.completion() for p in programs], [leetcode.as_task(p.problem) for p in programs]


def _measure(name: str, config: dict) -> dict:
    completions, tasks = _items(name)
    v = verifiers.get(name, config)
    try:
        v.score_batch(completions, tasks, workers=WORKERS)  # warm: pool, sandboxes
        pools = [p for p in pools_for(v).values() if isinstance(p, WorkerPool)]  # none when scored inline

        def workers() -> int:
            return sum(p.workers_started for p in pools_for(v).values() if isinstance(p, WorkerPool))

        made, started = WorkerPool.created, workers()
        direct = []
        for r in range(ROUNDS):
            fresh = [c + "\n" * (r + 1) for c in completions]  # defeat the identical-item dedup
            start = time.perf_counter()
            v.score_batch(fresh, tasks, workers=WORKERS)
            direct.append((time.perf_counter() - start) / len(fresh))
        calls: list[float] = []

        def one(k: int, r: int) -> None:
            start = time.perf_counter()
            v.score_batch([completions[k] + " " * (r + 1)], [tasks[k]], workers=WORKERS)
            calls.append(time.perf_counter() - start)

        concurrent = []
        with ThreadPoolExecutor(THREADS) as threads:
            for r in range(ROUNDS):
                start = time.perf_counter()
                list(threads.map(one, range(len(completions)), [r] * len(completions)))
                concurrent.append((time.perf_counter() - start) / len(completions))
        return {
            "direct_ms_per_item": 1000 * statistics.median(direct),
            "concurrent_ms_per_item": 1000 * statistics.median(concurrent),
            "ratio": statistics.median(concurrent) / statistics.median(direct),
            "median_call_ms": 1000 * statistics.median(calls),
            "pools_started": WorkerPool.created - made,
            "workers_started": workers() - started,
            "scored_inline": not pools,
        }
    finally:
        v.close()


def main() -> dict:
    cases = {
        "game24": ("game24", {}),
        "code, local": ("code", {"backend": "local"}),
        "code, docker": ("code", {"backend": "docker"}),
    }
    figures = {label: _measure(name, config) for label, (name, config) in cases.items()}
    table = [
        (
            "verifier",
            "direct ms/item",
            f"{THREADS} threads, 1 item a call: ms/item",
            "ratio",
            "median call ms",
            "pools / workers started",
        )
    ]
    for label, f in figures.items():
        table.append(
            (
                label,
                f"{f['direct_ms_per_item']:.2f}",
                f"{f['concurrent_ms_per_item']:.2f}",
                f"{f['ratio']:.2f}x",
                f"{f['median_call_ms']:.1f}",
                f"{f['pools_started']} / {f['workers_started']}",
            )
        )
    notes = (
        f"{THREADS} items (game24 solutions; LeetCode reference solutions), a warm verifier with {WORKERS} workers; "
        f"medians of {ROUNDS} rounds. Concurrent calls queue onto the verifier's one warm pool (before: a caller that "
        "found it busy started a private pool, and for code fresh sandboxes). game24 scores short completions in the "
        "caller's thread (no pool at all). Targets: game24 <= 5x, code <= 1.5x. In-framework figures: the "
        "frameworks benchmark."
    )
    write_results("concurrent", figures, table, notes=notes)
    return figures


if __name__ == "__main__":
    main()
