"""The seed's tests-vs-accuracy question (003, section 2.1) on real data: the code reward from 2, 8
and 32 tests per problem against the reward from all of them (39-266 per problem), on the LeetCode
sample's programs (reference solutions, trivial bodies and mutants), local backend, 2 workers.
A false pass is a wrong program the cheaper reward calls correct: what a policy can learn to exploit."""

from __future__ import annotations

import collections

from bench.common import RESULTS, write_results
from evalkit.accuracy import knob_accuracy
from verifiers.code import leetcode

SETTINGS = [2, 8, 32]


def plot(rows: list, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [str(r.value) if r.value is not None else "all" for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.plot(labels, [r.false_pass for r in rows], "o-", label="false pass (wrong called correct)")
    left.plot(labels, [r.reward_mae for r in rows], "s-", label="mean |reward error|")
    left.set_xlabel("tests per problem")
    left.set_ylim(bottom=0)
    left.legend(fontsize=8)
    left.set_title("accuracy against all tests")
    right.bar(labels, [r.seconds_per_score * 1000 for r in rows], color="tab:gray")
    right.set_xlabel("tests per problem")
    right.set_ylabel("ms per score")
    right.set_title("cost")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> dict:
    programs = leetcode.program_mix(mutants_per_problem=3, seed=0)
    kinds = collections.Counter(p.kind for p in programs)
    rows, full = knob_accuracy(
        "code",
        "max_tests",
        SETTINGS,
        [p.completion() for p in programs],
        [leetcode.as_task(p.problem) for p in programs],
        full=None,
        config={"backend": "local"},
        workers=2,
    )
    wrong = sum(not s.correct for s in full)
    table = [("tests per problem", "false pass", "false fail", "reward MAE", "reward differs", "ms per score")]
    figures: dict = {"programs": len(programs), "wrong_programs": wrong}
    for r in rows:
        name = "all" if r.value is None else str(r.value)
        table.append(
            (
                name,
                f"{r.false_pass:.3f}",
                f"{r.false_fail:.3f}",
                f"{r.reward_mae:.3f}",
                f"{r.reward_differs:.3f}",
                f"{r.seconds_per_score * 1000:.0f}",
            )
        )
        figures[f"tests_{name}"] = r.as_dict()
    plot(rows, RESULTS / "code_accuracy.png")
    notes = (
        f"{len(programs)} programs over the 32 LeetCode problems ({kinds['canonical']} reference solutions, "
        f"{kinds['trivial']} trivial bodies, {kinds['mutant']} mutants; {wrong} fail the full tests), scored with "
        "`max_tests` = 2, 8, 32 (a seeded subset per task) and with every test. False pass: share of the wrong "
        "programs a setting calls correct; false fail: share of the correct ones it does not (0 by construction: "
        "a subset of passing tests passes); reward MAE: the continuous reward (share of tests passed) against "
        "all tests. Rerun: `python -m bench.run code_accuracy`, or on any data `evalkit accuracy`. "
        "Plot: code_accuracy.png."
    )
    write_results("code_accuracy", figures, table, notes=notes)
    return figures


if __name__ == "__main__":
    main()
