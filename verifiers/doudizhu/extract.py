"""Reading a play from a model's completion: `<move>...</move>`, a `Move: ...` line, or a short
bare answer; PASS in English or Chinese."""

from __future__ import annotations

import re

from .cards import parse_cards

PASS_WORDS = frozenset({"pass", "不要", "不出", "要不起", "过"})
_PASS_STRIP = " \t\r\n.!。！*`'\"()[]"
_LINE = re.compile(r"^[^\w\n]{0,20}(?:move|play|answer|出牌)\s*[:：]\s*([^\n]{0,200})", re.IGNORECASE | re.MULTILINE)
MOVE_FORMATS = ("tag", "line", "bare")
BARE_LIMIT = 40


def find_play(text: str, formats: tuple[str, ...]) -> str | None:
    """The last play written in the completion (raw text), trying the configured formats in
    order: the last complete <move>...</move>, else the last `Move: ...` line, else the whole
    (short) completion. Linear in the length of the text."""
    if "tag" in formats:
        low = text.lower()
        end = low.rfind("</move>")
        start = low.rfind("<move>", 0, end) if end >= 0 else -1
        if start >= 0:
            return text[start + len("<move>") : end].strip()
    if "line" in formats:
        last = None
        for match in _LINE.finditer(text):  # the last `Move:` line counts
            last = match
        if last is not None:
            return last.group(1).strip()
    if "bare" in formats and len(text.strip()) <= BARE_LIMIT:
        return text.strip()
    return None


def read_play(raw: str) -> tuple[int, ...] | None:
    """Cards as counts per rank, or None for PASS. Raises ValueError for text that is not cards."""
    if raw.strip(_PASS_STRIP).lower() in PASS_WORDS:
        return None
    cards = parse_cards(raw)
    if not any(cards):
        raise ValueError("no cards named")
    return cards
