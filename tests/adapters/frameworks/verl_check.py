"""Run inside the frameworks venv: evalkit's verl adapter through verl's own reward path.

verl's hydra config (the documented keys), `load_reward_manager`, and `RewardLoopManager`, the
Ray-backed manager that scores a batch and builds its columns from the first item, on a mixed
batch (game24, code, gomoku, an unknown data source, a bad ground truth). Prints one JSON line.
Usage: python verl_check.py ADAPTER_REF REWARD_MANAGER [reward_kwargs as JSON]
REWARD_MANAGER "evalkit" loads evalkit's own manager (adapters/verl_manager.py) by importlib; it
then also scores one GRPO group [correct, wrong, empty, correct with a bad label] and prints verl's
own GRPO advantages for it (`core_algos.compute_grpo_outcome_advantage`).
"""

import json
import os
import sys
import time

import numpy as np
import ray
import verl
from hydra import compose, initialize_config_dir
from verl.experimental.reward_loop.reward_loop import RewardLoopManager
from verl.trainer.ppo.reward import load_reward_manager
from verl_batch import make_batch

from evalkit.models import vllm_model_dir

adapter, manager = sys.argv[1], sys.argv[2]
reward_kwargs = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
model_dir = vllm_model_dir(None)  # the packaged SmolLM2 as an HF folder: verl loads its tokenizer from it
overrides = [
    f"reward.custom_reward_function.path={adapter}",
    "reward.custom_reward_function.name=compute_score",
    "reward.num_workers=1",
    f"actor_rollout_ref.model.path={model_dir}",
]
if manager == "evalkit":
    manager_file = os.path.join(os.path.dirname(os.path.abspath(adapter)), "verl_manager.py")
    overrides += [
        "reward.reward_manager.source=importlib",
        f"reward.reward_manager.module.path={manager_file}",
        "reward.reward_manager.name=EvalkitRewardManager",
    ]
else:
    overrides.append(f"reward.reward_manager.name={manager}")
overrides += [f"+reward.custom_reward_function.reward_kwargs.{k}={v}" for k, v in reward_kwargs.items()]
with initialize_config_dir(
    config_dir=os.path.join(os.path.dirname(verl.__file__), "trainer/config"), version_base=None
):
    config = compose(config_name="ppo_trainer", overrides=overrides)

from transformers import AutoTokenizer  # noqa: E402

tokenizer = AutoTokenizer.from_pretrained(model_dir)
assert load_reward_manager(config, tokenizer) is not None  # verl's loader accepts the adapter

ITEMS = [  # (data_source, response, ground_truth)
    ("game24", "Answer: (6 - 4) * (4 + 8) = 24", "4 4 6 8"),
    (
        "code",
        "```python\ndef f(x):\n    return x + 1\n```",
        json.dumps({"test_cases": ["assert f(1) == 2", "assert f(2) == 4"]}),
    ),
    (
        "gomoku",
        "<move>E9</move>",
        json.dumps(
            {
                "size": 9,
                "moves": [
                    "E5",
                    "B7",
                    "B6",
                    "B8",
                    "C5",
                    "F4",
                    "C8",
                    "A6",
                    "G4",
                    "H3",
                    "I3",
                    "B5",
                    "E6",
                    "F6",
                    "D4",
                    "F3",
                    "G7",
                    "D2",
                    "A3",
                    "G5",
                    "B3",
                    "E1",
                    "B2",
                    "B9",
                    "A9",
                    "F1",
                    "E2",
                    "I2",
                    "H4",
                    "H5",
                    "B1",
                    "A2",
                    "D1",
                    "B4",
                    "E7",
                    "H7",
                    "E8",
                    "A5",
                ],
            }
        ),
    ),
    ("no-such-source", "Answer: 1", "1 2 3 4"),
    ("game24", "Answer: (6 - 4) * (4 + 8) = 24", "not a task"),
    ("24game", "Answer: 4 + 4 + 6 + 8", np.array([4, 4, 6, 8])),  # the right numbers, a wrong value
]
GROUP = [  # one prompt's GRPO group; the last answer is right but its label is broken
    ("game24", "Answer: (6 - 4) * (4 + 8) = 24", "4 4 6 8"),
    ("game24", "Answer: 4 + 4 + 6 + 8", "4 4 6 8"),
    ("game24", "", "4 4 6 8"),
    ("game24", "Answer: (6 - 4) * (4 + 8) = 24", "four four six eight"),
]


data = make_batch(tokenizer, ITEMS, [f"item-{i}" for i in range(len(ITEMS))])
group_advantages = None
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    manager = RewardLoopManager(config)
    out = manager.compute_rm_score(data)
    started = time.perf_counter()
    manager.compute_rm_score(data)  # warm: what each later training step pays
    warm_s_per_sample = (time.perf_counter() - started) / len(ITEMS)
    group = make_batch(tokenizer, GROUP, ["prompt-1"] * len(GROUP))
    scored = manager.compute_rm_score(group)
    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    prompt_length = group.batch["prompts"].size(1)
    response_mask = group.batch["attention_mask"][:, prompt_length:]
    advantages, _ = compute_grpo_outcome_advantage(
        scored.batch["rm_scores"], response_mask, np.array(["prompt-1"] * len(GROUP), dtype=object)
    )
    group_advantages = {
        "rewards": scored.batch["rm_scores"].sum(-1).tolist(),
        "advantages": [float(a[m.bool()][0]) for a, m in zip(advantages, response_mask)],
    }
finally:
    ray.shutdown()  # kills verl's reward workers: their code sandboxes are orphans now, released below
    from sandboxes.cleanup import release_orphans

    release_orphans(docker=True)
rewards = out.batch["rm_scores"].sum(-1).tolist()
extra = {
    k: [v.item() if hasattr(v, "item") else v for v in out.non_tensor_batch[k]]
    for k in out.meta_info["reward_extra_keys"]
}
print(
    json.dumps(
        {"rewards": rewards, "extra": extra, "warm_s_per_sample": warm_s_per_sample, "group": group_advantages},
        default=str,
    )
)
