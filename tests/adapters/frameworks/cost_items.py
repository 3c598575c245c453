"""What the in-framework cost scripts (verl_cost.py, openrlhf_cost.py) share: the items they score,
the direct `score_batch` figure beside which the framework's is read, and the sandbox containers
this process's tree holds (to count those a warm round starts)."""

import json
import os
import time

import verifiers
from sandboxes.owners import container_owners, descendants
from verifiers.code import leetcode


def cost_items(name: str, count: int) -> list[tuple[str, str]]:
    """(completion, ground truth as JSON) pairs: game24 solutions, or LeetCode reference solutions."""
    if name == "game24":
        tasks = verifiers.get("game24").tasks("test", limit=count)
        return [(f"Answer: {t['solution']}", json.dumps({"numbers": t["numbers"]})) for t in tasks]
    problems = [p for p in leetcode.load_problems() if len(p["test"]) < 8000]
    programs = [p for p in leetcode.program_mix(mutants_per_problem=0, problems=problems) if p.kind == "canonical"]
    return [(p.completion(), json.dumps(leetcode.as_task(p.problem))) for p in programs][:count]


def direct_seconds(name: str, config: dict, items: list[tuple[str, str]], rounds: int) -> list[float]:
    """Seconds per item of one warm `score_batch` of the items in this process, per round (each
    round's texts made unique, so no score is reused)."""
    v = verifiers.get(name, config)
    tasks = [v.task_from_ground_truth(g) for _, g in items]
    v.score_batch([t for t, _ in items], tasks, workers=2)
    out = []
    for r in range(1, rounds + 1):
        start = time.perf_counter()
        v.score_batch([t + " " * r for t, _ in items], tasks, workers=2)
        out.append((time.perf_counter() - start) / len(items))
    v.close()
    return out


def containers() -> set[str]:
    """The sandbox containers this process and its descendants (Ray workers, a server) own: another
    test's containers on the same host are started and removed on their own schedule."""
    ours = descendants(os.getpid()) | {os.getpid()}
    return {cid for cid, owner in container_owners().items() if owner in ours}
