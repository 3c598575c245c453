"""Find the SVG document in a completion: fenced or bare, the last one by default.

Nested `<svg>` elements are legal SVG, so opening and closing tags are matched by depth rather
than by a non-greedy regex (which would cut the outer document at the inner `</svg>`). The scan
is one linear pass, so a 10 MB completion costs milliseconds.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"<(/?)svg\b[^<>]*?(/?)>", re.IGNORECASE)  # [^<>]: each try stops at the next "<" (linear)
PICKS = ("last", "first", "only")


def find_svgs(text: str) -> list[str]:
    """Every top-level `<svg …>…</svg>` (or self-closing `<svg …/>`) in order of appearance."""
    found: list[str] = []
    depth, start = 0, 0
    for m in _TAG.finditer(text):
        closing, self_closing = m.group(1) == "/", m.group(2) == "/"
        if closing:
            if depth == 0:
                continue  # a stray closing tag
            depth -= 1
            if depth == 0:
                found.append(text[start : m.end()])
        elif self_closing:
            if depth == 0:
                found.append(m.group(0))
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    return found


def extract_svg(text: str, pick: str = "last") -> tuple[str | None, str]:
    """(svg, "") or (None, reason code): `pick` chooses among several documents; "only" refuses several."""
    svgs = find_svgs(text)
    if not svgs:
        return None, "no_svg" if "<svg" not in text.lower() else "unclosed_svg"
    if pick == "only" and len(svgs) > 1:
        return None, "several_svgs"
    return (svgs[0] if pick == "first" else svgs[-1]), ""
