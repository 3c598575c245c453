"""Run inside the frameworks venv: what OpenRLHF trains on when one answer of a GRPO group is a
verifier ERROR, through its own executor (file route) and its own advantage code
(`RemoteExperienceMaker.compute_advantages_and_returns`, each estimator that uses the group), and
whether EVALKIT_MAX_ERROR_RATE stops the rollout through that executor (which logs any Exception a
reward function raises at INFO and carries on without a reward).
Usage: python openrlhf_group.py PATH/TO/evalkit/adapters/openrlhf.py   Prints one JSON line.
"""

import asyncio
import json
import os
import sys
from types import SimpleNamespace

import gpu_only  # noqa: F401 - before OpenRLHF's trainer modules
import torch
from openrlhf.trainer.ppo_utils.experience_maker import RemoteExperienceMaker
from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
from openrlhf.utils.agent import SingleTurnAgentExecutor
from openrlhf_check import Engine, chat_prompt, tokenizer
from vllm import SamplingParams

GROUP = [  # one prompt's four samples: correct, wrong value, no answer, correct but its label is broken
    ("Answer: (6 - 4) * (4 + 8) = 24", "4 4 6 8"),
    ("Answer: 4 + 4 + 6 + 8", "4 4 6 8"),
    ("I could not find it.", "4 4 6 8"),
    ("Answer: (6 - 4) * (4 + 8) = 24", "not a label"),
]
MAX_LEN = 1024


async def rollout(executor, text: str, label: str) -> dict:
    prompt = chat_prompt("Use 4 4 6 8 to make 24.")
    return await executor.execute(prompt, label, SamplingParams(max_tokens=64), MAX_LEN, tokenizer, Engine(text))


def advantages(responses: list[dict], estimator: str) -> list[float]:
    """OpenRLHF's own shaping and advantage code over the group, as its trainer calls it."""
    experiences = []
    for i, response in enumerate(responses):
        experience = SamplesGenerator._process_response_into_experience(None, response, max_len=MAX_LEN)
        experience.index = [i]
        experience.kl = torch.zeros_like(experience.action_mask, dtype=torch.float32)
        experiences.append(experience)
    args = SimpleNamespace(
        algo=SimpleNamespace(advantage=SimpleNamespace(estimator=estimator, gamma=1.0, no_std_norm=False)),
        rollout=SimpleNamespace(n_samples_per_prompt=len(responses)),
        reward=SimpleNamespace(clip_range=None, overlong_buffer_len=None, stop_properly_penalty_coef=None),
    )
    maker = RemoteExperienceMaker.__new__(RemoteExperienceMaker)  # only the advantage step: no Ray groups
    maker.strategy, maker.args, maker.advantage_estimator = SimpleNamespace(args=args), args, estimator
    maker.kl_ctl = SimpleNamespace(value=0.0)
    out = maker.compute_advantages_and_returns(experiences)
    return [float(e.advantages[e.action_mask.bool()][0]) for e in out]


async def main(adapter: str) -> dict:
    executor = SingleTurnAgentExecutor(remote_rm_url=adapter)
    responses = [await rollout(executor, text, label) for text, label in GROUP]
    group = {
        "rewards": [float(r["reward"].flatten()[0]) for r in responses],
        "error": [float(r["extra_logs"]["error"].flatten()[0]) for r in responses],
        "advantages": {e: advantages(responses, e) for e in ("group_norm", "dr_grpo", "rloo")},
    }
    os.environ["EVALKIT_MAX_ERROR_RATE"] = "0.05"
    executor = SingleTurnAgentExecutor(remote_rm_url=adapter)  # loads the file again: a fresh policy
    stop = {"stopped_at": None, "type": None, "message": None, "rewards_before": 0}
    for i in range(80):  # every eighth label broken: 12.5% ERRORs
        text, label = GROUP[3] if i % 8 == 0 else GROUP[0]
        try:
            response = await rollout(executor, text, label)
        except BaseException as exc:  # what reaches OpenRLHF's rollout worker
            stop.update(stopped_at=i, type=type(exc).__name__, message=str(exc))
            break
        stop["rewards_before"] += response["reward"] is not None
    return {"group": group, "stop": stop}


print(json.dumps(asyncio.run(main(sys.argv[1]))))
