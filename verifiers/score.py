"""The one score type every verifier returns and every consumer reads.

A `Score` is plain data: it survives a JSON round trip (`to_dict` / `from_dict`)
so that offline scoring, reward servers and RL loops all see the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Mapping

#: The default wall-clock seconds one item may take, on every route (score_batch, the evaluator,
#: the adapters, the server, GRPO, the CLI). A verifier's own `time_budget()` raises it where needed.
ITEM_TIMEOUT_SECONDS = 30.0


class Verdict(str, Enum):
    """What happened to one completion. Only CORRECT counts for pass@k."""

    CORRECT = "correct"  # fully solved
    PARTIAL = "partial"  # some credit (e.g. 7 of 10 tests), not solved
    INCORRECT = "incorrect"  # well-formed answer, wrong
    INVALID = "invalid"  # no parsable answer, broken format, illegal move, unsafe SVG
    TIMEOUT = "timeout"  # the *model's* program or answer exceeded its limits
    ERROR = "error"  # the verifier or its infrastructure failed: never the model's fault


@dataclass(frozen=True)
class Score:
    """A reward plus everything needed to trust it."""

    reward: float
    verdict: Verdict
    components: Mapping[str, float] = field(default_factory=dict)
    answer: str | None = None
    reason: str = ""
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Accept the verdict's string form and any numbers, so from_dict and callers stay simple;
        # the checks are by exact type because this runs once per scored item.
        if type(self.verdict) is not Verdict:
            object.__setattr__(self, "verdict", Verdict(self.verdict))
        if type(self.reward) is not float:
            object.__setattr__(self, "reward", float(self.reward))
        components = self.components
        if type(components) is not dict or any(type(v) is not float for v in components.values()):
            object.__setattr__(self, "components", {k: float(v) for k, v in dict(components).items()})
        if type(self.info) is not dict:
            object.__setattr__(self, "info", dict(self.info))
        if not math.isfinite(self.reward):
            raise ValueError(f"reward must be finite, got {self.reward!r}")

    @property
    def is_error(self) -> bool:
        """True when the verifier, not the model, failed: callers must not read this as a zero."""
        return self.verdict is Verdict.ERROR

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.CORRECT

    def to_dict(self) -> dict[str, Any]:
        return {
            "reward": self.reward,
            "verdict": self.verdict.value,
            "components": dict(self.components),
            "answer": self.answer,
            "reason": self.reason,
            "info": dict(self.info),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Score":
        return cls(
            reward=data["reward"],
            verdict=Verdict(data["verdict"]),
            components=data.get("components") or {},
            answer=data.get("answer"),
            reason=data.get("reason", ""),
            info=data.get("info") or {},
        )

    def to_row(self) -> tuple[Any, ...]:
        """A compact plain-tuple form for moving many scores between processes."""
        return (self.reward, self.verdict.value, self.components, self.answer, self.reason, self.info)

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> "Score":
        """Inverse of `to_row`. Skips re-validation: a row only ever comes from a real `Score`."""
        score = object.__new__(cls)
        score.__dict__.update(zip(_FIELDS, row))
        score.__dict__["verdict"] = _VERDICTS[row[1]]
        return score

    @classmethod
    def invalid(cls, reason: str, *, reward: float = 0.0, **info: Any) -> "Score":
        """The model wrote something unusable: a reason, no credit."""
        return cls(reward=reward, verdict=Verdict.INVALID, reason=reason, info=info)

    @classmethod
    def error(cls, reason: str, **info: Any) -> "Score":
        """The verifier failed. Reward 0.0 is a placeholder that every consumer must check `is_error` before using."""
        return cls(reward=0.0, verdict=Verdict.ERROR, reason=reason, info=info)


_FIELDS = ("reward", "verdict", "components", "answer", "reason", "info")
_VERDICTS = {v.value: v for v in Verdict}


def verdict_counts(results: Iterable["Score | Verdict | str"]) -> dict[str, int]:
    """How many results fell in each verdict, every verdict listed in `Verdict` order (zeros too).
    Takes Scores, Verdicts or their values ("correct", as stored in samples.jsonl): the one count
    the summary table, the metrics, GRPO's log and the server's /metrics all use."""
    counts = {v.value: 0 for v in Verdict}
    for r in results:
        value = r.verdict.value if isinstance(r, Score) else Verdict(r).value
        counts[value] += 1
    return counts
