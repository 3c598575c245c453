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


@dataclass(frozen=True, init=False)
class Score:
    """A reward plus everything needed to trust it."""

    reward: float
    verdict: Verdict
    components: Mapping[str, float] = field(default_factory=dict)
    answer: str | None = None
    reason: str = ""
    info: Mapping[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        reward: float,
        verdict: Verdict | str,
        components: Mapping[str, float] | None = None,
        answer: str | None = None,
        reason: str = "",
        info: Mapping[str, Any] | None = None,
    ) -> None:
        # Accepts the verdict's string form and any numbers, so from_dict and callers stay simple.
        # Written by hand because it runs once per scored item: checks by exact type, and the fields
        # written straight into the instance's dict, where a frozen dataclass's own __init__ makes six
        # object.__setattr__ calls (a third of the cost).
        if type(verdict) is not Verdict:
            verdict = Verdict(verdict)
        if type(reward) is not float:
            reward = float(reward)
        if not math.isfinite(reward):
            raise ValueError(f"reward must be finite, got {reward!r}")
        if components is None:
            components = {}
        elif type(components) is not dict:
            components = {k: float(v) for k, v in dict(components).items()}
        else:
            for value in components.values():  # a loop, not any(): no generator per item
                if type(value) is not float:
                    components = {k: float(v) for k, v in components.items()}
                    break
        if info is None:
            info = {}
        elif type(info) is not dict:
            info = dict(info)
        fields = self.__dict__
        fields["reward"], fields["verdict"], fields["components"] = reward, verdict, components
        fields["answer"], fields["reason"], fields["info"] = answer, reason, info

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
