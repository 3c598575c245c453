"""The code verifier: task formats, rewards, test sampling, extraction, hacks and failures."""

import time

import pytest

import verifiers
from pytest_plugin import assert_not_hackable, assert_score, check_verifier
from pytest_plugin.probes import probes_for
from verifiers.code import PROBLEMS, extract_code, prepare, reference_completion, sample_tests

BY_ID = {p["id"]: p for p in PROBLEMS}


@pytest.fixture(scope="module")
def code_verifier(backend):
    v = verifiers.get("code", backend=backend.name)  # opens (and closes) its own sandboxes
    yield v
    v.close()


def fenced(code):
    return f"Sure.\n```python\n{code}\n```"


def test_every_builtin_problem_passes_with_its_reference(code_verifier):
    tasks = code_verifier.tasks("all")
    assert len(tasks) >= 30
    assert {prepare(t).format for t in tasks} == {"asserts", "call", "stdio", "leetcode", "pytest"}
    for task in tasks:
        s = code_verifier.score(reference_completion(task), task)
        assert s.verdict.value == "correct", (task["id"], s.reason, s.info.get("failures"))


def test_partial_and_wrong_solutions(code_verifier):
    task = BY_ID["fibonacci"]
    partial = code_verifier.score(fenced("def fib(n):\n    return n if n < 2 else 55"), task)
    assert partial.verdict.value == "partial" and 0 < partial.reward < 1
    assert partial.reward == pytest.approx(partial.info["passed"] / partial.info["tests"])
    wrong = code_verifier.score(fenced("def fib(n):\n    return -1"), task)
    assert wrong.verdict.value == "incorrect" and wrong.reward == 0.0
    slow = code_verifier.score(fenced("def fib(n):\n    while True: pass"), task)
    assert slow.verdict.value == "timeout"


def test_the_seed_discrete_reward_and_code_r1():
    task = BY_ID["digit-sum"] if "digit-sum" in BY_ID else BY_ID["add-digits"]
    v = verifiers.get("code", reward="discrete", backend="local")
    assert_score(v, reference_completion(task), task, reward=1.1, components={"format": 0.1, "tests": 1.0})
    assert_score(v, fenced("def digit_sum(n):\n    return 0 if n == 0 else 7"), task, reward=0.1)  # some pass
    assert_score(v, "no code here", task, reward=-1.1, verdict="invalid")  # format -0.1, cannot test -1
    assert_score(v, fenced("def digit_sum(n) return 1"), task, reward=-0.9, verdict="invalid")  # format ok, cannot run
    assert_score(v, fenced("raise SystemExit(3)"), task, reward=-0.9)  # runs no test
    r1 = verifiers.get("code", reward="code_r1", backend="local")
    assert_score(r1, reference_completion(task), task, reward=1.1)
    assert_score(r1, fenced("def digit_sum(n):\n    return 0"), task, reward=0.1)
    assert_score(r1, "no code", task, reward=-1.1)
    v.close()
    r1.close()


def test_test_cap_is_deterministic_per_task():
    tests = prepare(BY_ID["prime-count"]).tests
    a = sample_tests(tests, 2, "prime-count")
    assert a == sample_tests(tests, 2, "prime-count") and len(a) == 2
    assert len({tuple(t.source for t in sample_tests(tests, 2, f"task-{k}")) for k in range(10)}) > 1
    assert sample_tests(tests, 32, "x") == tests


def test_extraction_takes_the_last_python_block():
    text = "```python\nA = 1\n```\nthen\n```js\nno()\n```\n```\nB = 2\n```"
    assert extract_code(text) == "B = 2\n"
    assert extract_code(text, "first") == "A = 1\n"
    assert extract_code("no fences") is None


@pytest.mark.parametrize(
    "prefix",
    ["x = 1\n" * 200_000, "    y = 1\n" * 200_000, "    y = (\n" * 4_500 + "Tests:\n", "def f(x):\n" * 20_000],
    ids=["code at the margin", "a body", "a body that never parses", "definitions without bodies"],
)
def test_reading_a_long_text_before_the_first_fence_is_bounded(prefix):
    """The code a completion begins with is read before its first fence (`_leading_code`): a long
    stretch costs a bounded number of parses (before the bound, 200,000 lines took 45 s)."""
    from verifiers.code.extract import locate_program

    start = time.perf_counter()
    locate_program(prefix + "```python\nassert f(1)\n```", {"f"}, 'def f(x):\n    """Doc."""\n')
    assert time.perf_counter() - start < 10


def test_formats_leetcode_and_stdio_split_and_keep_expected_outside():
    lc = prepare(BY_ID["leetcode-single-number"])
    assert lc.format == "leetcode" and len(lc.tests) == 4 and all(t.kind == "call" for t in lc.tests)
    assert lc.tests[0].source == "candidate(nums = [2, 2, 1])" and lc.tests[0].expected == 1  # as the task wrote it
    io = prepare({"input_output": '{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}'})
    assert io.format == "stdio" and io.tests[0].expected == "3\n"
    with pytest.raises(verifiers.TaskError):
        prepare({"nothing": 1})


MALFORMED_FIELDS = {  # each once scored the program: `incorrect` (a failing test), or ran `str(value)` as code
    "entry point not a string": {"test_cases": ["assert f(1) == 1"], "entry_point": 5},
    "entry point not an expression": {"test_cases": ["assert f(1) == 1"], "entry_point": "f("},
    "setup not a string": {"test_cases": ["assert f(1) == 1"], "setup": ["import math"]},
    "prompt not a string": {"test": "def check(candidate):\n    assert candidate(1) == 1", "prompt": {"a": 1}},
    "fn_name not a name": {"inputs": [[1]], "outputs": [1], "fn_name": "os.system"},
}


@pytest.mark.parametrize("field", sorted(MALFORMED_FIELDS))
def test_a_malformed_task_field_is_the_tasks_fault(field):
    with pytest.raises(verifiers.TaskError):
        prepare(MALFORMED_FIELDS[field])


def test_invariants_and_hacks(code_verifier):
    tasks = [BY_ID["two-sum"], BY_ID["sum-lines"], BY_ID["leetcode-single-number"]]
    check_verifier(code_verifier, tasks=tasks, completions=[reference_completion(tasks[0])], samples=3, seconds=60)
    assert_not_hackable(code_verifier, tasks[0], threshold=0.0)
    # the probes that run out the clock cost seconds each: once is enough
    quick = [p for p in probes_for(code_verifier) if not p.batch and "loop" not in p.name]
    for task in tasks[1:]:
        assert_not_hackable(code_verifier, task, threshold=0.0, probes=quick)


def test_a_dead_sandbox_is_error_not_zero():
    v = verifiers.get("code", backend="docker")
    import sandboxes.docker_pool as pool

    class Dead:
        name = "docker"

        def run(self, job, nonce, limits, watch=None):
            from sandboxes.base import RawRun

            return RawRun(b"", None, error="daemon went away")

        def library_paths(self, packages):
            return [f"/opt/evalkit-lib/{p}" for p in packages]

        def close(self):
            pass

    v._backend = Dead()
    s = v.score(reference_completion(BY_ID["two-sum"]), BY_ID["two-sum"])
    assert s.is_error and "daemon went away" in s.reason
    assert pool  # the real backend module is importable


def test_verdicts_do_not_change_with_concurrency(backend):
    v = verifiers.get("code", backend=backend.name)
    tasks = [p for p in PROBLEMS][:8]
    completions = [reference_completion(t) if i % 2 else fenced("def nothing(): pass") for i, t in enumerate(tasks)]
    one = v.score_batch(completions, tasks, workers=1, timeout=120)
    parallel = verifiers.get("code", backend=backend.name, pool_size=1)
    four = parallel.score_batch(completions, tasks, workers=4, timeout=120)
    assert [s.verdict for s in one] == [s.verdict for s in four] and not any(s.is_error for s in one)
    v.close()
    parallel.close()
