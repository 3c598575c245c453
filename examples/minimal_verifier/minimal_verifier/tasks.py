"""Loading the built-in tasks, the seeded split, and the prompt."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

TASKS_FILE = Path(__file__).with_name("tasks.json")
PROMPT = "Write the word {word!r} backwards, letter by letter. Reply with one line: Answer: <reversed word>"


@lru_cache(maxsize=1)
def _all_tasks() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(TASKS_FILE.read_text()))


def load(split: str, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Tasks for "train", "test" or "all": a fixed 80/20 split, then a seeded sample of `limit`."""
    tasks = list(_all_tasks())
    cut = len(tasks) * 4 // 5
    chosen = {"train": tasks[:cut], "test": tasks[cut:], "all": tasks}.get(split)
    if chosen is None:
        raise ValueError(f"split must be 'train', 'test' or 'all', got {split!r}")
    if limit is not None and limit < len(chosen):
        chosen = random.Random(seed).sample(chosen, limit)
    return [dict(t) for t in chosen]


def prompt(task: Mapping[str, Any]) -> str:
    return PROMPT.format(word=task["word"])
