"""Code from a completion: fenced blocks (```python … ```), the last one by default."""

from __future__ import annotations

import re

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.DOTALL)
CODE_LANGUAGES = {"", "python", "py", "python3"}


def extract_code(completion: str, which: str = "last") -> str | None:
    """The chosen fenced Python block, or None when the completion has none."""
    blocks = [m.group(2) for m in FENCE.finditer(completion[-200_000:]) if m.group(1).lower() in CODE_LANGUAGES]
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return None
    if which == "first":
        return blocks[0]
    if which == "longest":
        return max(blocks, key=len)
    return blocks[-1]
