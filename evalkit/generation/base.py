"""What every generation backend takes and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

Conversation = list[dict[str, str]]  # chat messages: [{"role": "user", "content": "..."}]


@dataclass(frozen=True)
class Sampling:
    """Sampling settings; the defaults follow the seed report (temperature 0.7, top-p 0.9)."""

    n: int = 4
    temperature: float = 0.7
    top_p: float = 0.9
    max_tokens: int = 256
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # backend-specific settings, e.g. repetition_penalty

    def __post_init__(self) -> None:
        """Checked where it is made, so a bad value fails in one line before a model loads."""
        whole = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
        real = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v == v  # noqa: E731
        if not whole(self.n) or self.n < 1:
            raise ValueError(f"samples (n) must be a positive integer, got {self.n!r}")
        if not whole(self.max_tokens) or self.max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, got {self.max_tokens!r}")
        if not real(self.temperature) or not 0 <= self.temperature < float("inf"):
            raise ValueError(f"temperature must be a number >= 0 (0: greedy), got {self.temperature!r}")
        if not real(self.top_p) or not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p!r}")
        if not whole(self.seed):
            raise ValueError(f"seed must be an integer, got {self.seed!r}")
        if not isinstance(self.extra, dict):
            raise ValueError(f"extra must be a JSON object of generation settings, got {self.extra!r}")


@dataclass(frozen=True)
class Generation:
    """One sampled completion. `finish_reason` is "stop" or "length" (hit max_tokens: incomplete)."""

    text: str
    tokens: int
    finish_reason: str


class Backend(Protocol):
    name: str
    model_name: str

    def generate(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        """For each conversation, `sampling.n` completions, in order."""

    def close(self) -> None:
        """Release the engine (processes, memory)."""


def prompt_seed(base_seed: int, prompt_index_key: str) -> int:
    """A per-prompt seed that does not depend on batch composition, so a resumed run samples
    exactly what an uninterrupted run would have."""
    import hashlib

    return int.from_bytes(hashlib.blake2b(f"{base_seed}:{prompt_index_key}".encode(), digest_size=4).digest(), "little")
