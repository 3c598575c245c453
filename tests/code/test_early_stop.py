"""Pass/fail rewards stop a program at the test that decides them (verifiers/code/verifier.py
`DECIDED_BY`); the reward and the verdict must be exactly those of running every test, on both
backends, for any pattern of passing, wrong and raising tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verifiers
from verifiers.code.verifier import REWARDS

BEHAVIOURS = st.lists(st.sampled_from(["pass", "wrong", "raise"]), min_size=1, max_size=12)


def program(behaviour: list[str]) -> str:
    """A program whose test i passes, is wrong, raises, or passes after 10 ms ("slow")."""
    return f"""```python
import time
BEHAVIOUR = {behaviour!r}
def f(i):
    if BEHAVIOUR[i] == "raise":
        raise ValueError(i)
    if BEHAVIOUR[i] == "slow":
        time.sleep(0.01)
    return -1 if BEHAVIOUR[i] == "wrong" else i * 10
```"""


def task(tests: int) -> dict:
    return {"test_cases": [f"assert f({i}) == {i * 10}" for i in range(tests)], "entry_point": "f"}


@pytest.fixture(scope="module")
def pairs(backend):
    """For each reward: (stops when decided, runs every test), on one warm sandbox each."""
    made = {
        reward: tuple(
            verifiers.get("code", backend=backend.name, reward=reward, pool_size=1, stop_when_decided=stop)
            for stop in (True, False)
        )
        for reward in REWARDS
    }
    yield made
    for pair in made.values():
        for v in pair:
            v.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(behaviour=BEHAVIOURS)
def test_stopping_early_gives_the_reward_and_verdict_of_running_every_test(pairs, behaviour):
    for reward, (stopping, every) in pairs.items():
        early, full = (
            stopping.score(program(behaviour), task(len(behaviour))),
            every.score(program(behaviour), task(len(behaviour))),
        )
        assert early.reward == full.reward and (early.verdict.value == "correct") == (full.verdict.value == "correct")
        assert full.info["tests_run"] == len(behaviour)
        if reward == "continuous" or "wrong" not in behaviour and "raise" not in behaviour:
            assert early.info["tests_run"] == len(behaviour)  # nothing to decide early
        elif reward == "code_r1":  # decided by the first failure: at most a request's worth more ran
            first = min(i for i, b in enumerate(behaviour) if b != "pass")
            assert early.info["tests_run"] >= first + 1 and early.verdict.value != "correct"


def test_a_stopped_program_says_which_test_decided_and_how_many_did_not_run(backend):
    v = verifiers.get("code", backend=backend.name, reward="code_r1", pool_size=1)
    # the later tests take 10 ms each: the host's stop lands long before they could all run, however
    # busy the machine (at full speed 200 passing tests could finish before the stop came back)
    behaviour = ["pass", "wrong"] + ["slow"] * 200
    try:
        score = v.score(program(behaviour), task(len(behaviour)))
    finally:
        v.close()
    assert score.reward == 0.1 and score.verdict.value == "partial"
    assert score.info["tests_run"] < len(behaviour) and score.info["verdicts"]["not_run"] > 100
    assert "test 2: wrong_answer" in score.reason and "later tests were not run" in score.reason


def test_a_loop_stops_a_pass_fail_reward_at_its_first_timeout(backend):
    """The timeout budget (two tests' worth) is spent only where the share of tests needs it."""
    loop = "```python\ndef f(i):\n    while True:\n        pass\n```"
    scores = {}
    for reward in ("code_r1", "continuous"):
        v = verifiers.get("code", backend=backend.name, reward=reward, pool_size=1)
        try:
            scores[reward] = v.score(loop, task(5))
        finally:
            v.close()
    assert scores["code_r1"].info["verdicts"] == {"timeout": 1, "not_run": 4}
    assert scores["continuous"].info["verdicts"].get("timeout", 0) >= 2
    assert scores["code_r1"].verdict.value == scores["continuous"].verdict.value == "timeout"
