"""A deadline for a whole batch: the time by which its caller (a reward server's request, an RL step)
needs an answer, and the score every item not scored by then gets, so that what was scored is
returned instead of being lost with the batch. Whoever waits for the batch may also cancel it (a
client that went away): the deadline then passes at once and the work left is stopped."""

from __future__ import annotations

import time

from .score import Score, Verdict


class Deadline:
    def __init__(self, seconds: float) -> None:
        if not 0 < seconds < float("inf"):  # also refuses NaN
            raise ValueError(f"a batch deadline must be a positive, finite number of seconds, got {seconds!r}")
        self.seconds = seconds
        self.at = time.monotonic() + seconds  # when it passes (time.monotonic)
        self.cancelled = False

    def left(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0

    def cancel(self) -> None:
        """Nobody waits for the rest any more: pass now."""
        self.cancelled = True
        self.at = min(self.at, time.monotonic())

    def late_score(self) -> Score:
        """What an item not scored in time gets: TIMEOUT, no credit, and a reason that says so."""
        why = "its batch was cancelled" if self.cancelled else f"the batch's deadline of {self.seconds:g} s passed"
        return Score(
            0.0,
            Verdict.TIMEOUT,
            reason=f"not scored: {why}",
            info={"deadline_seconds": self.seconds, "scored": False},
        )
