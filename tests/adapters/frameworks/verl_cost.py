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
import sys
import time

import ray
import verl
from cost_items import containers, cost_items, direct_seconds
from hydra import compose, initialize_config_dir
from verl.experimental.reward_loop.reward_loop import RewardLoopManager
from verl_batch import make_batch

import verifiers
from evalkit.models import vllm_model_dir

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

items = cost_items(name, count)


def batch(round_: int):
    """The items, each made unique per round (verl and our cache must not reuse a score)."""
    return make_batch(tokenizer, [(name, t + " " * round_, g) for t, g in items])


direct = direct_seconds(name, config, items, ROUNDS)

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
            "containers_held_warm": len(before),
            "all_correct": all(abs(x - rewards[0]) < 1e-6 for x in rewards),
        }
    )
)
