"""Reading moves from a model's completion: `<move>H8</move>`, `H8`, `(7, 7)` or `row 7, col 7`.

Notation as in `position.py`: columns are letters from the left, rows numbered from the bottom;
pairs and `row r col c` are 0-based with row 0 at the top.
"""

from __future__ import annotations

import re

from .board import LETTERS

_TAG = re.compile(r"<move>(.*?)</move>", re.IGNORECASE | re.DOTALL)
_ALGEBRAIC = re.compile(r"(?<![A-Za-z0-9])([A-Za-z])(\d{1,2})(?![A-Za-z0-9])")
_PAIR = re.compile(r"\(\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)")
_ROW_COL = re.compile(r"row\s*(\d{1,2})\s*,?\s*(?:col|column)\s*(\d{1,2})", re.IGNORECASE)
MOVE_FORMATS = ("tag", "algebraic", "pair", "row_col")


def parse_move(text: str, size: int) -> int | None:
    """One move in any notation, or None (off-board coordinates also give None)."""
    found = find_moves(text, size, MOVE_FORMATS)
    return found[-1][1] if found else None


def find_moves(text: str, size: int, formats: tuple[str, ...]) -> list[tuple[int, int | None]]:
    """Every (position in text, cell or None when off-board) in the chosen formats, in text order."""
    found: list[tuple[int, int | None]] = []
    if "tag" in formats:
        for m in _TAG.finditer(text):
            inner = find_moves(m.group(1), size, tuple(f for f in formats if f != "tag") or MOVE_FORMATS[1:])
            found.append((m.start(), inner[-1][1] if inner else None))
        if found:  # a tagged answer is the answer; other mentions are discussion
            return found
    if "algebraic" in formats:
        for m in _ALGEBRAIC.finditer(text):
            col = LETTERS.find(m.group(1).upper())
            row = size - int(m.group(2))
            found.append((m.start(), _cell(row, col, size)))
    if "pair" in formats:
        found += [(m.start(), _cell(int(m.group(1)), int(m.group(2)), size)) for m in _PAIR.finditer(text)]
    if "row_col" in formats:
        found += [(m.start(), _cell(int(m.group(1)), int(m.group(2)), size)) for m in _ROW_COL.finditer(text)]
    return sorted(found, key=lambda x: x[0])


def _cell(row: int, col: int, size: int) -> int | None:
    return row * size + col if 0 <= row < size and 0 <= col < size else None
