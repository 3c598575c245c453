"""The SVG task set: the seed report's 23 prompts, user prompts from JSONL, and hard negatives.

A task is `{"id", "prompt", "negatives"?, "checks"?}`. `prompt` is both what the model is asked to
draw and the caption CLIP compares the image with. `negatives` are near-miss captions (a pentagon
for a hexagon, 80% for a 20% battery) for the contrastive score; when a task lists none they are
derived by swapping one number, shape, colour or percentage word.
"""

from __future__ import annotations

import itertools
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..base import TaskError
from ..records import json_lines

TASKS_FILE = Path(__file__).with_name("tasks.json")

PROMPT = (
    "Draw {prompt} as an SVG image.\n"
    "Reply with the complete SVG code in one ```svg block. The root <svg> element needs a viewBox "
    "(or a width and height). Use shapes and paths only: no <text>, no scripts, no external images."
)
# how PROMPT opens a task: a base model that goes on past its drawing writes the next one so
# (`turn.own_task_part`; the subject tells this task's echo from another task)
OPENING_WORDS = "as an SVG image."
OPENS_A_TASK = re.compile(r"^[ \t]*Draw (?P<subject>[^\n]{1,300}?) as an SVG image\.", re.MULTILINE)

_SWAPS: list[tuple[str, ...]] = [
    ("one", "two", "three", "four", "five", "six", "seven", "eight"),
    ("triangle", "square", "pentagon", "hexagon", "octagon", "circle"),
    ("red", "green", "blue", "yellow", "purple", "orange", "black"),
    ("filled", "empty"),
    ("dashed", "solid"),
]
GENERIC_NEGATIVES = ("an empty white image", "random abstract shapes", "a photograph of a landscape")


@lru_cache(maxsize=1)
def builtin_tasks() -> tuple[dict[str, Any], ...]:
    """The seed's 23 prompts (in its table's order), each with negatives and its programmatic checks."""
    return tuple(json.loads(TASKS_FILE.read_text(encoding="utf-8")))


def load_tasks(path: str | Path) -> list[dict[str, Any]]:
    """User tasks from JSONL, one task per line; a line that is not a valid task raises TaskError."""
    tasks = []
    lines = json_lines(path)
    while True:
        try:
            n, task = next(lines)
        except StopIteration:
            break
        except ValueError as exc:
            raise TaskError(str(exc)) from None
        if not isinstance(task, dict):
            raise TaskError(f"{path}:{n}: a task must be a JSON object")
        task.setdefault("id", f"line-{n}")
        try:
            validate(task)
        except TaskError as exc:
            raise TaskError(f"{path}:{n}: {exc}") from None
        tasks.append(task)
    return tasks


def validate(task: Mapping[str, Any]) -> None:
    prompt = task.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskError("an SVG task needs a non-empty string 'prompt'")
    negatives = task.get("negatives", [])
    if not isinstance(negatives, list) or not all(isinstance(n, str) and n.strip() for n in negatives):
        raise TaskError("'negatives' must be a list of non-empty strings")
    checks = task.get("checks", [])
    if not isinstance(checks, list) or not all(
        isinstance(c, Mapping) and isinstance(c.get("check"), str) for c in checks
    ):
        raise TaskError("'checks' must be a list of {\"check\": name, ...params}")


def negatives_for(task: Mapping[str, Any], limit: int = 4) -> list[str]:
    """The task's own negatives, else ones derived from its prompt, else generic ones."""
    listed = [n for n in task.get("negatives", []) if n != task["prompt"]]
    return listed or derive_negatives(task["prompt"], limit) or list(GENERIC_NEGATIVES)


def derive_negatives(prompt: str, limit: int = 4) -> list[str]:
    """Near misses made by changing one word: a number, a shape, a colour, a percentage."""
    sources: list[list[str]] = []  # one list per changed word; taken round-robin so the kinds mix
    for match in re.finditer(r"\b(\d{1,3})\s?%", prompt):
        value = int(match.group(1))
        sources.append(
            [
                prompt[: match.start(1)] + str(other) + prompt[match.end(1) :]
                for other in (100 - value, min(100, value + 40), 0)
                if other != value
            ]
        )
    words = re.findall(r"[A-Za-z]+", prompt.lower())
    for group in _SWAPS:
        for word in (w for w in words if w in group):
            sources.append(
                [
                    re.sub(rf"\b{word}\b", other, prompt, count=1, flags=re.IGNORECASE)
                    for other in group
                    if other != word
                ]
            )
    mixed = [s for round_ in itertools.zip_longest(*sources) for s in round_ if s]
    return [n for n in dict.fromkeys(mixed) if n != prompt][:limit]


def prompt_for(task: Mapping[str, Any]) -> str:
    return PROMPT.format(prompt=task["prompt"])
