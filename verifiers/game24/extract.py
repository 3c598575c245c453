"""Find the final answer in free text: `Answer: … = 24`, `<answer>…</answer>`, `\\boxed{…}`.

The last answer in the text wins, whichever format it has (models often restate or correct
themselves). Every scan is linear in the text length: a megabyte of adversarial text costs
milliseconds, never a regex backtracking blow-up.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

_ANSWER_LINE = re.compile(
    r"^[ \t*#>_-]*(?:final[ \t]+)?answer[ \t*_]*[:：][ \t]*(?P<expr>[^\n]*)$", re.IGNORECASE | re.MULTILINE
)


def _last_answer_line(text: str) -> tuple[int, str] | None:
    """The last `Answer: …` line; when nothing follows the colon (`**Final answer:**` on a line of
    its own), the next non-empty line is the answer."""
    found = None
    for match in _ANSWER_LINE.finditer(text):
        found = (match.start(), match.group("expr"))
    if found is not None and not found[1].strip(" \t*_"):
        rest = text[text.find("\n", found[0]) + 1 :] if "\n" in text[found[0] :] else ""
        following = next((line for line in rest.splitlines() if line.strip()), "")
        found = (found[0], following)
    return found


def _last_tag(text: str, open_tag: str = "<answer>", close_tag: str = "</answer>") -> tuple[int, str] | None:
    if "<" not in text:  # no tag at all: skip lower-casing the whole text
        return None
    lower = text.lower()
    end = lower.rfind(close_tag)
    if end < 0:
        return None
    start = lower.rfind(open_tag, 0, end)
    if start < 0:
        return None
    return start, text[start + len(open_tag) : end]


def _last_boxed(text: str) -> tuple[int, str] | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    depth, i = 0, start + len("\\boxed")
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return start, text[i + 1 : j]
    return None


EXTRACTORS: dict[str, Callable[[str], tuple[int, str] | None]] = {
    "answer_line": _last_answer_line,
    "answer_tag": _last_tag,
    "boxed": _last_boxed,
}


def final_answer(text: str, formats: Iterable[str] = ("answer_line", "answer_tag", "boxed")) -> str | None:
    """The last final answer in `text` in any of `formats`, stripped; None if there is none."""
    best: tuple[int, str] | None = None
    for name in formats:
        found = EXTRACTORS[name](text)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is None:
        return None
    answer = best[1].strip().strip("`").strip()
    return answer or None
