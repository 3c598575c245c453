"""Issue 14's attacks on the SVG verifier, each earning nothing: smuggled text (raster and nested
SVG), CSS escapes, bad characters. (Hidden elements and look-alikes are in test_svg_lookalikes.py.)"""

import base64
import io

import pytest
from svg_docs import SVG_NS, XLINK, svg

from verifiers.svg.gate import GateError, GateLimits, gate

NESTED_TEXT = base64.b64encode(
    f'<svg {SVG_NS} width="99" height="40"><text y="30">a gear</text></svg>'.encode()
).decode()


def _png(text: str = "a gear") -> str:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (120, 40), "white")
    ImageDraw.Draw(image).text((5, 10), text, fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


SMUGGLED = {
    "svg claiming png in <image>": f'<image href="data:image/png;base64,{NESTED_TEXT}" width="99" height="40"/>',
    "svg claiming png in <use>": f'<use href="data:image/png;base64,{NESTED_TEXT}"/>',
    "svg+xml data": f'<image xlink:href="data:image/svg+xml;base64,{NESTED_TEXT}" {XLINK} width="9" height="9"/>',
    "a real png of the words": f'<image href="data:image/png;base64,{_png()}" width="99" height="40"/>',
    "png in a CSS url()": f'<rect width="9" height="9" style="fill: url(data:image/png;base64,{_png()})"/>',
}


@pytest.mark.parametrize("name", list(SMUGGLED))
def test_embedded_images_are_refused_by_default(name):
    with pytest.raises(GateError) as info:
        gate(svg(SMUGGLED[name]))
    assert info.value.code in ("raster_not_allowed", "external_reference")


def test_when_allowed_only_real_rasters_of_the_claimed_type_pass():
    allow = GateLimits(allow_raster=True)
    gate(svg(f'<image href="data:image/png;base64,{_png()}" width="9" height="9"/>'), allow)
    for body in (
        SMUGGLED["svg claiming png in <image>"],
        SMUGGLED["svg claiming png in <use>"],
        f'<image href="data:image/jpeg;base64,{_png()}" width="9" height="9"/>',  # a png claiming jpeg
        '<image href="data:image/png;base64,iVBORw0KGgo=" width="9" height="9"/>',  # a signature, no image
        '<image href="data:image/png;base64,%%%%" width="9" height="9"/>',
    ):
        with pytest.raises(GateError) as info:
            gate(svg(body), allow)
        assert info.value.code == "bad_raster", body


@pytest.mark.parametrize(
    "body",
    [
        '<style>@\\69mport "data:text/css,rect{fill:red}";</style><rect width="9" height="9"/>',
        "<style>@IMPORT url(x.css);</style>",
        '<style>@media screen { @import "x.css"; }</style>',
        "<style>rect { fill: u\\72l(http://example.com/p) }</style>",
        '<rect width="9" height="9" style="fill: u\\72l(file:///etc/passwd)"/>',
        '<rect width="9" height="9" fill="u\\72l(http://example.com/p)"/>',
    ],
)
def test_css_is_read_with_escapes_decoded(body):
    with pytest.raises(GateError) as info:
        gate(svg(body))
    assert info.value.code == "external_reference"


def test_local_css_still_passes():
    gate(
        svg(
            '<defs><linearGradient id="g"/></defs><style>rect { fill: url(#g); stroke: red }</style>'
            '<rect width="9" height="9" style="fill: url(\'#g\')"/>'
        )
    )


@pytest.mark.parametrize("text", ['id="\ud800"', 'id="a\udcff"', 'class="\x00"'])
def test_bad_characters_are_invalid_never_an_exception(text):
    with pytest.raises(GateError) as info:
        gate(f'<svg {SVG_NS} viewBox="0 0 9 9" {text}><rect width="9" height="9"/></svg>')
    assert info.value.code in ("bad_characters", "parse_error")


def test_every_svg_probe_earns_nothing_on_checked_tasks():
    import verifiers
    from pytest_plugin import assert_not_hackable
    from verifiers.svg.tasks import builtin_tasks

    v = verifiers.get("svg", clip_weight=0, contrastive_weight=0)  # the checks alone: CLIP cannot save a hack
    try:
        for task in [t for t in builtin_tasks() if t.get("checks")][:6]:
            assert_not_hackable(v, task, threshold=0.0)
    finally:
        v.close()


def test_one_bad_item_never_loses_the_batch():
    import verifiers

    v = verifiers.get("svg", clip_weight=0, contrastive_weight=0)
    try:
        good = svg('<polygon points="50,5 89,27.5 89,72.5 50,95 11,72.5 11,27.5" fill="#3a3"/>')
        bad = svg('<rect width="50" height="50" id="\ud800"/>')
        scores = v.score_batch(
            [good, bad, good], [{"prompt": "a regular hexagon", "checks": [{"check": "regular_polygon"}]}] * 3
        )
    finally:
        v.close()
    assert [s.verdict.value for s in scores] == ["correct", "invalid", "correct"]
    assert scores[1].info["reason_code"] == "bad_characters"


def test_a_one_megabyte_svg_is_scored_within_the_render_budget():
    """The worst case the gate lets through when raised to 2 MB: one polygon of 80,000 points. Each
    score comes back within the verifier's own bound (the render is killed at `render_timeout` CPU
    seconds, or at the wall-clock backstop) and is never ERROR: a render past the budget is the
    model's INVALID. How fast it renders depends on the CPU (cairosvg alone took 2.1-2.4 s for it on
    one 2-core host): a benchmark matter, not asserted here."""
    import math
    import time

    import verifiers
    from verifiers.svg.render import wall_seconds
    from verifiers.svg.tasks import builtin_tasks

    tasks = [t for t in builtin_tasks() if t.get("checks")]
    points = " ".join(f"{50 + 40 * math.cos(k * 1e-3):.2f},{50 + 40 * math.sin(k * 1.1e-3):.2f}" for k in range(80_000))
    doc = svg(f'<polygon points="{points}" fill="blue" stroke="red"/>')
    assert len(doc) > 900_000
    v = verifiers.get("svg", clip_weight=0, contrastive_weight=0, max_svg_chars=2_000_000)
    try:
        v.score(svg('<rect width="50" height="50"/>'), tasks[0])  # start the render workers first
        worst = 0.0
        for task in tasks:
            start = time.perf_counter()
            s = v.score(doc, task)
            worst = max(worst, time.perf_counter() - start)
            assert not s.is_error, s.reason
            assert s.verdict != "invalid" or s.info.get("reason_code") == "render_timeout", s.reason
    finally:
        v.close()
    budget = wall_seconds(v.config.render_timeout) + 1.5  # the backstop, plus starting a fresh render worker
    assert worst < budget, f"{worst:.2f} s, past the {budget:.1f} s bound"
