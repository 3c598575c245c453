"""What the in-framework cost scripts (verl_cost.py, openrlhf_cost.py) share: the items they score,
the direct `score_batch` figure beside which the framework's is read, and the sandbox containers
this process's tree holds (to count those a warm round starts)."""

import json
import os
import subprocess
import time

import verifiers
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
    out = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            "label=evalkit.sandbox.owner",
            "--format",
            '{{.ID}} {{.Label "evalkit.sandbox.owner"}}',
        ],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return set()
    ours = _descendants(os.getpid())
    listed = (line.split() for line in out.stdout.splitlines() if line.strip())
    return {fields[0] for fields in listed if len(fields) == 2 and int(fields[1].rpartition(":")[2]) in ours}


def _descendants(pid: int) -> set[int]:
    """`pid` and every process below it, from /proc's parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            parent = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, todo = {pid}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found
