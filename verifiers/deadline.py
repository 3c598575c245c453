"""A deadline for a whole batch: the time by which its caller (a reward server's request, an RL step)
needs an answer, and the score every item not scored by then gets, so that what was scored is
returned instead of being lost with the batch. Whoever waits for the batch may also cancel it (a
client that went away): the deadline then passes at once and the work left is stopped."""

from __future__ import annotations

import time

from .score import Score


class Deadline:
    """`seconds` from now, or with `started=False` from when the batch's first item is taken to be
    scored (`begin`): a reward server's request counts only the time its own items had, never the
    time they queued behind another client's."""

    def __init__(self, seconds: float, started: bool = True) -> None:
        if not 0 < seconds < float("inf"):  # also refuses NaN
            raise ValueError(f"a batch deadline must be a positive, finite number of seconds, got {seconds!r}")
        self.seconds = seconds
        self.at = time.monotonic() + seconds if started else float("inf")  # when it passes (time.monotonic)
        self.cancelled = False

    def begin(self) -> None:
        """Start the clock now, unless it has started (or was cancelled)."""
        if self.at == float("inf"):
            self.at = time.monotonic() + self.seconds

    def left(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0

    def cancel(self) -> None:
        """Nobody waits for the rest any more: pass now."""
        self.cancelled = True
        self.at = min(self.at, time.monotonic())

    def late_score(self) -> Score:
        """What an item not scored in time gets: ERROR (we did not score it: the model's answer may be
        right), so every route flags it (OpenRLHF's error flag, TRL's None, verl's group mean) and no
        trainer learns from it as from a wrong answer; the reason says so."""
        why = "its batch was cancelled" if self.cancelled else f"the batch's deadline of {self.seconds:g} s passed"
        return Score.error(f"not scored: {why}", deadline_seconds=self.seconds, scored=False)
