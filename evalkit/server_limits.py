"""What one request may ask of `evalkit serve`, in one place: the server enforces these and the
command's options take their defaults from here (no fastapi needed to read them)."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class ServerLimits:
    """What one request may ask of the server; `evalkit serve`'s options read their defaults here."""

    concurrency: int = 4  # requests scored at once
    # requests admitted beyond those, waiting for a slot (429 past it). A client that sends one
    # request per sample (OpenRLHF) needs it at least its rollout batch: see docs/frameworks.md
    max_waiting: int = 1024
    timeout: float | None = None  # seconds per request; None: the batch's own deadline (see RewardService)
    max_body_bytes: int = 8 << 20
    max_admitted_bytes: int = 256 << 20  # bodies held at once by admitted requests (429 past it)
    body_seconds: float = 30.0  # to receive a request's body (408 past it)
    max_items: int = 4096  # items per request; more get 413
    max_client_configs: int = 8  # verifiers built from client configs kept at once (with the opt-in)
    # bodies one client address may be sending at once (429 past it): slow bodies from one client
    # hold its own connections, never every connection the server has
    max_bodies_per_client: int = 64

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "timeout":
                continue
            floor = 0 if f.name == "max_waiting" else 1e-9
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not floor <= value < math.inf:
                least = "at least 0" if f.name == "max_waiting" else "positive"
                raise ValueError(f"server limit {f.name} must be a {least}, finite number, got {value!r}")
