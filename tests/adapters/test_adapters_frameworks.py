"""TRL, verl and OpenRLHF adapters against their calling conventions, and the shared error policy."""

import asyncio
import dataclasses
import json
import logging

import pytest

import verifiers
from evalkit.adapters import ErrorPolicy, compute_score, trl_reward
from evalkit.adapters.openrlhf import openrlhf_result, reward_func
from verifiers import Score, Verdict, Verifier

TASK = {"numbers": [4, 4, 6, 8]}
RIGHT, WRONG = "Answer: (6 - 4) * (4 + 8) = 24", "Answer: 4 + 4 + 6 + 8"


@verifiers.register("flaky-adapter-test")
class Flaky(Verifier):
    """Fails (ERROR) on the completion 'boom', else rewards 1."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        pass

    def evaluate(self, completion, task):
        if completion == "boom":
            return Score.error("the checker crashed")
        return Score(1.0, Verdict.CORRECT)


def test_trl_reward_takes_trl_arguments_and_dataset_columns():
    reward = trl_reward("game24")
    out = reward(
        prompts=["p", "p"],
        completions=[RIGHT, WRONG],
        completion_ids=[[1], [2]],
        trainer_state=None,
        numbers=[[4, 4, 6, 8], [4, 4, 6, 8]],
    )
    assert out == [pytest.approx(0.7), pytest.approx(0.55 * 0.35 + 0.15)]
    assert reward.__name__ == "evalkit_game24"
    conversational = [[{"role": "assistant", "content": RIGHT}]]
    assert reward(
        prompts=[[{"role": "user", "content": "?"}]], completions=conversational, task=[json.dumps(TASK)]
    ) == [pytest.approx(0.7)]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_trl_a_malformed_task_cell_is_that_items_error_never_the_batchs(asynchronous):
    reward = trl_reward("game24", asynchronous=asynchronous)
    cells = [json.dumps(TASK), "{not json", None, TASK, 7]
    out = reward(prompts=["p"] * 5, completions=[RIGHT] * 5, task=cells)
    out = asyncio.run(out) if asynchronous else out
    assert out == [pytest.approx(0.7), None, None, pytest.approx(0.7), None]  # ERROR is None for TRL
    logged = {}
    reward = trl_reward("game24")
    reward(prompts=["p"] * 2, completions=[RIGHT] * 2, task=["{not json", None], log_metric=logged.__setitem__)
    assert logged["evalkit/error_rate"] == 1.0  # every item bad: nothing scored, nothing raised


def test_trl_async_form():
    reward = trl_reward("game24", asynchronous=True)
    assert asyncio.run(reward(prompts=["p"], completions=[RIGHT], numbers=[[4, 4, 6, 8]])) == [pytest.approx(0.7)]


def test_one_error_policy_none_for_trl_value_elsewhere_always_counted(caplog):
    caplog.set_level(logging.WARNING, logger="evalkit.adapters")
    reward = trl_reward("flaky-adapter-test", workers=0)
    assert reward(prompts=["p", "p"], completions=["ok", "boom"], x=[1, 2]) == [1.0, None]
    assert reward.error_policy.stats()["evalkit/errors"] == 1.0 and "the checker crashed" in caplog.text
    fixed = trl_reward("flaky-adapter-test", workers=0, errors=ErrorPolicy(value=-1.0))
    assert fixed(prompts=["p"], completions=["boom"], x=[1]) == [-1.0]


def test_verl_compute_score_contract():
    import numpy as np

    out = compute_score("game24", RIGHT, "4 4 6 8")
    assert out["score"] == pytest.approx(0.7) and out["outcome"] == 1.0 and out["acc"] == 1.0 and out["error"] == 0.0
    assert out["pred"] and compute_score("24game", WRONG, np.array([4, 4, 6, 8]))["acc"] == 0.0  # numpy ground truth
    assert compute_score("game24", RIGHT + "<|im_end|>", json.dumps(TASK))["score"] == pytest.approx(0.7)
    code = compute_score(
        "code",
        "```python\ndef f(x):\n    return x + 1\n```",
        json.dumps({"test_cases": ["assert f(1) == 2", "assert f(2) == 4"]}),
        extra_info={},
    )
    assert code["score"] == pytest.approx(0.5) and code["pass_rate"] == pytest.approx(0.5)
    # every item has the same keys, whatever the verifier and verdict (verl builds columns from the first)
    bad_source = compute_score("nope", "x", "1 2 3 4")
    bad_truth = compute_score("game24", RIGHT, "not numbers")
    assert bad_source["error"] == 1.0 and bad_truth["error"] == 1.0 and bad_truth["score"] == 0.0
    assert set(out) == set(code) == set(bad_source) == set(bad_truth)
    # keyword arguments that name config fields configure the verifier; verl's own are ignored
    strict = compute_score("game24", WRONG, "4 4 6 8", wrong_answer_credit=0.0, reward_router_address="x")
    assert strict["score"] < compute_score("game24", WRONG, "4 4 6 8")["score"]


def test_openrlhf_reward_func_strips_the_prompt_and_returns_tensors(monkeypatch):
    import torch

    monkeypatch.setenv("EVALKIT_VERIFIER", "game24")
    prompt = "Use 4 4 6 8.\n"
    out = reward_func([prompt + RIGHT, prompt + "nothing"], [prompt, prompt], ["4 4 6 8", "4 4 6 8"])
    assert isinstance(out["rewards"], torch.Tensor) and out["rewards"].tolist() == pytest.approx([0.7, 0.0])
    assert out["extra_logs"]["correct"].tolist() == [1.0, 0.0]
    assert openrlhf_result("flaky-adapter-test", ["boom"], [""], [{}])["extra_logs"]["error"] == [1.0]
    # special tokens kept by OpenRLHF's decoding are stripped; one bad label is one ERROR item
    kept = reward_func([prompt + RIGHT + "<|im_end|>", prompt + RIGHT], [prompt, prompt], ["4 4 6 8", "x y"])
    assert kept["rewards"].tolist() == pytest.approx([0.7, 0.0]) and kept["extra_logs"]["error"].tolist() == [0.0, 1.0]


def test_verl_reward_kwargs_typos_warn_once_and_wrong_types_fail_at_build(caplog):
    caplog.set_level(logging.WARNING, logger="evalkit.adapters")
    for _ in range(3):
        out = compute_score("game24", WRONG, "4 4 6 8", wrong_answer_credt=0.0, reward_router_address=None)
    assert out["score"] == pytest.approx(0.55 * 0.35 + 0.15)  # the typo configured nothing
    warned = [r.getMessage() for r in caplog.records if "wrong_answer_credt" in r.getMessage()]
    assert len(warned) == 1 and "did you mean 'wrong_answer_credit'" in warned[0]
    assert not any("reward_router_address" in r.getMessage() for r in caplog.records)  # verl's own key
    with pytest.raises(TypeError, match="wrong_answer_credit must be float"):
        compute_score("game24", WRONG, "4 4 6 8", wrong_answer_credit="zero")


@pytest.mark.parametrize(
    "env, message",
    [
        ({"EVALKIT_VERIFIER": "gam24"}, "EVALKIT_VERIFIER='gam24'"),
        ({"EVALKIT_VERIFIER": ""}, "set EVALKIT_VERIFIER to the verifier to score with (one of"),
        ({"EVALKIT_VERIFIER": "game24", "EVALKIT_VERIFIER_CONFIG": "{not json"}, "is not valid JSON"),
        ({"EVALKIT_VERIFIER": "game24", "EVALKIT_VERIFIER_CONFIG": '{"weights": "x"}'}, "weights must be"),
    ],
)
def test_openrlhf_file_route_checks_its_environment_when_imported(env, message):
    """OpenRLHF imports the file by path: a bad setting stops it there, with the reason."""
    import os
    import subprocess
    import sys

    from evalkit.adapters import openrlhf

    code = f"import importlib.util as u; s = u.spec_from_file_location('rm', {openrlhf.__file__!r}); s.loader.exec_module(u.module_from_spec(s))"
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, timeout=120
    )
    assert r.returncode != 0 and message in r.stderr, r.stderr[-1500:]
    ok = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "EVALKIT_VERIFIER": "24game"},
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr[-1500:]


def test_a_run_can_stop_past_an_error_rate_instead_of_training_on_zeros(monkeypatch):
    from evalkit.adapters.errors import ErrorRateExceeded, max_rate_from_env

    policy = ErrorPolicy(value=0.0, max_rate=0.25)
    ok, bad = Score(1.0, Verdict.CORRECT), Score.error("the checker crashed")
    for k in range(64):  # 16 of 64 (25%): allowed
        assert policy.reward(bad if k % 4 == 0 else ok, None) == (0.0 if k % 4 == 0 else 1.0)
    with pytest.raises(ErrorRateExceeded, match="17 of 65 scored items were verifier ERRORs"):
        policy.reward(bad, None)
    monkeypatch.setenv("EVALKIT_MAX_ERROR_RATE", "0.05")
    assert max_rate_from_env() == 0.05
    monkeypatch.setenv("EVALKIT_MAX_ERROR_RATE", "5%")
    with pytest.raises(ValueError, match="EVALKIT_MAX_ERROR_RATE"):
        max_rate_from_env()
