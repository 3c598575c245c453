"""Run inside the frameworks venv: evalkit's OpenRLHF routes through OpenRLHF's own executor.

`SingleTurnAgentExecutor(remote_rm_url=...)` is what OpenRLHF's rollout uses: it loads the file's
`reward_func` (or posts to the URL), decodes prompt + response with special tokens kept, and reads
`rewards`/`scores`/`extra_logs`. Generation is a stand-in engine (we test the reward path, not vLLM)
that answers with fixed text ending in the model's end-of-turn token, as a chat model does.
Usage: python openrlhf_check.py REMOTE_RM_URL   (a .py path or an http URL). Prints one JSON line.
"""

import asyncio
import json
import sys
import time
from types import SimpleNamespace

import torch
from openrlhf.utils.agent import SingleTurnAgentExecutor
from transformers import AutoTokenizer
from vllm import SamplingParams

from evalkit.models import vllm_model_dir

tokenizer = AutoTokenizer.from_pretrained(vllm_model_dir(None))
END = tokenizer.convert_tokens_to_ids("<|im_end|>")


class Engine:
    """Speaks the engine interface the executor calls: `await generate(prompt_ids, params, multi_modal_data=...)`."""

    def __init__(self, text: str) -> None:
        self.ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [END]

    async def generate(self, prompt_token_ids, params, multi_modal_data=None):
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=self.ids, finish_reason="stop", logprobs=None)])


CASES = [
    ("Answer: (6 - 4) * (4 + 8) = 24", "4 4 6 8"),  # correct: 0.7 with the end token stripped
    ("Answer: 4 + 4 + 6 + 8", "4 4 6 8"),  # the right numbers, a wrong value
    ("Answer: (6 - 4) * (4 + 8) = 24", "not a label"),
]  # a bad label: one ERROR item


def first(value) -> float:
    """The one value of a batch-of-one reward, as a tensor (file route) or a list (HTTP route) carries it."""
    return float(torch.as_tensor(value, dtype=torch.float32).flatten()[0])


async def main(url: str) -> dict:
    executor = SingleTurnAgentExecutor(remote_rm_url=url)
    prompt = chat_prompt("Use 4 4 6 8 to make 24.")
    out = []
    for text, label in CASES:
        start = time.perf_counter()
        result = await executor.execute(prompt, label, SamplingParams(max_tokens=64), 1024, tokenizer, Engine(text))
        out.append(
            {
                "reward": first(result["reward"]),
                "scores": first(result["scores"]),
                "extra_logs": {k: [first(v)] for k, v in result["extra_logs"].items()},
                "seconds": time.perf_counter() - start,
            }
        )
    return {"results": out}


def chat_prompt(text: str) -> str:
    return tokenizer.apply_chat_template(
        [{"role": "user", "content": text}], add_generation_prompt=True, tokenize=False
    )


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
