"""Find the SVG document in a completion: fenced or bare, escaped or not, read by the shared rules
of docs/answers.md ("final", the default): the last drawing, unless the text offers another beside
it (refused: one answer too many) or shows it as what not to do; a drawing cut off at the end is no
answer, and an earlier one never stands in for it.

Nested `<svg>` elements are legal SVG, so opening and closing tags are matched by depth rather
than by a non-greedy regex (which would cut the outer document at the inner `</svg>`). The scan
is one linear pass, so a 10 MB completion costs milliseconds.
"""

from __future__ import annotations

import base64
import html
import json
import re

from ..locate import called_wrong, none_stated_at, not_shown_as_mistakes, offers, taken_back

_TAG = re.compile(r"<(/?)svg\b[^<>]*?(/?)>", re.IGNORECASE)  # [^<>]: each try stops at the next "<" (linear)
PICKS = ("final", "last", "first", "only")
_ELEMENT = re.compile(r"<[a-zA-Z]")
READ_FAILURES = {
    "no_svg": "no <svg>…</svg> document in the completion",
    "unclosed_svg": "no complete <svg>…</svg> document in the completion",
    "several_svgs": "several <svg> documents, and pick 'only' takes exactly one",
    "svg_cut_off": "the final <svg> drawing was cut off (never closed): no answer",
    "svgs_offered": "two different drawings are offered as the answer: one answer too many",
    "svg_called_wrong": "the text calls its drawing wrong: no answer",
    "svg_stated_none": "the final answer says there is none (`Final answer: none`)",
}


def svg_spans(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """The (start, end) of every top-level `<svg …>…</svg>` (or self-closing `<svg …/>`) in order,
    and where a drawing still open at the end of the text starts (None where none is). A tag that
    prose mentions (words follow it, or a bare `<svg/>`) opens no drawing."""
    found: list[tuple[int, int]] = []
    depth, start = 0, 0
    for m in _TAG.finditer(text):
        closing, self_closing = m.group(1) == "/", m.group(2) == "/"
        if closing:
            if depth == 0:
                continue  # a stray closing tag
            depth -= 1
            if depth == 0:
                found.append((start, m.end()))
        elif self_closing:
            if depth == 0 and m.group(0) not in _BARE_SELF_CLOSING:
                found.append((m.start(), m.end()))
        elif depth or not _MENTION.match(text, m.end()):
            if depth == 0:
                start = m.start()
            depth += 1
    return found, (start if depth else None)


# a top-level `<svg>` tag that prose mentions rather than opens: words follow it, where a drawing's
# next tag or entity would (`Use an <svg> element:`, "`<svg>` wraps it"); a JSON string's `\n` escapes
# are space
_MENTION = re.compile(r"(?:\s|\\[nrt])*[^<&\s\\]")
_BARE_SELF_CLOSING = frozenset({"<svg/>", "<svg />", "<SVG/>", "<SVG />"})  # no size: a mention, never a drawing


def find_svgs(text: str) -> list[str]:
    """Every top-level `<svg …>…</svg>` (or self-closing `<svg …/>`) in order of appearance."""
    return [text[a:b] for a, b in svg_spans(text)[0]]


def unescaped(svg: str) -> str:
    """A drawing written inside a JSON string (`<svg xmlns=\\"…\\">`) as its text, and its root tag
    in the case SVG names it (`<SVG …>…</SVG>`, as HTML allows: no other element is so named); others
    as they are."""
    if not svg.startswith("<svg"):
        svg = _ROOT_OPENING.sub("<svg", svg, count=1)
        svg = svg[: -len("</svg>")] + "</svg>" if svg[-6:].lower() == "</svg>" else svg
    if '=\\"' not in svg:
        return svg
    try:
        return json.loads(f'"{svg}"')
    except ValueError:
        return svg


_ROOT_OPENING = re.compile(r"^<svg(?=[\s/>])", re.IGNORECASE)


_BASE64_DRAWING = re.compile(r"data:image/svg\+xml;base64,([A-Za-z0-9+/]+={0,2})", re.IGNORECASE)


def _base64_decoded(m: re.Match[str]) -> str:
    try:
        return base64.b64decode(m.group(1)).decode("utf-8")
    except (ValueError, UnicodeDecodeError):  # not base64 of text: left as written
        return m.group()


def _drawings(text: str) -> tuple[list[tuple[int, int]], int | None, str]:
    """The drawings of `text`, or where it has none written plainly, of its HTML-unescaped form
    (`&lt;svg …&gt;`) or with its base64 data URIs decoded (`<img src="data:image/svg+xml;base64,…">`):
    spans, where one still open starts, and the text they index."""
    spans, open_at = svg_spans(text)
    if not spans and open_at is None and "&lt;svg" in text.lower():
        text = html.unescape(text)
        spans, open_at = svg_spans(text)
    if not spans and open_at is None and "base64," in text:
        text = _BASE64_DRAWING.sub(_base64_decoded, text)
        spans, open_at = svg_spans(text)
    return spans, open_at, text


_TAG_CUT = re.compile(r"<svg\b[^<>]*$|<(?:s|sv)$", re.IGNORECASE)  # a `<svg …` tag the text ends inside


def _cut_off(text: str, open_at: int | None, spans: list[tuple[int, int]]) -> bool:
    """A drawing opened after the last complete one that the text ends inside: with elements in it,
    or nothing but a tag begun after its opening tag (a `<svg>` mentioned in prose has prose after
    it); or an opening `<svg` tag the text ends inside (`<svg xmlns="…" viewBox="0 0 1`)."""
    after = spans[-1][1] if spans else 0
    if _TAG_CUT.search(text.rstrip(), after):
        return True
    if open_at is None or open_at < after:
        return False
    inside = text.index(">", open_at) + 1
    rest = text[inside:].lstrip()
    return not rest or rest.startswith("<") or bool(_ELEMENT.search(text, inside))


def _final(text: str, spans: list[tuple[int, int]]) -> tuple[str | None, str]:
    """The final drawing by the shared rules: a drawing the text calls wrong is none, counter-examples
    are not candidates (where another drawing is); a later different drawing replaces an earlier one,
    unless the words between offer it beside it."""
    kept = [span for span in spans if not called_wrong(text, span[1])]  # `<svg>…</svg> is wrong.`
    if not kept:
        return None, "svg_called_wrong"
    kept = not_shown_as_mistakes(kept, text, lambda span: span[0])
    final_start, final_end = kept[-1]
    if taken_back(text, final_end):  # `That's wrong.` after it
        return None, "svg_called_wrong"
    if none_stated_at(text) > final_start:  # `Final answer: none` after it
        return None, "svg_stated_none"
    final = " ".join(text[final_start:final_end].split())
    for a, b in reversed(kept[:-1]):
        if " ".join(text[a:b].split()) == final:
            continue
        if offers(text[b:final_start]):
            return None, "svgs_offered"
        break  # an earlier, different drawing, replaced by the final one
    return unescaped(text[final_start:final_end]), ""


def extract_svg(text: str, pick: str = "final") -> tuple[str | None, str]:
    """(svg, "") or (None, reason code; READ_FAILURES says it in words). "final" reads by the shared
    rules; "last" and "first" take that document as written; "only" refuses several."""
    spans, open_at, text = _drawings(text)
    if pick == "final" and _cut_off(text, open_at, spans):
        return None, "svg_cut_off"
    if not spans:
        return None, "no_svg" if "<svg" not in text.lower() else "unclosed_svg"
    if pick == "only" and len(spans) > 1:
        return None, "several_svgs"
    if pick == "final":
        return _final(text, spans)
    a, b = spans[0] if pick == "first" else spans[-1]
    return unescaped(text[a:b]), ""
