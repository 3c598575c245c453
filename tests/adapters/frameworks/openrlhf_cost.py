"""Run inside the frameworks venv: the per-item cost of evalkit rewards inside OpenRLHF's rollout
executor (`SingleTurnAgentExecutor` with `--remote_rm_url` pointing at evalkit's file: every sample's
`execute` in flight at once, each calling `reward_func` for its one item from `asyncio.to_thread`),
side by side with one direct `score_batch` of the same items in this process, and the sandbox
containers started per warm round. Prints one JSON line.
Usage: python openrlhf_cost.py VERIFIER CONFIG_JSON ITEMS [--floor]
With --floor the executor calls a reward function that returns 0.0 at once: OpenRLHF's own cost
per item (tokenising the prompt, decoding the query, its thread hop), which no reward avoids.
Generation is a stand-in engine that answers each item's fixed text (the reward path is measured,
not vLLM).
"""

import asyncio
import json
import os
import sys
import time
from types import SimpleNamespace

import verifiers

name, config, count = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
floor = "--floor" in sys.argv
ROUNDS = 3
os.environ["EVALKIT_VERIFIER"], os.environ["EVALKIT_VERIFIER_CONFIG"] = name, json.dumps(config)
adapter = os.path.join(os.path.dirname(verifiers.__file__), "..", "evalkit", "adapters", "openrlhf.py")
if floor:
    adapter = os.path.join(os.environ.get("TMPDIR", "/tmp"), "evalkit_zero_reward_openrlhf.py")
    with open(adapter, "w") as fh:
        fh.write("import torch\n\ndef reward_func(queries, prompts, labels, **kwargs):\n")
        fh.write("    zeros = torch.zeros(len(queries))\n")
        fh.write("    return {'rewards': zeros, 'scores': zeros, 'extra_logs': {}}\n")

from cost_items import containers, cost_items, direct_seconds  # noqa: E402
from openrlhf.utils.agent import SingleTurnAgentExecutor  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402
from vllm import SamplingParams  # noqa: E402

from evalkit.models import vllm_model_dir  # noqa: E402

tokenizer = AutoTokenizer.from_pretrained(vllm_model_dir(None))
END = tokenizer.convert_tokens_to_ids("<|im_end|>")

items = cost_items(name, count)
PROMPT = tokenizer.apply_chat_template(
    [{"role": "user", "content": "Solve the task."}], add_generation_prompt=True, tokenize=False
)


class Engine:
    """The engine interface the executor calls: `await generate(prompt_ids, params, multi_modal_data=...)`."""

    def __init__(self, text: str) -> None:
        self.ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [END]

    async def generate(self, prompt_token_ids, params, multi_modal_data=None):
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=self.ids, finish_reason="stop", logprobs=None)])


async def one_round(executor, engines) -> tuple[float, list[float]]:
    """Every item's `execute` in flight at once, as OpenRLHF's rollout runs its samples."""
    params = SamplingParams(max_tokens=2048)
    start = time.perf_counter()
    results = await asyncio.gather(
        *(
            executor.execute(PROMPT, label, params, 4096, tokenizer, engine)
            for engine, (_, label) in zip(engines, items)
        )
    )
    return (time.perf_counter() - start) / len(items), [float(r["reward"][0]) for r in results]


async def main() -> dict:
    direct = direct_seconds(name, config, items, ROUNDS)

    executor = SingleTurnAgentExecutor(remote_rm_url=os.path.abspath(adapter))
    await one_round(executor, [Engine(t) for t, _ in items])  # warm: the verifier, its pool and sandboxes
    before = containers()
    in_openrlhf, rewards = [], []
    for r in range(1, ROUNDS + 1):
        seconds, rewards = await one_round(executor, [Engine(t + " " * r) for t, _ in items])
        in_openrlhf.append(seconds)
    started = containers() - before
    return {
        "items": len(items),
        "direct_s_per_item": sorted(direct)[len(direct) // 2],
        "framework_s_per_item": sorted(in_openrlhf)[len(in_openrlhf) // 2],
        "containers_started_warm": len(started),
        "containers_held_warm": len(before),
        "all_correct": floor or all(abs(x - rewards[0]) < 1e-6 and x > 0 for x in rewards),
    }


try:
    print(json.dumps(asyncio.run(main())))
finally:
    from sandboxes.cleanup import release_orphans

    release_orphans(docker=True)
    sys.stdout.flush()
