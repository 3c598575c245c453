"""Tests that call a function by name (`assert is_palindrome('abc') == False`, the built-in tasks'
form) go to the program many to a request, as `candidate(args)` tests do. Batching changes only the
speed: where each called name comes from (the program, the task's setup, a builtin, an allowed
package) and every verdict must be exactly what running the tests one by one gives. Generated
programs and test lists are run both ways (a test with its own setup statement always runs alone)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandboxes.base import Limits
from sandboxes.suite import Test, run_tests

LIMITS = Limits(cpu_seconds=2.0, wall_seconds=60, packages=("sortedcontainers",))
# what a program may define under the names the tests call
DEFINITIONS = {
    "f": ["def f(x=0, y=1):\n    return x * y + 1\n", "def f(x=0, y=1):\n    raise ValueError(x)\n", "f = 5\n", ""],
    "g": [
        "def g(x=0, y=1):\n    return [x, str(y)]\n",
        "class Box:\n    __repr__ = lambda self: 'Box'\ndef g(x=0, y=1):\n    print(x)\n    return Box()\n",
        "",
    ],
    "math": ["def math(x=0, y=1):\n    return x - y\n", ""],
    "len": ["def len(x=0, y=1):\n    return 42\n", ""],  # a builtin: the tests' own, whatever the program says
    "SortedList": ["class SortedList(list):\n    pass\n", ""],  # an allowed package's name: the judge's
    "helper": ["def helper(x=0, y=1):\n    return 'program'\n", ""],  # the setup's: the judge's
}
SETUP = "def helper(x=0, y=1):\n    return 'setup'\n"
# `g(1)` needs the program: the judge cannot evaluate it, and runs that test (and the job's rest) alone
ARGUMENTS = ["1", "2, 3", "[4, 5]", "y=6", "(7, 8)", "'x'", "1", "2, 3", "g(1)"]


@st.composite
def cases(draw):
    program = "".join(draw(st.sampled_from(options)) for options in DEFINITIONS.values())
    tests = []
    for _ in range(draw(st.integers(1, 5))):  # runs of calls to one name: what a request batches
        name = draw(st.sampled_from([*DEFINITIONS, "candidate"]))
        for _ in range(draw(st.integers(1, 5))):
            arguments = "[4, 5]" if name in ("len", "SortedList") else draw(st.sampled_from(ARGUMENTS))
            expected = draw(st.sampled_from([None, 2, "setup", "program", [1, "1"], 42]))
            tests.append(Test("call", f"{name}({arguments})", expected))
    entry = draw(st.sampled_from([None, "f", "g"]))
    declared = draw(st.sampled_from([(), ("g",)]))
    return program, tests, entry, declared


def _outcomes(backend, program, tests, entry, declared):
    result = run_tests(backend, program, tests, LIMITS, setup=SETUP, entry_point=entry, program_names=declared)
    assert result.sandbox_error is None, result.sandbox_error
    return [(o.verdict, o.observed, o.detail) for o in result.outcomes]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_direct_calls_batched_give_exactly_the_one_by_one_verdicts(backend, case):
    program, tests, entry, declared = case
    alone = [dataclasses.replace(t, setup="pass") for t in tests]  # a test with a setup is never batched
    assert _outcomes(backend, program, tests, entry, declared) == _outcomes(backend, program, alone, entry, declared)


@pytest.mark.parametrize("name", ["len", "SortedList", "helper"])
def test_a_program_cannot_answer_for_a_name_the_judge_provides(backend, name):
    """A builtin, an allowed package's class and the setup's helper are the judge's own, batched or not."""
    program = f"def f(x):\n    return x\n{name} = lambda *a: 'forged'\n"
    tests = [Test("call", "f(1)", 1)] + [Test("call", f"{name}([1])", "forged")] * 4
    verdicts = [o.verdict.value for o in run_tests(backend, program, tests, LIMITS, setup=SETUP).outcomes]
    assert verdicts == ["pass"] + ["wrong_answer"] * 4
