"""Win-rate estimation shared by the game verifiers: reproducible seeds, Wilson intervals,
and an adaptive loop that stops once the interval is narrow enough.

The seed report rewarded a move by the win rate after it; the number of rollouts sets how
accurate that reward is, so every estimate carries its own error bars.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .score import Verdict


def stable_seed(canonical_position: str, base_seed: int = 0) -> int:
    """A seed from the position's canonical text (blake2b, never `hash()`, which varies per process).

    The candidate move is deliberately not hashed: all moves from one position share a random
    stream (common random numbers), which makes their comparison far less noisy.
    """
    digest = hashlib.blake2b(f"{base_seed}\x00{canonical_position}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def wilson_interval(mean: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws count as ½, so `mean` may be fractional)."""
    if n <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (mean + z * z / (2 * n)) / denom
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def off_the_ends(observed: float, n: int) -> float:
    """The reward of an estimate that proved nothing: never exactly 0 or 1, which belong to proofs.
    With no win (or no loss) in `n` playouts it is the Jeffreys estimate, (0 + ½) / (n + 1) from
    that end, so the only move that avoids a proven loss never ties it, and a move that won every
    playout never ties a proven win. Elsewhere it is the observed share."""
    if n > 0 and observed <= 0.0:
        return 0.5 / (n + 1)
    if n > 0 and observed >= 1.0:
        return 1.0 - 0.5 / (n + 1)
    return observed


@dataclass(frozen=True)
class WinRate:
    """A win-rate estimate with its uncertainty. `mean` is the reward (`off_the_ends` of the share
    observed, exact for proofs); `observed` is the share of playouts won (draws ½)."""

    mean: float
    n: int
    stderr: float
    low: float
    high: float
    exact: bool = False
    observed: float | None = None

    @classmethod
    def from_outcomes(cls, outcomes: np.ndarray) -> "WinRate":
        n = int(outcomes.size)
        observed = float(outcomes.mean()) if n else 0.5
        stderr = float(outcomes.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.5
        low, high = wilson_interval(observed, n)
        return cls(off_the_ends(observed, n), n, stderr, low, high, observed=observed)

    @classmethod
    def exact_value(cls, value: float) -> "WinRate":
        return cls(value, 0, 0.0, value, value, exact=True, observed=value)

    def info(self) -> dict[str, Any]:
        return {
            "rollouts": self.n,
            "observed": self.observed,
            "stderr": self.stderr,
            "ci95": [self.low, self.high],
            "exact": self.exact,
        }


def check_budget(config: Any) -> None:
    """A rollout-estimating verifier's budget (`rollouts`, `max_rollouts`, `target_width`), checked
    where its config is: a width of 0 or less is never reached (every item runs to the cap)."""
    if config.rollouts < 1 or config.max_rollouts < 1:
        raise ValueError("rollouts and max_rollouts must be positive")
    if config.target_width is not None and config.target_width <= 0:
        raise ValueError(f"target_width must be > 0 (or None: a fixed rollout count), got {config.target_width}")


def estimate(
    play: Callable[[np.random.Generator, int], np.ndarray],
    rng: np.random.Generator,
    *,
    rollouts: int,
    target_width: float | None = None,
    batch: int = 64,
    max_rollouts: int = 20_000,
) -> WinRate:
    """Run `play(rng, k)` (k outcomes in {0, ½, 1}) until `rollouts` are done, or, in adaptive mode
    (`target_width` set), until the 95% interval is narrower than `target_width`."""
    outcomes: list[np.ndarray] = []
    done = 0
    goal = max_rollouts if target_width is not None else rollouts
    while done < goal:
        k = min(batch if target_width is not None else goal - done, goal - done)
        result = np.asarray(play(rng, k), dtype=float)
        outcomes.append(result)
        done += result.size
        if target_width is not None and done >= min(rollouts, 32):
            est = WinRate.from_outcomes(np.concatenate(outcomes))
            if est.high - est.low <= target_width:
                return est
    return WinRate.from_outcomes(np.concatenate(outcomes) if outcomes else np.zeros(0))


def estimate_seeded(play: Callable[[np.random.Generator, int], np.ndarray], seed: int, budget: Any) -> WinRate:
    """`estimate` from a generator seeded with `seed`, under a verifier config's rollout budget
    (its `rollouts`, `target_width` and `max_rollouts`)."""
    return estimate(
        play,
        np.random.default_rng(seed),
        rollouts=budget.rollouts,
        target_width=budget.target_width,
        max_rollouts=budget.max_rollouts,
    )


def keyed_verdict(in_key: bool, rate: WinRate) -> Verdict:
    """CORRECT for a move in the task's answer key, INCORRECT otherwise, from an estimate that
    proved nothing. Where the estimate sits at the far end of the range (every playout won for a
    move outside the key, or lost for one inside it), PARTIAL: a verdict never contradicts its reward."""
    observed = rate.mean if rate.observed is None else rate.observed
    if in_key:
        return Verdict.PARTIAL if observed <= 0.0 else Verdict.CORRECT
    return Verdict.PARTIAL if observed >= 1.0 else Verdict.INCORRECT
