"""The one score type every verifier returns and every consumer reads.

A `Score` is plain data: it survives a JSON round trip (`to_dict` / `from_dict`)
so that offline scoring, reward servers and RL loops all see the same thing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping


class Verdict(str, Enum):
    """What happened to one completion. Only CORRECT counts for pass@k."""

    CORRECT = "correct"      # fully solved
    PARTIAL = "partial"      # some credit (e.g. 7 of 10 tests), not solved
    INCORRECT = "incorrect"  # well-formed answer, wrong
    INVALID = "invalid"      # no parsable answer, broken format, illegal move, unsafe SVG
    TIMEOUT = "timeout"      # the *model's* program or answer exceeded its limits
    ERROR = "error"          # the verifier or its infrastructure failed: never the model's fault


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
        # Accept the verdict's string form so that from_dict and callers stay simple.
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        object.__setattr__(self, "reward", float(self.reward))
        object.__setattr__(self, "components", {k: float(v) for k, v in dict(self.components).items()})
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

    @classmethod
    def invalid(cls, reason: str, *, reward: float = 0.0, **info: Any) -> "Score":
        """The model wrote something unusable: a reason, no credit."""
        return cls(reward=reward, verdict=Verdict.INVALID, reason=reason, info=info)

    @classmethod
    def error(cls, reason: str, **info: Any) -> "Score":
        """The verifier failed. Reward 0.0 is a placeholder that every consumer must check `is_error` before using."""
        return cls(reward=0.0, verdict=Verdict.ERROR, reason=reason, info=info)
