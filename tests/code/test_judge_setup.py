"""A warm sandbox's runner compiles a task's trusted setup once for all the jobs that share it
(`compiled_setup` in runner.py): each job must still get exactly its own setup, whatever ran
before it in that sandbox, and a setup that does not compile must fail its tests, not the sandbox."""

from sandboxes.base import Limits, TestVerdict
from sandboxes.suite import Test, run_tests

LIMITS = Limits(cpu_seconds=2.0, wall_seconds=30)
V = TestVerdict
PROGRAM = "def f():\n    return helper()\n"


def _verdicts(backend, setup: str, expected: int) -> list[TestVerdict]:
    tests = [Test("exec", f"assert helper() == {expected}"), Test("call", "f()", expected)]
    result = run_tests(backend, PROGRAM, tests, LIMITS, setup=setup, entry_point="f")
    assert result.sandbox_error is None, result.sandbox_error
    return [o.verdict for o in result.outcomes]


def _setup(value: int) -> str:
    return f"def helper():\n    return {value}\n"


def test_each_job_gets_its_own_setup_in_a_warm_sandbox(backend):
    # more distinct setups than the runner keeps, then the first ones again: never another job's
    for value in [*range(12), 0, 11, 5]:
        assert _verdicts(backend, _setup(value), value) == [V.PASS, V.PASS], value
        assert _verdicts(backend, _setup(value), value + 1) == [V.WRONG_ANSWER, V.WRONG_ANSWER], value


def test_a_setup_that_does_not_compile_fails_its_tests_and_the_sandbox_serves_on(backend):
    broken = "def helper(:\n    return 1\n"
    for _ in range(2):  # the second time the runner has seen it before
        verdicts = _verdicts(backend, broken, 1)
        assert V.PASS not in verdicts and all(v is not V.SANDBOX_ERROR for v in verdicts), verdicts
    assert _verdicts(backend, _setup(7), 7) == [V.PASS, V.PASS]
