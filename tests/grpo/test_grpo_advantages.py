"""Advantages and the loss on hand-computed examples."""

import numpy as np
import pytest
import torch

from evalkit.grpo import GRPOConfig, RewardStats, advantages, grpo_loss


def test_group_normalisation_and_all_equal_groups():
    cfg = GRPOConfig(advantage="group")
    r = np.array([1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5])
    adv = advantages(r, 4, cfg, RewardStats())
    a = 0.5 / (0.5 + 1e-4)  # mean 0.5, population std 0.5
    assert adv[:4] == pytest.approx([a, -a, -a, a])
    assert adv[4:] == pytest.approx([0, 0, 0, 0])  # an all-equal group teaches nothing


def test_a_dropped_error_leaves_the_group_statistics():
    """[1, 1, 0, ERROR] under the "drop" policy: the ERROR is out of the mean and std (TRL's
    nan-aware statistics) and gets 0; scoring it as 0.0 would give [1, 1, -1, 0]."""
    rewards, scored = np.array([1.0, 1.0, 0.0, 0.0]), np.array([True, True, True, False])
    adv = advantages(rewards, 4, GRPOConfig(advantage="group"), RewardStats(), scored)
    assert adv == pytest.approx([0.707, 0.707, -1.414, 0.0], abs=1e-3)
    assert advantages(rewards, 4, GRPOConfig(advantage="dr_grpo"), RewardStats(), scored) == pytest.approx(
        [1 / 3, 1 / 3, -2 / 3, 0.0]
    )
    stats = RewardStats()
    advantages(rewards, 4, GRPOConfig(advantage="momentum"), stats, scored)
    assert (stats.mean, stats.std) == pytest.approx((2 / 3, np.std([1.0, 1.0, 0.0])))
    # a group with every item dropped teaches nothing and raises no warning
    none = advantages(rewards, 4, GRPOConfig(advantage="group"), RewardStats(), np.zeros(4, dtype=bool))
    assert none == pytest.approx([0.0] * 4)


@pytest.mark.parametrize(
    "field, value",
    [
        ("advantage", "grpo"),
        ("error_policy", "skip"),
        ("loss_aggregation", "mean"),
        ("group_size", 0),
        ("save_every", 0),
    ],
)
def test_a_config_built_in_python_is_checked(field, value):
    with pytest.raises(ValueError, match=field):
        GRPOConfig(**{field: value})


def test_dr_grpo_only_centres():
    cfg = GRPOConfig(advantage="dr_grpo")
    adv = advantages(np.array([3.0, 1.0, 2.0, 2.0]), 2, cfg, RewardStats())
    assert adv == pytest.approx([1.0, -1.0, 0.0, 0.0])


def test_momentum_statistics_warm_up_and_smooth():
    cfg = GRPOConfig(advantage="momentum", momentum_start=0.0, momentum_step=0.1, momentum_max=0.2)
    stats = RewardStats()
    first = np.array([0.0, 1.0, 0.0, 1.0])  # mean 0.5, std 0.5
    adv = advantages(first, 2, cfg, stats)
    assert (stats.mean, stats.std) == (0.5, 0.5)  # the first step takes the batch statistics as they are
    assert adv == pytest.approx([-0.5 / 0.5001, 0.5 / 0.5001, -0.5 / 0.5001, 0.5 / 0.5001])
    assert stats.momentum(cfg) == pytest.approx(0.1)
    second = np.array([1.0, 1.0, 1.0, 1.0])  # mean 1, std 0: every group all-equal
    adv = advantages(second, 2, cfg, stats)
    assert stats.mean == pytest.approx(0.5 * 0.1 + 1.0 * 0.9)
    assert stats.std == pytest.approx(0.5 * 0.1 + 0.0 * 0.9)
    assert adv == pytest.approx([(1 - 0.95) / (0.05 + 1e-4)] * 4)  # all-equal groups are NOT zeroed here
    advantages(second, 2, cfg, stats)
    advantages(second, 2, cfg, stats)
    assert stats.momentum(cfg) == pytest.approx(0.2)  # capped at momentum_max


def test_kl_is_zero_when_policy_equals_reference_and_clipping_counts():
    cfg = GRPOConfig(beta=0.5)
    logp = torch.log(torch.tensor([[0.5, 0.25, 0.1]]))
    mask = torch.ones(1, 3)
    loss, info = grpo_loss(logp, logp, logp, torch.tensor([2.0]), mask, cfg)
    assert info["kl"] == 0.0 and info["clip_fraction"] == 0.0
    assert float(loss) == pytest.approx(-2.0)  # ratio 1: the loss is minus the advantage
    old = logp - 0.5  # the new policy is e^0.5 = 1.65x more likely: clipped at 1.2 for a positive advantage
    loss, info = grpo_loss(logp, old, logp, torch.tensor([1.0]), mask, GRPOConfig(beta=0.0))
    assert float(loss) == pytest.approx(-1.2) and info["clip_fraction"] == 1.0
    loss, _ = grpo_loss(logp, old, logp, torch.tensor([1.0]), mask, GRPOConfig(beta=0.0, epsilon_high=0.28))
    assert float(loss) == pytest.approx(-1.28)  # DAPO's clip-higher


def test_sequence_and_token_aggregation_differ_as_documented():
    logp = torch.zeros(2, 4)
    mask = torch.tensor([[1.0, 1, 1, 1], [1, 0, 0, 0]])
    adv = torch.tensor([1.0, -1.0])
    seq, _ = grpo_loss(logp, logp, logp, adv, mask, GRPOConfig(loss_aggregation="sequence"))
    tok, _ = grpo_loss(logp, logp, logp, adv, mask, GRPOConfig(loss_aggregation="token"))
    assert float(seq) == pytest.approx(0.0)  # each sequence weighs the same
    assert float(tok) == pytest.approx(-(4 - 1) / 5)  # each token weighs the same


def test_config_round_trips_and_rejects_unknown_keys():
    cfg = GRPOConfig.from_dict({"advantage": "group", "steps": 3})
    from dataclasses import asdict

    assert GRPOConfig.from_dict(asdict(cfg)) == cfg
    with pytest.raises(ValueError, match="unknown GRPO config"):
        GRPOConfig.from_dict({"stepz": 3})
    assert GRPOConfig().learning_rate == 2e-6 and GRPOConfig().beta == 0.01 and GRPOConfig().group_size == 8
    assert GRPOConfig().batch_prompts == 12 and GRPOConfig().momentum_max == 0.2 and GRPOConfig().max_tokens == 1024


def test_failure_curriculum_draws_what_the_policy_still_fails_and_resumes():
    import random

    from evalkit.curriculum import PromptSampler

    tasks = [{"id": "solved"}, {"id": "failed"}, {"id": "half"}, {"id": "unseen"}]
    sampler = PromptSampler("failures")
    group = 4
    sampler.record(tasks[:3], np.array([1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0]), group)
    draws = sampler.draw(random.Random(0), tasks, 20_000)
    share = {t["id"]: sum(d is t for d in draws) / len(draws) for t in tasks}
    total = 0.1 + 1.0 + 0.55 + 1.0  # FLOOR for the solved one, 1 for failed and unseen
    for key, weight in {"solved": 0.1, "failed": 1.0, "half": 0.55, "unseen": 1.0}.items():
        assert share[key] == pytest.approx(weight / total, abs=0.01), key
    sampler.record([tasks[0]], np.zeros(group), group)  # it forgot: half its running accuracy goes
    assert sampler.weight(tasks[0]) == pytest.approx(0.1 + 0.9 * 0.5)
    again = PromptSampler.from_state(sampler.state())
    assert again.draw(random.Random(1), tasks, 50) == sampler.draw(random.Random(1), tasks, 50)
    uniform = PromptSampler("uniform")  # the default draws as before: rng.choice per prompt
    rng_a, rng_b = random.Random(3), random.Random(3)
    assert uniform.draw(rng_a, tasks, 8) == [rng_b.choice(tasks) for _ in range(8)]
    with pytest.raises(ValueError, match="prompt_sampling"):
        GRPOConfig(prompt_sampling="hardest")


def test_countdown_puzzles_are_split_by_the_operation_they_need():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "countdown_ops.py"
    spec = importlib.util.spec_from_file_location("countdown_ops", path)
    ops = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ops)
    assert [ops.operation(f"countdown-2-14-20-t{t}") for t in (34, 280, 6)] == ["+", "×", "−"]
    assert ops.operation("countdown-2-3-12-t4") == "÷" and ops.operation("countdown-2-3-12-t5") is None
