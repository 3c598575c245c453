"""Reading the completion: the text after the last `Answer:`, or None when there is none."""

from __future__ import annotations

import re

ANSWER = re.compile(r"Answer:[ \t]*([^\n]*)", re.IGNORECASE)


def final_answer(completion: str, max_chars: int) -> str | None:
    """The last answer line's text, stripped of quotes and a final full stop; None if absent or too long."""
    found = ANSWER.findall(completion)
    if not found:
        return None
    text = found[-1].strip().rstrip(".").strip().strip("\"'`").strip()
    return text if text and len(text) <= max_chars else None
