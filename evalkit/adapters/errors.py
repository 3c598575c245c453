"""One error policy across adapters. A verifier failure (verdict ERROR) is never silently a zero:
it becomes the framework's "no reward" value (TRL's None) or a value the user chose, and it is
always logged and counted."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field

from verifiers import Score

log = logging.getLogger("evalkit.adapters")

NO_REWARD = object()  # "use the framework's own no-reward convention"
MIN_ITEMS_FOR_RATE = 64  # items scored before the error rate may stop a run


class ErrorRateExceeded(RuntimeError):
    """More verifier failures than the user allows (`max_rate`): stop rather than train on them."""


class StopTraining(BaseException):
    """ErrorRateExceeded, for a framework that catches every Exception its reward function raises
    (OpenRLHF's executor logs it at INFO and trains on no reward). Like pytest's outcome exceptions it
    is no Exception, so it passes such handlers and ends the rollout with its message."""


def max_rate_from_env() -> float | None:
    """EVALKIT_MAX_ERROR_RATE (e.g. 0.05), for the adapters whose framework trains on an ERROR as a
    number (verl's own managers, OpenRLHF): past it the reward function raises and the run stops."""
    text = os.environ.get("EVALKIT_MAX_ERROR_RATE")
    if not text:
        return None
    try:
        rate = float(text)
    except ValueError:
        raise ValueError(f"EVALKIT_MAX_ERROR_RATE must be a number in [0, 1], got {text!r}") from None
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"EVALKIT_MAX_ERROR_RATE must be a number in [0, 1], got {text!r}")
    return rate


@dataclass
class ErrorPolicy:
    """`value=NO_REWARD` keeps the framework's convention (None for TRL); any float replaces it."""

    value: object = NO_REWARD
    max_rate: float | None = None  # stop (ErrorRateExceeded) once errors / scored passes it
    errors: int = 0
    scored: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def reward(self, score: Score, no_reward: float | None) -> float | None:
        with self._lock:
            self.scored += 1
            if not score.is_error:
                return score.reward
            self.errors += 1
            count, rate = self.errors, self.errors / self.scored
        log.warning(
            "verifier error #%d (the framework trains on it as %s): %s",
            count,
            "no reward" if self.value is NO_REWARD else self.value,
            score.reason,
        )
        if self.max_rate is not None and self.scored >= MIN_ITEMS_FOR_RATE and rate > self.max_rate:
            raise ErrorRateExceeded(
                f"{count} of {self.scored} scored items were verifier ERRORs ({rate:.1%}), past the allowed "
                f"{self.max_rate:.1%}: stopping rather than training on them; the log names each reason"
            )
        return no_reward if self.value is NO_REWARD else float(self.value)  # type: ignore[arg-type]

    def stats(self) -> dict[str, float]:
        return {
            "evalkit/errors": float(self.errors),
            "evalkit/scored": float(self.scored),
            "evalkit/error_rate": self.errors / self.scored if self.scored else 0.0,
        }
