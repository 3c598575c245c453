"""Issue 14's attacks on the SVG verifier, each earning nothing: smuggled text (raster and nested
SVG), CSS escapes, bad characters. (Hidden elements and look-alikes are in test_svg_lookalikes.py.)"""
import base64
import io

import pytest

from verifiers.svg.gate import GateError, GateLimits, gate

from svg_docs import SVG_NS, XLINK, svg

NESTED_TEXT = base64.b64encode(f'<svg {SVG_NS} width="99" height="40"><text y="30">a gear</text></svg>'.encode()).decode()


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
    for body in (SMUGGLED["svg claiming png in <image>"], SMUGGLED["svg claiming png in <use>"],
                 f'<image href="data:image/jpeg;base64,{_png()}" width="9" height="9"/>',  # a png claiming jpeg
                 '<image href="data:image/png;base64,iVBORw0KGgo=" width="9" height="9"/>',  # a signature, no image
                 '<image href="data:image/png;base64,%%%%" width="9" height="9"/>'):
        with pytest.raises(GateError) as info:
            gate(svg(body), allow)
        assert info.value.code == "bad_raster", body


@pytest.mark.parametrize("body", [
    '<style>@\\69mport "data:text/css,rect{fill:red}";</style><rect width="9" height="9"/>',
    '<style>@IMPORT url(x.css);</style>',
    '<style>@media screen { @import "x.css"; }</style>',
    '<style>rect { fill: u\\72l(http://example.com/p) }</style>',
    '<rect width="9" height="9" style="fill: u\\72l(file:///etc/passwd)"/>',
    '<rect width="9" height="9" fill="u\\72l(http://example.com/p)"/>',
])
def test_css_is_read_with_escapes_decoded(body):
    with pytest.raises(GateError) as info:
        gate(svg(body))
    assert info.value.code == "external_reference"


def test_local_css_still_passes():
    gate(svg('<defs><linearGradient id="g"/></defs><style>rect { fill: url(#g); stroke: red }</style>'
             '<rect width="9" height="9" style="fill: url(\'#g\')"/>'))


@pytest.mark.parametrize("text", ['id="\ud800"', 'id="a\udcff"', 'class="\x00"'])
def test_bad_characters_are_invalid_never_an_exception(text):
    with pytest.raises(GateError) as info:
        gate(f'<svg {SVG_NS} viewBox="0 0 9 9" {text}><rect width="9" height="9"/></svg>')
    assert info.value.code in ("bad_characters", "parse_error")
