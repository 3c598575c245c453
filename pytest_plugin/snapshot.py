"""Reward snapshots: record a table of rewards to a JSON file beside the test, fail on drift.

A reward function that silently changes is how training runs become incomparable; a snapshot
makes every change to a reward a visible diff in review. `--evalkit-update-snapshots` rewrites.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping

from verifiers import Score, Verifier

from .required_parts import in_ci


class RewardSnapshot:
    def __init__(self, path: Path, update: bool) -> None:
        self.path = path
        self.update = update
        self.rows: dict[str, dict[str, Any]] = {}

    def record(self, name: str, score: Score) -> None:
        self.rows[name] = {
            "reward": round(score.reward, 6),
            "verdict": score.verdict.value,
            "components": {k: round(v, 6) for k, v in sorted(score.components.items())},
        }

    def check(self, verifier: Verifier, cases: Mapping[str, tuple[str, Mapping[str, Any]]]) -> None:
        """Score each named (completion, task) case and compare the table with the stored one."""
        for name, (completion, task) in cases.items():
            self.record(name, verifier.score(completion, task))
        self.compare()

    def compare(self) -> None:
        if self.update or not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.rows, indent=2, sort_keys=True) + "\n")
            if not self.update and in_ci():
                raise AssertionError(f"reward snapshot {self.path} did not exist; it was written now: commit it")
            return
        stored = json.loads(self.path.read_text())
        drift = _diff(stored, self.rows)
        if drift:
            raise AssertionError(
                f"rewards drifted from {self.path} (rerun with --evalkit-update-snapshots "
                "if the change is intended):\n" + "\n".join(drift)
            )


def _diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            lines.append(f"  {name}: {'added' if a is None else 'removed'}")
            continue
        if a["verdict"] != b["verdict"]:
            lines.append(f"  {name}: verdict {a['verdict']} -> {b['verdict']}")
        if not math.isclose(a["reward"], b["reward"], abs_tol=1e-6):
            lines.append(f"  {name}: reward {a['reward']} -> {b['reward']}")
        for comp in sorted(set(a["components"]) | set(b["components"])):
            x, y = a["components"].get(comp), b["components"].get(comp)
            if x is None or y is None or not math.isclose(x, y, abs_tol=1e-6):
                lines.append(f"  {name}: {comp} {x} -> {y}")
    return lines
