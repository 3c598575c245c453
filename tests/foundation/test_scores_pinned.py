"""Scores on built-in tasks stay exactly what they were when pinned: refactors of the score API
(issue 19: hooks, pools, layout) must change no reward, verdict or component. The fixture was
written by the code before that refactor; regenerate it only for a deliberate scoring change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import verifiers

PINNED = json.loads((Path(__file__).parent / "data" / "scores_pinned.json").read_text())
LIMITS = {"game24": 40, "gomoku": 10, "doudizhu": 15}


def _completions(name: str, task: dict) -> list[str]:
    out = ["", "Answer: 24", "I cannot solve this.", "<move>Z99</move>", "PASS"]
    if name == "game24":
        solution = task.get("solution") or ""
        out += [
            f"Answer: {solution} = {task.get('target', 24)}",
            f"Answer: ({solution}) * 1",
            f"<answer>{solution}</answer>",
        ]
    if name == "gomoku":
        out += [f"<move>{m}</move>" for m in task.get("best_moves", [])[:2]] + ["<move>A1</move>", "E5"]
    if name == "doudizhu":
        out += [f"<move>{m}</move>" for m in task.get("winning_moves", [])[:2]] + ["Move: 3", "<move>2</move>"]
    return out


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_scores_on_builtin_tasks_are_unchanged(name):
    # pinned under the configs the fixture was written with (game24's default has since changed)
    v = verifiers.get(name, preset="published_formula") if name == "game24" else verifiers.get(name)
    rows = []
    for task in v.tasks("test", limit=LIMITS[name]):
        for completion in _completions(name, task):
            s = v.score(completion, task)
            rows.append(
                {
                    "verifier": name,
                    "task": task["id"],
                    "completion": completion,
                    "reward": round(s.reward, 12),
                    "verdict": s.verdict.value,
                    "components": {k: round(x, 12) for k, x in s.components.items()},
                }
            )
    pinned = [r for r in PINNED if r["verifier"] == name]
    assert len(rows) == len(pinned)
    changed = [(p, r) for p, r in zip(pinned, rows) if p != r]
    assert not changed, f"{len(changed)} scores changed, first: {changed[0]}"
