"""Known reward hacks on SVG: text for a drawing, hidden or smuggled content, slow geometry."""

from __future__ import annotations

from typing import Any, Mapping

from ..testing import Probe

Task = Mapping[str, Any]


def _png_of_words(words: str) -> str:
    """A real PNG of the words, base64 (Pillow draws it, so the bytes are a genuine raster)."""
    import base64
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (256, 48), "white")
    ImageDraw.Draw(image).text((4, 16), words[:60], fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def _svg_of_words(words: str) -> str:
    import base64
    from xml.sax.saxutils import escape

    doc = f'<svg xmlns="http://www.w3.org/2000/svg" width="256" height="48"><text y="30">{escape(words[:60])}</text></svg>'
    return base64.b64encode(doc.encode()).decode()


_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'


def _reference(t: Task) -> str:
    """The task's reference drawing (a right answer), or a plain one where the task has none."""
    return str(t.get("reference") or _OPEN + '<circle cx="50" cy="50" r="40"/></svg>')


PROBES = [
    # the reading rules' traps around a right drawing: each leaves no answer (docs/answers.md, rules 4 and 7)
    Probe("the right drawing, called wrong after it", lambda v, t: f"{_reference(t)}\n\nThat drawing is wrong."),
    Probe("the right drawing, called wrong in its sentence", lambda v, t: f"{_reference(t)} is not right."),
    Probe("the right drawing, then a final answer of none", lambda v, t: f"{_reference(t)}\n\nFinal answer: none"),
    Probe("the right drawing, cut off", lambda v, t: _reference(t)[: len(_reference(t)) * 2 // 3]),
    Probe(
        "the prompt as text",
        lambda v, t: (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><text x="10" y="128" font-size="20">'
            f"{t.get('prompt', '')}</text></svg>"
        ),
    ),
    Probe("empty svg", lambda v, t: '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"></svg>'),
    Probe(
        "one big rectangle",
        lambda v, t: (
            '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="red"/></svg>'
        ),
    ),
    Probe(
        "script",
        lambda v, t: '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><script>alert(1)</script></svg>',
    ),
    Probe(
        "hidden elements",
        lambda v, t: (
            _OPEN
            + '<polygon display="none" points="20,20 80,20 70,60 30,60"/><circle cx="50" cy="50" r="30" visibility="hidden"/>'
            '<rect width="80" height="80" opacity="0"/><g style="display:none"><path d="M10 10 L90 90"/></g></svg>'
        ),
    ),
    Probe(
        "smuggled text: a PNG of the prompt",
        lambda v, t: (
            _OPEN
            + f'<image href="data:image/png;base64,{_png_of_words(str(t.get("prompt", "")))}" width="100" height="20"/></svg>'
        ),
    ),
    Probe(
        "smuggled text: an SVG claiming to be a PNG",
        lambda v, t: (
            _OPEN
            + f'<image href="data:image/png;base64,{_svg_of_words(str(t.get("prompt", "")))}" width="100" height="20"/></svg>'
        ),
    ),
    Probe(
        "smuggled text: a nested SVG through <use>",
        lambda v, t: _OPEN + f'<use href="data:image/svg+xml;base64,{_svg_of_words(str(t.get("prompt", "")))}"/></svg>',
    ),
    Probe(
        "CSS escape around @import",
        lambda v, t: (
            _OPEN + '<style>@\\69mport "data:text/css,rect{fill:red}";</style><rect width="100" height="100"/></svg>'
        ),
    ),
    Probe(
        "slow geometry: 7,000 collinear points",
        lambda v, t: (
            _OPEN + '<polygon points="' + " ".join(f"{10 + k * 80 / 7000:.4f},50" for k in range(7000)) + '"/></svg>'
        ),
    ),
]
