"""game24 on real model output: completions collected from the packaged SmolLM2-135M-Instruct
(`data/smollm2_outputs.jsonl`, made by `make_real_outputs.py`), and the ways trainers and models
dress an answer (special tokens kept by OpenRLHF, markdown bold, LaTeX, check marks).

Dressing an answer never changes its verdict; a dressed correct solution is correct; a dressed
wrong one never is."""

import json
import re
from pathlib import Path

import pytest

import verifiers
from verifiers.game24.solver import solutions

CORPUS = [
    json.loads(line) for line in (Path(__file__).with_name("data") / "smollm2_outputs.jsonl").read_text().splitlines()
]


def _dress_answer_line(completion: str, dress) -> str:
    """Apply `dress` to the expression on the last `Answer:` line (unchanged if there is none)."""
    lines = completion.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        m = re.match(r"(\s*\**answer\**\s*:\s*\**)(.*)$", lines[i], re.IGNORECASE)
        if m:
            lines[i] = m.group(1) + dress(m.group(2))
            break
    return "\n".join(lines)


def _latex(expression: str) -> str:
    body = expression.strip().replace("*", r" \times ").replace("/", r" \div ")
    return "\\(" + body + "\\)" if body else expression


DRESSINGS = {
    "<|im_end|> kept": lambda c: c + "<|im_end|>",
    "<|endoftext|> kept": lambda c: c + "<|im_end|>\n<|endoftext|>",
    "</s> kept": lambda c: c + "</s>",
    "bold answer": lambda c: _dress_answer_line(c, lambda e: f"**{e.strip()}**" if e.strip() else e),
    "inline LaTeX": lambda c: _dress_answer_line(c, _latex),
    "check mark": lambda c: _dress_answer_line(c, lambda e: f"{e.rstrip()} ✓" if e.strip() else e),
}


def test_the_corpus_is_real_and_varied():
    assert len(CORPUS) >= 64
    assert len({r["completion"] for r in CORPUS}) >= 0.9 * len(CORPUS)  # sampled, not repeated
    verdicts = {r["verdict"] for r in CORPUS}
    assert len(verdicts) >= 2, verdicts  # the packaged model's output is not all one kind


def test_real_outputs_score_as_recorded_and_dressing_never_changes_a_verdict():
    v = verifiers.get("game24")
    changed = []
    for record in CORPUS:
        plain = v.score(record["completion"], record["task"])
        assert not plain.is_error, plain.reason
        assert plain.verdict.value == record["verdict"], (record["completion"][-200:], plain.reason)
        for name, dress in DRESSINGS.items():
            dressed = v.score(dress(record["completion"]), record["task"])
            if dressed.verdict != plain.verdict:
                changed.append((name, record["completion"][-120:], plain.reason, dressed.reason))
    assert not changed, changed[:5]


@pytest.mark.parametrize("dressing", sorted(DRESSINGS))
def test_dressed_solutions_are_correct_and_dressed_wrong_answers_never_are(dressing):
    v = verifiers.get("game24")
    dress = DRESSINGS[dressing]
    tasks = {json.dumps(r["task"], sort_keys=True): r for r in CORPUS}
    for record in list(tasks.values())[:12]:
        task = record["task"]
        found = solutions(task["numbers"], task.get("target", 24))
        if not found:
            continue
        # the model's own prose, with a correct final answer put in place of its last one
        right = _dress_answer_line(record["completion"], lambda _e, s=found[0]: s)
        if right == record["completion"]:
            right = record["completion"] + f"\nAnswer: {found[0]}"
        assert v.score(dress(right), task).verdict.value == "correct", (dressing, dress(right)[-200:])
        wrong = right.rsplit(found[0], 1)[0] + f"({found[0]}) + 1"
        assert v.score(dress(wrong), task).verdict.value in ("incorrect", "invalid"), (dressing, dress(wrong)[-200:])
