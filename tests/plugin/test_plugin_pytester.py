"""The plugin as a user meets it: test files run by pytest itself through `pytester`."""


def run(pytester, source, *args):
    pytester.makepyfile(test_user=source)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_verifier_fixture_and_assert_score_pass_and_fail_readably(pytester):
    result = run(
        pytester,
        """
from pytest_plugin import assert_score

def test_good(verifier):
    v = verifier("game24")
    assert_score(v, "Answer: (6-4)*(4+8)", {"numbers": [4, 4, 6, 8]}, reward=(0.6, 1), verdict="correct",
                 components={"outcome": 1.0})

def test_bad(verifier):
    v = verifier("game24")
    assert_score(v, "Answer: 6*4*1*1", {"numbers": [4, 4, 6, 8]}, reward=1.0, verdict="correct")
""",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*verdict*correct*incorrect*✗*", "*reward*1*0.15*✗*"])


def test_reward_case_marker_checks_every_case(pytester):
    result = run(
        pytester,
        """
import pytest

@pytest.mark.reward_case("Answer: (6-4)*(4+8)", {"numbers": [4, 4, 6, 8]}, verdict="correct")
@pytest.mark.reward_case("", {"numbers": [4, 4, 6, 8]}, reward=0.0, verdict="invalid")
@pytest.mark.reward_case("Answer: 1+1", {"numbers": [4, 4, 6, 8]}, reward=1.0)
def test_cases(verifier, check_reward_cases):
    check_reward_cases(verifier("game24"))
""",
        "--evalkit-report",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*1 of 3 reward case(s) failed*", "*evalkit reward cases*", "*2 of 3 reward cases as expected*"]
    )


def test_assert_ranks_and_score_equality_diff(pytester):
    result = run(
        pytester,
        """
from pytest_plugin import assert_ranks

TASK = {"numbers": [4, 4, 6, 8]}

def test_order(verifier):
    v = verifier("game24")
    assert_ranks(v, TASK, ["4 + 8 = 12 (left: 4 6 12)\\nAnswer: (6-4)*(4+8)", "Answer: (6-4)*(4+8)", "Answer: 1+1", ""])

def test_wrong_order(verifier):
    v = verifier("game24")
    assert_ranks(v, TASK, ["", "Answer: (6-4)*(4+8)"])

def test_equal(verifier):
    v = verifier("game24")
    assert v.score("Answer: (6-4)*(4+8)", TASK) == v.score("Answer: (6+4)*(4-8)", TASK)
""",
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*not in the expected order*", "*Scores differ*", "*✗ verdict*correct | incorrect*"])


def test_snapshot_records_then_detects_drift_then_updates(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)  # outside CI a first run records; CI refuses (next test)
    source = """
def test_snap(verifier, reward_snapshot):
    reward_snapshot.check(verifier("game24", weights={weights}), {{
        "correct": ("Answer: (6-4)*(4+8)", {{"numbers": [4, 4, 6, 8]}}),
        "wrong": ("Answer: 6*4*1*1", {{"numbers": [4, 4, 6, 8]}}),
    }})
"""
    first = run(pytester, source.format(weights=(0.55, 0.3, 0.15)))
    first.assert_outcomes(passed=1)
    assert (pytester.path / "__snapshots__" / "test_user" / "test_snap.json").exists()
    drift = run(pytester, source.format(weights=(0.5, 0.3, 0.2)))
    drift.assert_outcomes(failed=1)
    drift.stdout.fnmatch_lines(["*rewards drifted*", "*wrong: reward*"])
    updated = run(pytester, source.format(weights=(0.5, 0.3, 0.2)), "--evalkit-update-snapshots")
    updated.assert_outcomes(passed=1)
    run(pytester, source.format(weights=(0.5, 0.3, 0.2))).assert_outcomes(passed=1)


def test_missing_snapshot_fails_in_ci(pytester, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = run(
        pytester,
        """
def test_snap(verifier, reward_snapshot):
    reward_snapshot.check(verifier("game24"), {"x": ("", {"numbers": [1, 2, 3, 4]})})
""",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*did not exist*commit it*"])


def test_check_verifier_catches_a_broken_third_party_verifier(pytester):
    result = run(
        pytester,
        """
import dataclasses, random
import pytest
from verifiers import Score, Verdict, Verifier
from pytest_plugin import check_verifier, assert_not_hackable, assert_bounded

class Sloppy(Verifier):
    name = "sloppy"
    def evaluate(self, completion, task):
        if completion.startswith("<"):
            raise ValueError("cannot parse")           # a crash on model text
        return Score(1 + random.random(), Verdict.INCORRECT)   # always out of range, never the same
    def prompt(self, task):
        return "say something"

class Greedy(Verifier):
    name = "greedy"
    def evaluate(self, completion, task):
        return Score(1.0 if completion.strip() == "" else 0.0, Verdict.CORRECT)
    def prompt(self, task):
        return "say something"

def test_sloppy():
    check_verifier(Sloppy(), tasks=[{}])

def test_greedy():
    assert_not_hackable(Greedy(), {}, threshold=0.2)

class Slow(Verifier):
    name = "slow"
    def evaluate(self, completion, task):
        import time
        time.sleep(30)
        return Score(0.0, Verdict.INCORRECT)

def test_slow():
    assert_bounded(Slow(), [("x", {})], seconds=1)
""",
    )
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*sloppy breaks*",
            "*reported its own failure*",
            "*outside reward_bounds*",
            "*not deterministic*",
            "*reward hack(s) earn more than 0.2*",
            "*empty answer*",
            "*exceeded 1 s*",
        ]
    )
