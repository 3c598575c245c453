"""JSON a person or a data set wrote: one object, or JSON lines, read with errors that say where
(the text's name, the line number) so that the command or loader reading it can say it in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator


def json_object(text: str, what: str) -> dict[str, Any]:
    """`text` as a JSON object; ValueError naming `what` when it is not JSON or not an object."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-empty line of a JSONL file; ValueError `PATH:N: not JSON (...)`
    for a line that is not JSON (OSError when the file cannot be read)."""
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
        yield number, value
