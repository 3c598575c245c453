"""Run inside the frameworks venv: the per-item cost of evalkit rewards inside verl's reward loop
(`RewardLoopManager` -> one `RewardLoopWorker`, which scores a batch's items concurrently, one
`compute_score` call each), side by side with one direct `score_batch` of the same items in this
process, and the sandbox containers started per warm verl batch. Prints one JSON line.
Usage: python verl_cost.py VERIFIER CONFIG_JSON ITEMS [--floor]
With --floor verl calls a reward function that returns 0.0 at once: verl's own cost per item (the
tokenizer's decode, its event loop and threads, the Ray call), which no reward function avoids.
"""

import json
import os
import subprocess
import sys
import time

import ray
import verl
from hydra import compose, initialize_config_dir
from verl.experimental.reward_loop.reward_loop import RewardLoopManager
from verl_batch import make_batch

import verifiers
from evalkit.models import vllm_model_dir
from verifiers.code import leetcode

name, config, count = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
floor = "--floor" in sys.argv
ROUNDS = 3
adapter = os.path.join(os.path.dirname(verifiers.__file__), "..", "evalkit", "adapters", "verl.py")
if floor:
    adapter = os.path.join(os.environ.get("TMPDIR", "/tmp"), "evalkit_zero_reward.py")
    with open(adapter, "w") as fh:
        fh.write("def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):\n")
        fh.write("    return {'score': 0.0}\n")
    config = {}
model_dir = vllm_model_dir(None)
overrides = [
    f"reward.custom_reward_function.path={os.path.abspath(adapter)}",
    "reward.custom_reward_function.name=compute_score",
    "reward.reward_manager.name=naive",
    "reward.num_workers=1",
    f"actor_rollout_ref.model.path={model_dir}",
]
overrides += [f"+reward.custom_reward_function.reward_kwargs.{k}={v}" for k, v in config.items()]
with initialize_config_dir(
    config_dir=os.path.join(os.path.dirname(verl.__file__), "trainer/config"), version_base=None
):
    cfg = compose(config_name="ppo_trainer", overrides=overrides)

from transformers import AutoTokenizer  # noqa: E402

tokenizer = AutoTokenizer.from_pretrained(model_dir)

if name == "game24":
    tasks = verifiers.get("game24").tasks("test", limit=count)
    items = [(f"Answer: {t['solution']}", json.dumps({"numbers": t["numbers"]})) for t in tasks]
else:
    problems = [p for p in leetcode.load_problems() if len(p["test"]) < 8000]
    programs = [p for p in leetcode.program_mix(mutants_per_problem=0, problems=problems) if p.kind == "canonical"]
    items = [(p.completion(), json.dumps(leetcode.as_task(p.problem))) for p in programs][:count]


def batch(round_: int):
    """The items, each made unique per round (verl and our cache must not reuse a score)."""
    return make_batch(tokenizer, [(name, t + " " * round_, g) for t, g in items])


def containers() -> set[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", "label=evalkit.sandbox.owner"], capture_output=True, text=True
    )
    return set(out.stdout.split()) if out.returncode == 0 else set()


# direct: one score_batch of the same items in this process, warm
v = verifiers.get(name, config)
tasks = [v.task_from_ground_truth(g) for _, g in items]
v.score_batch([t for t, _ in items], tasks, workers=2)
direct = []
for r in range(1, ROUNDS + 1):
    start = time.perf_counter()
    v.score_batch([t + " " * r for t, _ in items], tasks, workers=2)
    direct.append((time.perf_counter() - start) / len(items))
v.close()

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    manager = RewardLoopManager(cfg)
    first = manager.compute_rm_score(batch(0))  # warm: the worker's verifier, its pool and sandboxes
    before = containers()
    in_verl = []
    for r in range(1, ROUNDS + 1):
        start = time.perf_counter()
        out = manager.compute_rm_score(batch(r))
        in_verl.append((time.perf_counter() - start) / len(items))
    started = containers() - before
finally:
    ray.shutdown()
    from sandboxes.cleanup import release_orphans

    release_orphans(docker=True)
rewards = out.batch["rm_scores"].sum(-1).tolist()
print(
    json.dumps(
        {
            "items": len(items),
            "direct_s_per_item": sorted(direct)[len(direct) // 2],
            "framework_s_per_item": sorted(in_verl)[len(in_verl) // 2],
            "containers_started_warm": len(started),
            "all_correct": all(abs(x - rewards[0]) < 1e-6 for x in rewards),
        }
    )
)
