"""A thin GRPO loop that trains a transformers model on any verifier's rewards.

One step: sample G completions for each of B prompts; score them with the verifier (in worker
processes); turn rewards into advantages; take `updates_per_batch` gradient steps on the clipped
surrogate minus a k3 KL penalty to the frozen reference model. The seed report's changes are
options: momentum-smoothed reward statistics, and its hyper-parameters as defaults. Sampling and the
update pass each group's prompt through the model once and share it with the group's G completions.
An optional supervised warm-up on worked solutions runs before step 1 (evalkit/warmup.py).

Advantages (`advantage=`), and what an all-equal group gets under each:
- "group": (r - mean_g) / (std_g + 1e-4) within each prompt's group (population std): all-equal -> 0.
- "dr_grpo": r - mean_g (Dr. GRPO, no std): all-equal -> 0.
- "momentum" (the seed): batch mean and std smoothed across steps, mean <- m*mean + (1-m)*mean(r)
  and likewise std, with m rising from `momentum_start` by `momentum_step` per update up to
  `momentum_max` (0.2); A = (r - mean) / (std + 1e-4). All-equal groups are NOT zeroed: a group
  that beats the running mean is pushed up. The first step uses the batch statistics as they are.
Loss aggregation: "sequence" (mean over each completion's tokens, then over completions: the
seed's formula) or "token" (all tokens of the batch weigh the same).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

import verifiers
from evalkit.curriculum import SAMPLINGS, PromptSampler
from evalkit.pipeline import PromptTemplate, shot_pair
from verifiers import Score, verdict_counts
from verifiers.score import ITEM_TIMEOUT_SECONDS

ADVANTAGES = ("momentum", "group", "dr_grpo")
EPS = 1e-4


class ConfigError(ValueError):
    """A config the run cannot start from (a malformed example, a leak of the held-out tasks):
    raised before the model loads, and shown by `evalkit grpo` as one line."""


@dataclass
class GRPOConfig:
    verifier: str = "game24"
    verifier_config: dict[str, Any] = field(default_factory=dict)
    model: str | None = None  # None: the packaged SmolLM2-135M-Instruct
    split: str = "train"
    steps: int = 100
    batch_prompts: int = 12  # B
    group_size: int = 8  # G
    learning_rate: float = 2e-6
    beta: float = 0.01  # k3 KL coefficient
    epsilon: float = 0.2
    epsilon_high: float | None = None  # DAPO's clip-higher; None: same as epsilon
    temperature: float = 0.7
    top_p: float = 0.9
    max_new_tokens: int = 1024
    response_prefix: str = ""  # text the assistant turn starts with (e.g. "<think>" or "Answer:")
    # worked examples shown before every prompt, in training and held-out evaluation alike: records
    # as in `evalkit eval --few-shot` files (task fields or a "prompt", and a "completion")
    few_shot: list[dict[str, Any]] = field(default_factory=list)
    # a supervised warm-up before the first step (evalkit/warmup.py): worked solutions of training
    # tasks, as a JSONL path or a list of few_shot-style records; 0 epochs: none
    warmup_examples: str | list[dict[str, Any]] = field(default_factory=list)
    warmup_epochs: int = 0
    warmup_learning_rate: float = 5e-5
    warmup_batch: int = 16
    advantage: str = "momentum"
    momentum_start: float = 0.0
    momentum_step: float = 0.02
    momentum_max: float = 0.2
    loss_aggregation: str = "sequence"  # or "token"
    updates_per_batch: int = 1
    grad_accumulation: int = 1
    max_grad_norm: float = 1.0
    mask_truncated: bool = False
    # DAPO's dynamic sampling: groups whose rewards do not vary (no learning signal) are dropped and
    # the batch is refilled with fresh prompts, up to `max_sampling_rounds` generations per step
    dynamic_sampling: bool = False
    max_sampling_rounds: int = 4
    # "failures": prompts the policy still fails are drawn more often (evalkit/curriculum.py)
    prompt_sampling: str = "uniform"
    error_policy: str = "drop"  # or "zero": what an ERROR score (a verifier failure) becomes
    eval_every: int = 10
    eval_tasks: int = 16
    eval_samples: int = 2
    eval_temperature: float | None = None  # None: the training temperature; 0: greedy
    save_every: int = 10
    seed: int = 0
    threads: int | None = None
    tensorboard: bool = False  # also log scalars to run_dir/tensorboard (log.jsonl stays the record)

    def __post_init__(self) -> None:
        """Checked however the config is built (Python, JSON, the CLI): a typo never runs another method."""
        if self.advantage not in ADVANTAGES:
            raise ValueError(f"advantage must be one of {ADVANTAGES}, got {self.advantage!r}")
        if self.loss_aggregation not in ("sequence", "token"):
            raise ValueError(f"loss_aggregation must be 'sequence' or 'token', got {self.loss_aggregation!r}")
        if self.prompt_sampling not in SAMPLINGS:
            raise ValueError(f"prompt_sampling must be one of {SAMPLINGS}, got {self.prompt_sampling!r}")
        if self.error_policy not in ("drop", "zero"):
            raise ValueError(f"error_policy must be 'drop' or 'zero', got {self.error_policy!r}")
        positive = (
            "steps",
            "batch_prompts",
            "group_size",
            "max_new_tokens",
            "updates_per_batch",
            "grad_accumulation",
            "max_sampling_rounds",
            "warmup_batch",
        )
        for name in (*positive, "save_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not isinstance(self.verifier_config, dict):
            raise ValueError(f"verifier_config must be a dict, got {type(self.verifier_config).__name__}")
        if self.eval_temperature is not None and not (
            isinstance(self.eval_temperature, (int, float)) and self.eval_temperature >= 0
        ):
            raise ValueError(f"eval_temperature must be None or a number >= 0, got {self.eval_temperature!r}")
        if not isinstance(self.few_shot, list) or not all(isinstance(r, dict) for r in self.few_shot):
            raise ValueError("few_shot must be a list of JSON objects (task fields or a prompt, and a completion)")
        if isinstance(self.warmup_epochs, bool) or not isinstance(self.warmup_epochs, int) or self.warmup_epochs < 0:
            raise ValueError(f"warmup_epochs must be an integer >= 0, got {self.warmup_epochs!r}")
        if self.warmup_epochs and not self.warmup_examples:
            raise ValueError("warmup_epochs needs warmup_examples (a JSONL path or a list of records)")
        if not isinstance(self.warmup_examples, (str, list)):
            raise ValueError("warmup_examples must be a JSONL path or a list of records")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GRPOConfig":
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown GRPO config key(s) {unknown}")
        return cls(**data)


# ---------------------------------------------------------------------------------- advantages
@dataclass
class RewardStats:
    """Running reward statistics for the momentum advantage (saved in checkpoints)."""

    mean: float | None = None
    std: float | None = None
    updates: int = 0

    def momentum(self, cfg: GRPOConfig) -> float:
        return min(cfg.momentum_max, cfg.momentum_start + cfg.momentum_step * self.updates)

    def update(self, rewards: np.ndarray, cfg: GRPOConfig) -> tuple[float, float]:
        """Fold in the batch's rewards; NaN (a dropped ERROR) is left out."""
        scored = rewards[np.isfinite(rewards)]
        if not scored.size:  # nothing scored this step: the statistics stand
            return (self.mean or 0.0), (self.std or 0.0)
        batch_mean, batch_std = float(scored.mean()), float(scored.std())
        if self.mean is None or self.std is None:
            self.mean, self.std = batch_mean, batch_std
        else:
            m = self.momentum(cfg)
            self.mean = self.mean * m + batch_mean * (1 - m)
            self.std = self.std * m + batch_std * (1 - m)
        self.updates += 1
        return self.mean, self.std


def advantages(
    rewards: np.ndarray, group_size: int, cfg: GRPOConfig, stats: RewardStats, scored: np.ndarray | None = None
) -> np.ndarray:
    """Advantages for rewards laid out group after group (B groups of G). Items not `scored` (an
    ERROR under the "drop" policy) leave the means and stds, as in TRL's nan-aware statistics, and
    get advantage 0: [1, 1, 0, error] gives [0.707, 0.707, -1.414, 0], not [1, 1, -1, 0]."""
    values = np.asarray(rewards, dtype=float).copy()
    if scored is not None:
        values[~np.asarray(scored, dtype=bool)] = np.nan
    groups = values.reshape(-1, group_size)
    with warnings.catch_warnings():  # an all-dropped group: its mean is NaN, and so its advantages (0 below)
        warnings.simplefilter("ignore", RuntimeWarning)
        if cfg.advantage == "group":
            adv = (groups - np.nanmean(groups, axis=1, keepdims=True)) / (
                np.nanstd(groups, axis=1, keepdims=True) + EPS
            )
        elif cfg.advantage == "dr_grpo":
            adv = groups - np.nanmean(groups, axis=1, keepdims=True)
        else:
            mean, std = stats.update(values, cfg)
            adv = (groups - mean) / (std + EPS)
    return np.nan_to_num(adv.reshape(-1), nan=0.0)


def group_has_signal(rewards: np.ndarray, scored: np.ndarray, group_size: int) -> np.ndarray:
    """Per group: True when its scored rewards differ (a group with one reward for all gives every
    member advantage 0 under group normalisation: nothing to learn from)."""
    values = np.where(np.asarray(scored, dtype=bool), np.asarray(rewards, dtype=float), np.nan).reshape(-1, group_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        spread = np.nanmax(values, axis=1) - np.nanmin(values, axis=1)
    return np.nan_to_num(spread, nan=0.0) > 1e-9


def take_rows(batch: dict[str, Any], rows: np.ndarray) -> dict[str, Any]:
    """The batch restricted to `rows` (tensors indexed, lists picked), for the groups kept."""
    import torch

    index = torch.as_tensor(rows, dtype=torch.long)
    out: dict[str, Any] = {}
    for key, value in batch.items():
        out[key] = value[index] if isinstance(value, torch.Tensor) else [value[int(r)] for r in rows]
    return out


# ---------------------------------------------------------------------------------- the loss
def completion_width(completion_mask: Any) -> int:
    """How many trailing columns hold completion tokens (the prompt is left-padded before them)."""
    return int(completion_mask.shape[1] - completion_mask.any(0).float().argmax())


def sequence_logprobs(
    model: Any,
    input_ids: Any,
    attention_mask: Any,
    completion_mask: Any,
    temperature: float,
    with_entropy: bool = False,
    group_size: int = 1,
) -> Any:
    """Log-probabilities of the completion tokens under `model` (temperature-scaled, as sampled),
    shape [batch, completion_width]; with `with_entropy`, also each position's entropy (detached),
    the number that shows a policy collapsing. Logits are computed for the completion positions
    only: the vocabulary projection of the prompt positions would be most of the work and is never used.
    Rows come `group_size` to a prompt (a GRPO group): see `completion_logits`."""
    import torch

    k = completion_width(completion_mask)
    logits = completion_logits(model, input_ids, attention_mask, k, group_size) / max(temperature, 1e-5)
    all_logp = torch.log_softmax(logits.float(), dim=-1)
    logp = all_logp.gather(-1, input_ids[:, -k:, None]).squeeze(-1) * completion_mask[:, -k:]
    if not with_entropy:
        return logp
    with torch.no_grad():
        entropy = -(all_logp.exp() * all_logp).sum(-1) * completion_mask[:, -k:]
    return logp, entropy


def completion_logits(model: Any, input_ids: Any, attention_mask: Any, k: int, group_size: int = 1) -> Any:
    """The logits that predict the last `k` tokens of each row, shape [batch, k, vocab].

    Positions count real tokens only (a left-padded prompt starts at 0), as `generate` counts them,
    so a row is scored at the positions it was sampled at, whatever its padding.
    Where each run of `group_size` rows shares one prompt (as GRPO samples them), the prompt goes
    through the model once per group and its keys and values are repeated for the group's
    completions: the same numbers and gradients as a full pass per row, without paying for the
    prompt G times (with a few worked examples in the prompt, most of the update's cost)."""
    import torch

    positions = token_positions(attention_mask)
    rows, width = input_ids.shape
    p = width - k
    if (
        group_size > 1
        and p > 0
        and rows % group_size == 0
        and _prompts_shared(input_ids, attention_mask, p, group_size)
    ):
        one = slice(None, None, group_size)
        prompt = _prompt_pass(model, input_ids[one, :p], attention_mask[one, :p], group_size)
        rest = model(
            input_ids=input_ids[:, p:],
            attention_mask=attention_mask,
            position_ids=positions[:, p:],
            past_key_values=prompt.past_key_values,
            use_cache=True,
            logits_to_keep=k,
        )
        return torch.cat([prompt.logits.repeat_interleave(group_size, 0), rest.logits[:, :-1]], 1)
    out = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions, logits_to_keep=k + 1)
    return out.logits[:, :-1]


def generate_groups(model: Any, input_ids: Any, attention_mask: Any, group_size: int, **sampling: Any) -> Any:
    """`group_size` sampled continuations of each prompt, rows grouped by prompt (as
    `num_return_sequences` gives them). Each prompt goes through the model once and its keys and
    values are repeated for the group: `generate` would otherwise run every prompt G times, which
    with worked examples in the prompt is most of the sampling time (same tokens, 2.8x faster on
    4 prompts x 8)."""
    import torch

    ids = input_ids.repeat_interleave(group_size, 0)
    mask = attention_mask.repeat_interleave(group_size, 0)
    with torch.no_grad():
        if input_ids.shape[1] < 2:
            return model.generate(input_ids=ids, attention_mask=mask, **sampling)
        # all but the last prompt token: `generate` runs the tokens its cache does not hold yet
        cache = _prompt_pass(model, input_ids[:, :-1], attention_mask[:, :-1], group_size).past_key_values
        return model.generate(input_ids=ids, attention_mask=mask, past_key_values=cache, **sampling)


def token_positions(attention_mask: Any) -> Any:
    """Each token's position counting real tokens only (a left-padded row starts at 0), as `generate` counts them."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)


def _prompt_pass(model: Any, input_ids: Any, attention_mask: Any, group_size: int) -> Any:
    """One pass over each prompt (its last position's logits kept), its keys and values then
    repeated `group_size` times in place, ready for the group's rows to continue from."""
    out = model(
        input_ids=input_ids,
        attention_mask=attention_mask,
        position_ids=token_positions(attention_mask),
        use_cache=True,
        logits_to_keep=1,
    )
    out.past_key_values.batch_repeat_interleave(group_size)
    return out


def _prompts_shared(input_ids: Any, attention_mask: Any, p: int, group_size: int) -> bool:
    """Whether every run of `group_size` rows has one prompt (its first `p` tokens and their mask)."""
    for tensor in (input_ids[:, :p], attention_mask[:, :p]):
        groups = tensor.reshape(-1, group_size, p)
        if not bool((groups == groups[:, :1]).all()):
            return False
    return True


def grpo_loss(
    logp: Any, old_logp: Any, ref_logp: Any, adv: Any, mask: Any, cfg: GRPOConfig
) -> tuple[Any, dict[str, float]]:
    """Clipped surrogate minus beta * k3 KL; `mask` marks completion tokens that count."""
    import torch

    ratio = torch.exp(logp - old_logp)
    high = cfg.epsilon_high if cfg.epsilon_high is not None else cfg.epsilon
    clipped = torch.clamp(ratio, 1 - cfg.epsilon, 1 + high)
    surrogate = torch.minimum(ratio * adv[:, None], clipped * adv[:, None])
    log_ref_ratio = ref_logp - logp
    kl = torch.exp(log_ref_ratio) - log_ref_ratio - 1  # k3: unbiased, always >= 0
    per_token = -(surrogate - cfg.beta * kl)
    if cfg.loss_aggregation == "sequence":
        per_seq = (per_token * mask).sum(1) / mask.sum(1).clamp(min=1)
        weights = (mask.sum(1) > 0).float()
        loss = (per_seq * weights).sum() / weights.sum().clamp(min=1)
    else:
        loss = (per_token * mask).sum() / mask.sum().clamp(min=1)
    n = mask.sum().clamp(min=1)
    kl, ratio = kl.detach(), ratio.detach()
    clip_frac = (((ratio < 1 - cfg.epsilon) | (ratio > 1 + high)).float() * mask).sum() / n
    return loss, {"kl": float((kl * mask).sum() / n), "clip_fraction": float(clip_frac)}


# ---------------------------------------------------------------------------------- the trainer
class GRPOTrainer:
    def __init__(
        self,
        cfg: GRPOConfig,
        run_dir: Path,
        policy: Any = None,
        tokenizer: Any = None,
        warmup_progress: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        import copy

        import torch

        from evalkit.models import load_transformers

        self.cfg, self.run_dir = cfg, run_dir
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        self.verifier = verifiers.get(cfg.verifier, **cfg.verifier_config)
        self.template = PromptTemplate(shots=self._shots(), response_prefix=cfg.response_prefix)
        warmup_pairs = self._warmup_pairs() if cfg.warmup_epochs else []
        if policy is None:
            policy, tokenizer = load_transformers(cfg.model)
        self.policy, self.tokenizer = policy, tokenizer
        if cfg.warmup_epochs:
            self._warm_up(warmup_pairs, warmup_progress)
        self.reference = copy.deepcopy(self.policy).eval()
        for p in self.reference.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(self.policy.parameters(), lr=cfg.learning_rate)
        self.stats = RewardStats()
        self.step = 0
        self.tasks = self.verifier.tasks(cfg.split, seed=cfg.seed)
        self.eval_tasks = self.verifier.tasks("test", limit=cfg.eval_tasks, seed=cfg.seed)
        self.rng = random.Random(cfg.seed)
        self.prompts = PromptSampler(cfg.prompt_sampling)
        torch.manual_seed(cfg.seed)

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
            self.policy = AutoModelForCausalLM.from_pretrained(folder).eval()
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
    def sample(self, tasks: list[dict[str, Any]]) -> dict[str, Any]:
        """G completions per task, with the token ids needed for the update."""
        import torch

        from evalkit.generation.hf import chat_text

        cfg, tok = self.cfg, self.tokenizer
        texts = [
            chat_text(tok, self.template.conversation(self.verifier.prompt(t)), cfg.response_prefix) for t in tasks
        ]
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        self.policy.eval()
        out = generate_groups(
            self.policy,
            enc["input_ids"],
            enc["attention_mask"],
            cfg.group_size,
            do_sample=True,
            temperature=cfg.temperature,
            top_p=cfg.top_p,
            max_new_tokens=cfg.max_new_tokens,
            pad_token_id=tok.pad_token_id,
        )
        prompt_len = enc["input_ids"].shape[1]
        completion = out[:, prompt_len:]
        is_end = completion == tok.eos_token_id
        finished = is_end.any(1)
        first_end = torch.where(
            finished, is_end.float().argmax(1), torch.full_like(finished, completion.shape[1], dtype=torch.long)
        )
        positions = torch.arange(completion.shape[1])[None, :]
        completion_mask = (positions <= first_end[:, None]).long()  # up to and including the end token
        attention = torch.cat([enc["attention_mask"].repeat_interleave(cfg.group_size, 0), completion_mask], 1)
        texts = [
            cfg.response_prefix + tok.decode(row[: int(m.sum())], skip_special_tokens=True)
            for row, m in zip(completion, completion_mask)
        ]
        full_mask = torch.cat(
            [torch.zeros_like(enc["attention_mask"]).repeat_interleave(cfg.group_size, 0), completion_mask], 1
        )
        return {
            "input_ids": out,
            "attention_mask": attention,
            "completion_mask": full_mask,
            "texts": texts,
            "lengths": completion_mask.sum(1).tolist(),
            "truncated": (~finished).tolist(),
            "tasks": [t for t in tasks for _ in range(cfg.group_size)],
        }

    def rewards(self, batch: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, list[Score]]:
        """Scores -> (rewards, keep mask). ERROR scores are dropped (or zeroed), and always counted."""
        scores = self.verifier.score_batch(batch["texts"], batch["tasks"], timeout=ITEM_TIMEOUT_SECONDS)
        rewards = np.asarray([0.0 if s.is_error else s.reward for s in scores], dtype=float)
        keep = np.asarray([not (s.is_error and self.cfg.error_policy == "drop") for s in scores], dtype=bool)
        if self.cfg.mask_truncated:
            keep &= ~np.asarray(batch["truncated"], dtype=bool)
        return rewards, keep, scores

    def update(self, parts: list[tuple[dict[str, Any], np.ndarray, np.ndarray]]) -> dict[str, float]:
        """One optimiser step (per `updates_per_batch`) over every part: (batch, advantages, keep).
        A step's batch may come in several parts (dynamic sampling's refills); the loss is the
        mean over all their rows, accumulated part by part and micro-batch by micro-batch."""
        import torch

        cfg = self.cfg
        prepared = []
        for batch, adv, keep in parts:
            ids, attn, cmask = batch["input_ids"], batch["attention_mask"], batch["completion_mask"]
            k = completion_width(cmask)
            mask = cmask[:, -k:].float() * torch.as_tensor(keep, dtype=torch.float32)[:, None]
            with torch.no_grad():
                ref_logp = sequence_logprobs(
                    self.reference, ids, attn, cmask, cfg.temperature, group_size=cfg.group_size
                )
                # one update per batch is on-policy: the old log-probs are the current ones (detached below)
                old_logp = (
                    sequence_logprobs(self.policy, ids, attn, cmask, cfg.temperature, group_size=cfg.group_size)
                    if cfg.updates_per_batch > 1
                    else None
                )
            prepared.append((ids, attn, cmask, mask, torch.as_tensor(adv, dtype=torch.float32), ref_logp, old_logp))
        n = sum(p[0].shape[0] for p in prepared)
        self.policy.train()
        logs: dict[str, float] = {}
        for _ in range(cfg.updates_per_batch):
            self.optimizer.zero_grad()
            total = 0.0
            for ids, attn, cmask, mask, adv_t, ref_logp, old_logp in prepared:
                rows = ids.shape[0]
                micro = math.ceil(rows / cfg.grad_accumulation)
                for start in range(0, rows, micro):
                    part = slice(start, start + micro)
                    share = min(micro, rows - start) / n
                    logp, entropy = sequence_logprobs(
                        self.policy,
                        ids[part],
                        attn[part],
                        cmask[part],
                        cfg.temperature,
                        with_entropy=True,
                        group_size=cfg.group_size,
                    )
                    old = logp.detach() if old_logp is None else old_logp[part]
                    loss, info = grpo_loss(logp, old, ref_logp[part], adv_t[part], mask[part], cfg)
                    info["entropy"] = float((entropy * mask[part]).sum() / mask[part].sum().clamp(min=1))
                    (loss * share).backward()
                    total += float(loss.detach()) * share
                    for key, value in info.items():
                        logs[key] = logs.get(key, 0.0) + value * share / cfg.updates_per_batch
            logs["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(self.policy.parameters(), cfg.max_grad_norm))
            self.optimizer.step()
            logs["loss"] = total
        self.policy.eval()
        return logs

    def train_step(self) -> dict[str, Any]:
        """Sample, score, compute advantages, update. With dynamic sampling, groups without reward
        spread are dropped and fresh prompts sampled until `batch_prompts` groups with a signal are
        in hand (or `max_sampling_rounds` generations were spent; the step then trains on what it has)."""
        cfg = self.cfg
        rounds = cfg.max_sampling_rounds if cfg.dynamic_sampling else 1
        parts: list[tuple[dict[str, Any], np.ndarray, np.ndarray]] = []
        sampled: list[tuple[dict[str, Any], np.ndarray, list[Score]]] = []
        kept_groups = dropped_groups = 0
        gen_s = score_s = 0.0
        for _ in range(rounds):
            tasks = self.prompts.draw(self.rng, self.tasks, cfg.batch_prompts)
            t0 = time.perf_counter()
            batch = self.sample(tasks)
            t1 = time.perf_counter()
            rewards, keep, scores = self.rewards(batch)
            self.prompts.record(tasks, np.asarray([s.correct for s in scores]), cfg.group_size)
            gen_s, score_s = gen_s + t1 - t0, score_s + time.perf_counter() - t1
            sampled.append((batch, rewards, scores))
            scored = np.asarray([not (s.is_error and cfg.error_policy == "drop") for s in scores], dtype=bool)
            adv = advantages(rewards, cfg.group_size, cfg, self.stats, scored)
            if cfg.dynamic_sampling:
                signal = group_has_signal(rewards, scored, cfg.group_size)
                wanted = cfg.batch_prompts - kept_groups
                chosen = np.flatnonzero(signal)[:wanted]
                dropped_groups += int((~signal).sum())
                if chosen.size:
                    rows = (chosen[:, None] * cfg.group_size + np.arange(cfg.group_size)).reshape(-1)
                    parts.append((take_rows(batch, rows), adv[rows] * keep[rows], keep[rows]))
                    kept_groups += int(chosen.size)
                if kept_groups >= cfg.batch_prompts:
                    break
            else:
                parts.append((batch, adv * keep, keep))
        t2 = time.perf_counter()
        logs = self.update(parts) if parts else {}
        update_s = time.perf_counter() - t2
        self.step += 1
        line = self._log_line(sampled, logs, gen_s, score_s, update_s)
        if cfg.dynamic_sampling:
            line.update(sampling_rounds=len(sampled), groups_kept=kept_groups, groups_dropped=dropped_groups)
        return line

    def _log_line(
        self,
        sampled: list[tuple[dict[str, Any], np.ndarray, list[Score]]],
        logs: dict[str, float],
        gen_s: float,
        score_s: float,
        update_s: float,
    ) -> dict[str, Any]:
        """The step's JSONL line, over everything it sampled (every round of dynamic sampling)."""
        rewards = np.concatenate([r for _, r, _ in sampled])
        scores = [s for _, _, batch_scores in sampled for s in batch_scores]
        lengths = np.asarray([n for batch, _, _ in sampled for n in batch["lengths"]])
        truncated = [t for batch, _, _ in sampled for t in batch["truncated"]]
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
            "generate_s": gen_s,
            "score_s": score_s,
            "update_s": update_s,
        }

    # -------------------------------------------------------------- evaluation, checkpoints
    def evaluate(self) -> dict[str, float]:
        """Held-out evaluation through the evaluator's pipeline, with the current policy."""
        from evalkit.generation import Sampling
        from evalkit.generation.hf import TransformersBackend
        from evalkit.metrics import summarise
        from evalkit.pipeline import evaluate, load_samples

        backend = TransformersBackend.from_model(
            self.policy, self.tokenizer, name=f"policy@{self.step}", response_prefix=self.cfg.response_prefix
        )
        out = self.run_dir / "eval" / f"step-{self.step:05d}"
        sampling = Sampling(
            n=self.cfg.eval_samples,
            temperature=self.cfg.temperature if self.cfg.eval_temperature is None else self.cfg.eval_temperature,
            top_p=self.cfg.top_p,
            max_tokens=self.cfg.max_new_tokens,
            seed=self.cfg.seed,
        )
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
        state = torch.load(path, weights_only=False)
        self.policy.load_state_dict(state["policy"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.stats = RewardStats(**state["stats"])
        self.step = state["step"]
        self.rng.setstate(state["rng"])
        if "prompts" in state:  # checkpoints from before the curriculum drew uniformly
            self.prompts = PromptSampler.from_state(state["prompts"])
        torch.set_rng_state(state["torch_rng"])
        np.random.set_state(state["numpy_rng"])
        return True

    def save_model(self, folder: Path) -> Path:
        """The trained policy as a model folder anyone can load: `AutoModelForCausalLM.from_pretrained(folder)`."""
        self.policy.save_pretrained(folder)
        self.tokenizer.save_pretrained(folder)
        return folder

    def close(self) -> None:
        self.verifier.close()


def train(
    cfg: GRPOConfig,
    run_dir: Path,
    resume: bool = True,
    progress: Callable[[int], None] | None = None,
    warmup_progress: Callable[[dict[str, Any]], None] | None = None,
) -> Path:
    """Run (or resume) training; a JSONL line per step in run_dir/log.jsonl, then the plots.
    `progress` gets each finished step, `warmup_progress` each warm-up epoch's log line."""
    from evalkit.grpo_plots import plot_run
    from evalkit.jsonl import JsonlWriter

    run_dir.mkdir(parents=True, exist_ok=True)
    if not resume and (run_dir / "warmup").exists():
        shutil.rmtree(run_dir / "warmup")  # starting over starts the warm-up over too
    (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=2) + "\n")
    trainer = GRPOTrainer(cfg, run_dir, warmup_progress=warmup_progress)
    if resume and trainer.load() and progress:
        progress(trainer.step)
    log_path = run_dir / "log.jsonl"
    _truncate_log(log_path, trainer.step)
    board = _tensorboard(run_dir) if cfg.tensorboard else None
    try:
        with JsonlWriter(log_path) as log:

            def record(line: dict[str, Any]) -> None:
                log.write(line)
                if board is not None:
                    step = line.get("step", line.get("eval_step", 0))
                    for key, value in line.items():
                        if isinstance(value, (int, float)) and key not in ("step", "eval_step"):
                            board.add_scalar(key, value, step)
                    board.flush()

            if trainer.step == 0 and cfg.eval_every:
                record(trainer.evaluate())
                log.flush()
            while trainer.step < cfg.steps:
                record(trainer.train_step())
                if cfg.eval_every and trainer.step % cfg.eval_every == 0:
                    record(trainer.evaluate())
                if trainer.step % cfg.save_every == 0 or trainer.step == cfg.steps:
                    trainer.save()
                log.flush()
                if progress:
                    progress(trainer.step)
        trainer.save_model(run_dir / "model")
    finally:
        trainer.close()
        if board is not None:
            board.close()
    plot_run(run_dir)
    return run_dir


def _tensorboard(run_dir: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise ValueError("tensorboard=true needs the tensorboard package: pip install tensorboard") from None
    return SummaryWriter(str(run_dir / "tensorboard"))


def _truncate_log(path: Path, step: int) -> None:
    """On resume, drop log lines after the checkpoint's step (they will be redone)."""
    if not path.exists():
        return
    keep = []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("step", record.get("eval_step", 0)) <= step:
            keep.append(line)
    path.write_text("".join(x + "\n" for x in keep))
