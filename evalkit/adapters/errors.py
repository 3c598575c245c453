"""One error policy across adapters. A verifier failure (verdict ERROR) is never silently a zero:
it becomes the framework's "no reward" value (TRL's None) or a value the user chose, and it is
always logged and counted."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from verifiers import Score

log = logging.getLogger("evalkit.adapters")

NO_REWARD = object()  # "use the framework's own no-reward convention"


@dataclass
class ErrorPolicy:
    """`value=NO_REWARD` keeps the framework's convention (None for TRL); any float replaces it."""

    value: object = NO_REWARD
    errors: int = 0
    scored: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def reward(self, score: Score, no_reward: float | None) -> float | None:
        with self._lock:
            self.scored += 1
            if not score.is_error:
                return score.reward
            self.errors += 1
            count = self.errors
        log.warning(
            "verifier error #%d (scored as %s): %s",
            count,
            "no reward" if self.value is NO_REWARD else self.value,
            score.reason,
        )
        return no_reward if self.value is NO_REWARD else float(self.value)  # type: ignore[arg-type]

    def stats(self) -> dict[str, float]:
        return {
            "evalkit/errors": float(self.errors),
            "evalkit/scored": float(self.scored),
            "evalkit/error_rate": self.errors / self.scored if self.scored else 0.0,
        }
