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
    max_tokens: int = 512
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # backend-specific settings, e.g. repetition_penalty


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
