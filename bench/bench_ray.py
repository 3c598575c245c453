"""Scoring on Ray against actor count, side by side in one run: the local process pool, then warm
Ray actors (1 and 2) on a two-node local cluster (one CPU per node), first call (actors start and
load the verifier) and later calls (warm). Items: game24 answers, half right."""

from __future__ import annotations

import time

import verifiers
from bench.common import write_results

ITEMS = 6000


def main() -> dict:
    import ray
    from ray.cluster_utils import Cluster

    v = verifiers.get("game24")
    tasks = (v.tasks("all") * 5)[:ITEMS]
    completions = [
        f"Answer: {t['solution']} " + " " * (i % 7) if i % 2 else f"Answer: 1 + {i}" for i, t in enumerate(tasks)
    ]
    figures: dict = {}
    start = time.perf_counter()
    v.score_batch(completions, tasks, workers=2)
    start = time.perf_counter()
    v.score_batch(completions, tasks, workers=2)
    figures["local_pool_2_warm"] = ITEMS / (time.perf_counter() - start)
    v.close()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        for actors in (1, 2):
            rv = verifiers.get("game24")
            start = time.perf_counter()
            rv.score_batch(completions, tasks, executor="ray", workers=actors)
            figures[f"ray_{actors}_first"] = ITEMS / (time.perf_counter() - start)
            start = time.perf_counter()
            rv.score_batch([c + "." for c in completions], tasks, executor="ray", workers=actors)
            figures[f"ray_{actors}_warm"] = ITEMS / (time.perf_counter() - start)
            rv.close()
    finally:
        ray.shutdown()
        cluster.shutdown()
    base = figures["local_pool_2_warm"]
    table = [("executor", "items/s", "vs local pool")]
    table.append(("local process pool, 2 workers (warm)", f"{base:,.0f}", "1.00x"))
    for actors in (1, 2):
        for phase in ("first", "warm"):
            rate = figures[f"ray_{actors}_{phase}"]
            table.append(
                (
                    f"Ray, {actors} actor(s), {'first call (actors start)' if phase == 'first' else 'warm'}",
                    f"{rate:,.0f}",
                    f"{rate / base:.2f}x",
                )
            )
    write_results(
        "ray",
        figures,
        table,
        notes=f"{ITEMS} game24 items; a two-node local Ray cluster, one CPU per node, "
        "on a 2-core machine: the figures show the executor's overhead and warm reuse, not scaling.",
    )
    return figures


if __name__ == "__main__":
    main()
