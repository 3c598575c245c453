"""The GRPO trainer: one step samples G completions for each of B prompts, scores them with the
verifier (in worker processes), turns rewards into advantages and takes `updates_per_batch`
gradient steps on the clipped surrogate minus a k3 KL penalty to the frozen reference model.

It runs where the config says (`device`, `dtype`: "auto" is the GPU in bfloat16 where there is one):
the policy's weights and AdamW's state are float32 and the forward passes run under autocast, so
small steps are never rounded away; the reference model is kept in the compute dtype (it never
trains). Rollouts come from the policy itself or from a colocated vLLM engine synced after every
update (rollouts.py, vllm_rollouts.py). An optional supervised warm-up on worked solutions runs
before step 1 (evalkit/warmup.py).
"""

from __future__ import annotations

import copy
import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

import verifiers
from evalkit.curriculum import PromptSampler
from evalkit.devices import autocast, peak_memory_bytes, reset_peak_memory, resolve_device, resolve_dtype
from evalkit.generation.row_sampling import row_seeds
from evalkit.pipeline import PromptTemplate, shot_pair
from verifiers import Score, verdict_counts
from verifiers.score import ITEM_TIMEOUT_SECONDS

from .config import ConfigError, GRPOConfig
from .logprobs import completion_width, logprob_parts, row_passes, sequence_logprobs
from .objective import RewardStats, advantages, counted, group_has_signal, grpo_loss, loss_denominator, rewards_of
from .rollouts import RolloutBatch, Rollouts, RolloutSettings, TransformersRollouts


class Part(NamedTuple):
    """Rows a step trains on: a batch (or the groups kept of one), their advantages (0 where not
    kept) and which rows count."""

    batch: RolloutBatch
    advantages: np.ndarray
    keep: np.ndarray


class Sampled(NamedTuple):
    """One generation round of a step, as its log line reads it: the batch, its rewards, its scores."""

    batch: RolloutBatch
    rewards: np.ndarray
    scores: list[Score]


@dataclass
class _Prepared:
    """A part's tensors for the update, computed once before its passes."""

    ids: Any
    attention_mask: Any
    completion_mask: Any
    mask: Any  # completion tokens of the rows that count
    advantages: Any
    reference_logp: Any
    old_logp: Any  # None: on-policy (one update per batch), the current log-probs detached
    rollout_logp: Any  # the engine's (vLLM), to measure its gap; None elsewhere
    passes: list[slice]


class RolloutDrift(RuntimeError):
    """The rollout engine's log-probs are not the policy's: it samples from other weights."""


class GRPOTrainer:
    def __init__(
        self,
        cfg: GRPOConfig,
        run_dir: Path,
        policy: Any = None,
        tokenizer: Any = None,
        warmup_progress: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        import torch

        from evalkit.models import load_transformers

        self.cfg, self.run_dir = cfg, run_dir
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        self.device = resolve_device(cfg.device)
        self.dtype = resolve_dtype(cfg.dtype, self.device)
        self.verifier = verifiers.get(cfg.verifier, **cfg.verifier_config)
        self.template = PromptTemplate(shots=self._shots(), response_prefix=cfg.response_prefix)
        warmup_pairs = self._warmup_pairs() if cfg.warmup_epochs else []
        if policy is None:
            policy, tokenizer = load_transformers(cfg.model)
        self.policy = policy.to(device=self.device, dtype=torch.float32)  # master weights
        self.tokenizer = tokenizer
        if cfg.warmup_epochs:
            self._warm_up(warmup_pairs, warmup_progress)
        self.reference = copy.deepcopy(self.policy).to(self.dtype).eval()
        for p in self.reference.parameters():
            p.requires_grad_(False)
        if cfg.gradient_checkpointing:
            self.policy.gradient_checkpointing_enable()
        fused = {"fused": True} if self.device.type == "cuda" else {}
        self.optimizer = torch.optim.AdamW(self.policy.parameters(), lr=cfg.learning_rate, **fused)
        self.stats = RewardStats()
        self.step = 0
        self.tasks = self.verifier.tasks(cfg.split, seed=cfg.seed)
        self.eval_tasks = self.verifier.tasks("test", limit=cfg.eval_tasks, seed=cfg.seed)
        self.rng = random.Random(cfg.seed)
        self.prompts = PromptSampler(cfg.prompt_sampling)
        torch.manual_seed(cfg.seed)
        self.rollouts = self._rollouts()

    def _rollouts(self) -> Rollouts:
        cfg = self.cfg
        settings = RolloutSettings(cfg.rollout_sampling(), self.dtype, cfg.response_prefix)
        if cfg.generation_backend == "transformers":
            return TransformersRollouts(self.policy, self.tokenizer, settings)
        from evalkit.models import vllm_model_dir

        from .vllm_rollouts import VllmRollouts

        return VllmRollouts(str(vllm_model_dir(cfg.model)), self.policy, self.tokenizer, settings, cfg)

    def _shots(self) -> tuple[tuple[str, str], ...]:
        shots = []
        for number, record in enumerate(self.cfg.few_shot, start=1):
            try:
                shots.append(shot_pair(record, self.verifier))
            except Exception as exc:  # a malformed example: say which one, before any model loads
                raise ConfigError(f"few_shot example {number}: {exc}") from None
        return tuple(shots)

    def _warmup_pairs(self) -> list[tuple[str, str]]:
        """The warm-up's (prompt, completion) pairs, checked before the model loads: readable, each
        a continuation of its prompt, none a held-out task."""
        from evalkit import warmup

        cfg = self.cfg
        try:
            records = cfg.warmup_examples
            if isinstance(records, str):
                records = warmup.read_records(records)
            pairs = warmup.warmup_pairs(records, self.verifier, cfg.response_prefix)
            held_out = self.verifier.tasks("test", seed=cfg.seed)
            warmup.refuse_held_out(pairs, {self.verifier.prompt(t): str(t.get("id")) for t in held_out})
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        return pairs

    def _warm_up(self, pairs: list[tuple[str, str]], progress: Callable[[dict[str, Any]], None] | None) -> None:
        """The supervised warm-up (evalkit/warmup.py), once per run: its model folder is the start
        of training and the KL reference, and is reloaded as it is when the run resumes (refused if
        it was made with other settings)."""
        import hashlib

        import torch
        from transformers import AutoModelForCausalLM

        from evalkit import warmup
        from evalkit.resume import StampMismatch, check_stamp, write_atomically

        cfg = self.cfg
        stamp = {
            "model": cfg.model,
            "examples": hashlib.sha256(json.dumps(pairs).encode()).hexdigest(),
            "template": self.template.as_dict(),
            **{k: getattr(cfg, k) for k in ("warmup_epochs", "warmup_learning_rate", "warmup_batch", "seed")},
        }
        folder = self.run_dir / "warmup"
        if (folder / "config.json").exists() and (folder / "stamp.json").exists():
            try:
                check_stamp(folder / "stamp.json", stamp, f"the warm-up in {folder}", "rerun with --no-resume")
            except StampMismatch as exc:
                raise ConfigError(str(exc)) from None
            warmed = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
            self.policy = warmed.to(self.device).eval()
            return
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "log.jsonl").open("w") as log:

            def record(line: dict[str, Any]) -> None:
                log.write(json.dumps(line) + "\n")
                log.flush()
                if progress:
                    progress(line)

            warmup.supervised_warmup(
                self.policy,
                self.tokenizer,
                self.template,
                pairs,
                cfg.warmup_epochs,
                cfg.warmup_learning_rate,
                cfg.warmup_batch,
                cfg.seed,
                progress=record,
            )
        self.save_model(folder)
        write_atomically(folder / "stamp.json", json.dumps(stamp, indent=2) + "\n")  # last: the folder is whole

    # -------------------------------------------------------------- one step
    def sample(self, tasks: list[dict[str, Any]], round_: int = 0) -> RolloutBatch:
        """G completions per task, with the token ids the update needs. Row r of prompt p is sampled
        with a seed from (run seed, step, round, prompt, r): a resumed run samples what an
        uninterrupted one would, whatever else shares the batch."""
        from evalkit.generation.hf import chat_text

        cfg = self.cfg
        prompts = [
            chat_text(self.tokenizer, self.template.conversation(self.verifier.prompt(t)), cfg.response_prefix)
            for t in tasks
        ]
        keys = [f"{self.step}:{round_}:{j}:{p}" for p in prompts for j in range(cfg.group_size)]
        batch = self.rollouts.sample(prompts, row_seeds(cfg.seed, keys))
        batch.tasks = [t for t in tasks for _ in range(cfg.group_size)]
        return batch

    def rewards(self, batch: RolloutBatch) -> tuple[np.ndarray, np.ndarray, list[Score]]:
        """Scores -> (rewards, keep mask). ERROR scores are dropped (or zeroed), and always counted."""
        scores = self.verifier.score_batch(batch.texts, batch.tasks, timeout=ITEM_TIMEOUT_SECONDS)
        keep = counted(scores, self.cfg.error_policy)
        if self.cfg.mask_truncated:
            keep &= ~np.asarray(batch.truncated, dtype=bool)
        return rewards_of(scores), keep, scores

    def update(self, parts: list[Part]) -> dict[str, float]:
        """One optimiser step (per `updates_per_batch`) over every part. A step's batch may come in
        several parts (dynamic sampling's refills); the loss is the mean over all their rows (or
        tokens), accumulated part by part and pass by pass. The first pass also measures how far
        the rollout engine's log-probs are from the policy's."""
        import torch

        cfg = self.cfg
        prepared = [self._prepare(part) for part in parts]
        n = sum(p.ids.shape[0] for p in prepared)
        denominator = sum(loss_denominator(p.mask, cfg) for p in prepared)  # the step's, over every pass
        self.policy.train()
        logs: dict[str, float] = {}
        gap = gap_tokens = 0.0
        for update in range(cfg.updates_per_batch):
            self.optimizer.zero_grad()
            total = 0.0
            for p in prepared:
                for rows in p.passes:
                    share = (rows.stop - rows.start) / n
                    measure_gap = update == 0 and p.rollout_logp is not None  # the policy before this step's update
                    with autocast(self.device, self.dtype):
                        logp, entropy, raw_logp = logprob_parts(
                            self.policy,
                            p.ids[rows],
                            p.attention_mask[rows],
                            p.completion_mask[rows],
                            cfg.temperature,
                            group_size=cfg.group_size,
                            with_raw=measure_gap,
                        )
                    if measure_gap:  # the engine's raw log-probs (temperature 1) against the policy's
                        sampled = p.completion_mask[rows, -logp.shape[1] :].float()
                        gap += float(((raw_logp - p.rollout_logp[rows]).abs() * sampled).sum())
                        gap_tokens += float(sampled.sum())
                    old = logp.detach() if p.old_logp is None else p.old_logp[rows]
                    mask = p.mask[rows]
                    loss, info = grpo_loss(
                        logp, old, p.reference_logp[rows], p.advantages[rows], mask, cfg, denominator
                    )
                    info["entropy"] = float((entropy * mask).sum() / mask.sum().clamp(min=1))
                    loss.backward()
                    total += float(loss.detach())
                    for key, value in info.items():
                        logs[key] = logs.get(key, 0.0) + value * share / cfg.updates_per_batch
            logs["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(self.policy.parameters(), cfg.max_grad_norm))
            if update == 0 and gap_tokens:
                logs["rollout_logp_gap"] = gap / gap_tokens
                self._check_gap(logs["rollout_logp_gap"])
            self.optimizer.step()
            logs["loss"] = total
        self.policy.eval()
        return logs

    def _prepare(self, part: Part) -> _Prepared:
        """The part's masks, reference (and, off-policy, old) log-probs and passes, before any update."""
        import torch

        cfg, device, batch = self.cfg, self.device, part.batch
        vocab = self.policy.get_output_embeddings().weight.shape[0]
        ids, attn, cmask = batch.input_ids, batch.attention_mask, batch.completion_mask
        k = completion_width(cmask)
        passes = row_passes(ids.shape[0], k, vocab, cfg.group_size, cfg.grad_accumulation, cfg.logits_budget)
        keep = torch.as_tensor(part.keep, dtype=torch.float32, device=device)
        with torch.no_grad(), autocast(device, self.dtype):
            reference_logp = self._logprobs(self.reference, ids, attn, cmask, passes)
            # one update per batch is on-policy: the old log-probs are the current ones (detached in update)
            old_logp = self._logprobs(self.policy, ids, attn, cmask, passes) if cfg.updates_per_batch > 1 else None
        return _Prepared(
            ids,
            attn,
            cmask,
            cmask[:, -k:].float() * keep[:, None],
            torch.as_tensor(part.advantages, dtype=torch.float32, device=device),
            reference_logp,
            old_logp,
            batch.rollout_logp,
            passes,
        )

    def _logprobs(self, model: Any, ids: Any, attn: Any, cmask: Any, passes: list[slice]) -> Any:
        """The sampled tokens' log-probabilities under `model`, pass by pass (no gradient)."""
        import torch

        cfg = self.cfg
        return torch.cat(
            [sequence_logprobs(model, ids[s], attn[s], cmask[s], cfg.temperature, cfg.group_size) for s in passes]
        )

    def _check_gap(self, gap: float) -> None:
        limit = self.cfg.rollout_gap_limit
        if limit is not None and gap > limit:
            raise RolloutDrift(
                f"step {self.step + 1}: the rollout engine's log-probs differ from the policy's by {gap:.4f} "
                f"nats a token (rollout_gap_limit {limit}): it is not sampling from the policy (a lost weight "
                "sync, or an engine in another dtype)"
            )

    def train_step(self) -> dict[str, Any]:
        """Sample, score, compute advantages, update, sync the rollout engine. With dynamic sampling,
        groups without reward spread are dropped and fresh prompts sampled until `batch_prompts`
        groups with a signal are in hand (or `max_sampling_rounds` generations were spent; the step
        then trains on what it has)."""
        cfg = self.cfg
        reset_peak_memory(self.device)
        start = time.perf_counter()
        rounds = cfg.max_sampling_rounds if cfg.dynamic_sampling else 1
        parts: list[Part] = []
        sampled: list[Sampled] = []
        kept_groups = dropped_groups = 0
        timers = dict.fromkeys(("generate_s", "score_s", "update_s", "sync_s"), 0.0)
        for round_ in range(rounds):
            tasks = self.prompts.draw(self.rng, self.tasks, cfg.batch_prompts)
            t0 = time.perf_counter()
            batch = self.sample(tasks, round_)
            t1 = time.perf_counter()
            rewards, keep, scores = self.rewards(batch)
            self.prompts.record(tasks, np.asarray([s.correct for s in scores]), cfg.group_size)
            timers["generate_s"] += t1 - t0
            timers["score_s"] += time.perf_counter() - t1
            sampled.append(Sampled(batch, rewards, scores))
            scored = counted(scores, cfg.error_policy)
            adv = advantages(rewards, cfg.group_size, cfg, self.stats, scored)
            if cfg.dynamic_sampling:
                signal = group_has_signal(rewards, scored, cfg.group_size)
                chosen = np.flatnonzero(signal)[: cfg.batch_prompts - kept_groups]
                dropped_groups += int((~signal).sum())
                if chosen.size:
                    rows = (chosen[:, None] * cfg.group_size + np.arange(cfg.group_size)).reshape(-1)
                    parts.append(Part(batch.rows(rows), adv[rows] * keep[rows], keep[rows]))
                    kept_groups += int(chosen.size)
                if kept_groups >= cfg.batch_prompts:
                    break
            else:
                parts.append(Part(batch, adv * keep, keep))
        t2 = time.perf_counter()
        logs = self.update(parts) if parts else {}
        t3 = time.perf_counter()
        self.rollouts.sync(self.policy)  # the next rollouts sample from the updated weights
        timers["update_s"], timers["sync_s"] = t3 - t2, time.perf_counter() - t3
        self.step += 1
        line = self._log_line(sampled, logs)
        tokens = sum(round_.batch.tokens for round_ in sampled)
        line.update(
            timers,
            step_s=time.perf_counter() - start,
            tokens_per_s=tokens / max(timers["generate_s"], 1e-9),
            peak_memory_bytes=peak_memory_bytes(self.device),
        )
        if cfg.dynamic_sampling:
            line.update(sampling_rounds=len(sampled), groups_kept=kept_groups, groups_dropped=dropped_groups)
        return line

    def _log_line(self, sampled: list[Sampled], logs: dict[str, float]) -> dict[str, Any]:
        """The step's JSONL line, over everything it sampled (every round of dynamic sampling)."""
        rewards = np.concatenate([round_.rewards for round_ in sampled])
        scores = [s for round_ in sampled for s in round_.scores]
        lengths = np.asarray([n for round_ in sampled for n in round_.batch.lengths])
        truncated = [t for round_ in sampled for t in round_.batch.truncated]
        components: dict[str, list[float]] = {}
        for s in scores:
            for k, v in s.components.items():
                components.setdefault(k, []).append(v)
        groups = rewards.reshape(-1, self.cfg.group_size)
        verdicts = verdict_counts(scores)
        return {
            "step": self.step,
            "reward_mean": float(rewards.mean()),
            "reward_std": float(rewards.std()),
            # groups whose rewards are all equal give zero advantage: no learning signal from them
            "frac_reward_zero_std": float(np.mean(groups.std(axis=1) < 1e-9)),
            "components": {k: float(np.mean(v)) for k, v in components.items()},
            "accuracy": verdicts["correct"] / len(scores),
            "invalid": verdicts["invalid"] / len(scores),
            "verdicts": verdicts,
            "incompletion": float(np.mean(truncated)),
            "error_rate": float(np.mean([s.is_error for s in scores])),
            "length_mean": float(lengths.mean()),
            "length_p50": float(np.median(lengths)),
            "length_max": int(lengths.max()),
            "lengths": lengths.tolist(),
            "momentum": self.stats.momentum(self.cfg),
            "running_mean": self.stats.mean,
            "running_std": self.stats.std,
            **logs,
        }

    # -------------------------------------------------------------- evaluation, checkpoints
    def evaluate(self) -> dict[str, float]:
        """Held-out evaluation through the evaluator's pipeline, with the current policy."""
        from evalkit.generation.hf import TransformersBackend
        from evalkit.metrics import summarise
        from evalkit.pipeline import evaluate, load_samples

        backend = TransformersBackend.from_model(
            self.policy, self.tokenizer, name=f"policy@{self.step}", response_prefix=self.cfg.response_prefix
        )
        out = self.run_dir / "eval" / f"step-{self.step:05d}"
        sampling = self.cfg.eval_sampling()
        with autocast(self.device, self.dtype):
            evaluate(self.verifier, self.eval_tasks, backend, sampling, out, template=self.template)
        summary = summarise(load_samples(out))
        return {
            "eval_step": self.step,
            "eval_reward": summary.mean_reward,
            "eval_reward_low": summary.reward_low,
            "eval_reward_high": summary.reward_high,
            "eval_accuracy": summary.accuracy,
            "eval_accuracy_low": summary.accuracy_low,
            "eval_accuracy_high": summary.accuracy_high,
            "eval_invalid": summary.verdicts["invalid"] / max(1, summary.samples),
            "eval_samples": summary.samples,
        }

    def save(self) -> Path:
        import torch

        path = self.run_dir / "checkpoint.pt"
        tmp = path.with_suffix(".tmp")
        torch.save(
            {
                "policy": self.policy.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "stats": asdict(self.stats),
                "step": self.step,
                "rng": self.rng.getstate(),
                "prompts": self.prompts.state(),
                "torch_rng": torch.get_rng_state(),
                "numpy_rng": np.random.get_state(),
                "config": asdict(self.cfg),
            },
            tmp,
        )
        tmp.replace(path)
        return path

    def load(self) -> bool:
        import torch

        path = self.run_dir / "checkpoint.pt"
        if not path.exists():
            return False
        state = torch.load(path, weights_only=False, map_location=self.device)
        self.policy.load_state_dict(state["policy"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.stats = RewardStats(**state["stats"])
        self.step = state["step"]
        self.rng.setstate(state["rng"])
        if "prompts" in state:  # checkpoints from before the curriculum drew uniformly
            self.prompts = PromptSampler.from_state(state["prompts"])
        torch.set_rng_state(state["torch_rng"].cpu())
        np.random.set_state(state["numpy_rng"])
        self.rollouts.sync(self.policy)
        return True

    def save_model(self, folder: Path) -> Path:
        """The trained policy as a model folder anyone can load: `AutoModelForCausalLM.from_pretrained(folder)`."""
        self.policy.save_pretrained(folder)
        self.tokenizer.save_pretrained(folder)
        return folder

    def close(self) -> None:
        self.verifier.close()
        rollouts = getattr(self, "rollouts", None)
        if rollouts is not None:
            rollouts.close()
