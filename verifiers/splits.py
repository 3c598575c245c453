"""Seeded train/test splits for built-in task sets: membership comes from a hash of the task id
and the seed, so it does not depend on the order of the tasks or on which others exist."""

from __future__ import annotations

import hashlib
from typing import Any, Iterable


def split_of(task_id: str, seed: int = 0, test_share: float = 0.2) -> str:
    h = int.from_bytes(hashlib.blake2b(f"{seed}:{task_id}".encode(), digest_size=8).digest(), "little")
    return "test" if (h % 10_000) < test_share * 10_000 else "train"


def select(
    tasks: Iterable[dict[str, Any]], split: str, *, limit: int | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """The tasks of `split` ("train", "test" or "all"), at most `limit`, as fresh dicts."""
    if split not in ("train", "test", "all"):
        raise ValueError(f"split must be 'train', 'test' or 'all', not {split!r}")
    chosen = [dict(t) for t in tasks if split == "all" or split_of(str(t["id"]), seed) == split]
    return chosen[:limit] if limit is not None else chosen
