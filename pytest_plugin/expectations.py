"""Comparing a `Score` with what a test expects, as a table a person can read at a glance.

Every comparison made through the plugin is also recorded, so `--evalkit-report` can print all
reward cases of a run as one table at the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from verifiers import Score, Verdict

Expected = float | tuple[float, float] | None
TOLERANCE = 1e-6


def matches(actual: float, expected: Expected) -> bool:
    """A number matches a float (within 1e-6) or an inclusive (low, high) range."""
    if expected is None:
        return True
    if isinstance(expected, (tuple, list)):
        low, high = expected
        return low - TOLERANCE <= actual <= high + TOLERANCE
    return math.isclose(actual, float(expected), abs_tol=TOLERANCE)


def show(expected: Any) -> str:
    if isinstance(expected, (tuple, list)) and len(expected) == 2:
        return f"[{expected[0]:g}, {expected[1]:g}]"
    if isinstance(expected, float):
        return f"{expected:.4g}"
    return str(expected)


@dataclass
class Comparison:
    """One score held against expectations: rows of (field, expected, actual, ok)."""

    label: str
    score: Score
    rows: list[tuple[str, str, str, bool]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(row[3] for row in self.rows)

    def table(self) -> str:
        widths = [max(len(r[i]) for r in self.rows + [("field", "expected", "actual", True)]) for i in range(3)]
        lines = [
            f"{self.label}: verdict {self.score.verdict.value}, reward {self.score.reward:.4g} ({self.score.reason})"
        ]
        header = ("field", "expected", "actual")
        lines.append("  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  ok")
        for name, exp, act, ok in self.rows:
            lines.append(
                "  " + "  ".join(c.ljust(w) for c, w in zip((name, exp, act), widths)) + ("  ✓" if ok else "  ✗")
            )
        return "\n".join(lines)


def compare(
    score: Score,
    *,
    label: str = "score",
    reward: Expected = None,
    verdict: str | Verdict | None = None,
    components: Mapping[str, Expected] | None = None,
    answer: str | None = None,
) -> Comparison:
    """Hold `score` against every expectation given; components missing from the score fail."""
    cmp = Comparison(label, score)
    if verdict is not None:
        want = Verdict(verdict)
        cmp.rows.append(("verdict", want.value, score.verdict.value, score.verdict is want))
    if reward is not None:
        cmp.rows.append(("reward", show(reward), f"{score.reward:.4g}", matches(score.reward, reward)))
    for name, exp in (components or {}).items():
        actual = score.components.get(name)
        ok = actual is not None and matches(actual, exp)
        cmp.rows.append((f"components[{name}]", show(exp), "missing" if actual is None else f"{actual:.4g}", ok))
    if answer is not None:
        cmp.rows.append(("answer", repr(answer), repr(score.answer), score.answer == answer))
    RECORDED.append(cmp)
    return cmp


def score_diff(left: Score, right: Score) -> list[str]:
    """Field-by-field table of two scores, for `assert score_a == score_b` failures."""
    rows = [
        ("reward", f"{left.reward:.6g}", f"{right.reward:.6g}"),
        ("verdict", left.verdict.value, right.verdict.value),
        ("answer", repr(left.answer), repr(right.answer)),
        ("reason", left.reason, right.reason),
    ]
    for name in sorted(set(left.components) | set(right.components)):
        rows.append((f"components[{name}]", _num(left.components.get(name)), _num(right.components.get(name))))
    width = max(len(r[0]) for r in rows)
    lines = ["Scores differ:", f"  {'field'.ljust(width)}  left | right"]
    lines += [f"{'  ' if a == b else '✗ '}{n.ljust(width)}  {a} | {b}" for n, a, b in rows]
    return lines


def _num(x: float | None) -> str:
    return "missing" if x is None else f"{x:.6g}"


#: Every comparison made in this process; the plugin prints them for --evalkit-report.
RECORDED: list[Comparison] = []
