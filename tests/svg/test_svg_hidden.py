"""Checks that read geometry count only what is drawn: every way of declaring a shape that does
not show (attributes, a stylesheet, clipping, the canvas edge, white on white, painted over)
earns nothing, on each of the four checks that read the SVG's geometry."""

import pytest
from svg_docs import HOW, svg

from pytest_plugin.required_parts import require_module
from verifiers.svg.checks import run_checks
from verifiers.svg.drawing import drawing_from_svg

DISC = '<circle cx="50" cy="50" r="30" fill="red"/>'
TRAPEZOID = 'points="20,20 80,20 70,60 30,60"'
SQUARE = 'x="15" y="15" width="70" height="70"'
DASH = 'fill="none" stroke="black" stroke-width="3" stroke-dasharray="8 4"'
CHART_AXES = '<line x1="10" y1="90" x2="95" y2="90" stroke="black" stroke-width="2"/><line x1="10" y1="90" x2="10" y2="5" stroke="black" stroke-width="2"/>'
SERIES = 'points="15,70 30,50 45,60 60,30 75,40 90,20" fill="none" stroke="blue" stroke-width="3"'
FACE = '<circle cx="50" cy="50" r="40" fill="white" stroke="black" stroke-width="3"/>'
TICKS = "".join(f'<rect x="{x}" y="{y}" width="4" height="4"/>' for x, y in ((48, 13), (48, 83), (13, 48), (83, 48)))
HANDS = '<line x1="50" y1="50" x2="50" y2="22" stroke="black" stroke-width="3"/><line x1="50" y1="50" x2="72" y2="50" stroke="black" stroke-width="3"/>'

# for each geometry check: (check spec, the drawing with the decisive part as {part}, the visible part)
SUBJECTS = {
    "trapezoid": ({"check": "trapezoid"}, DISC + "{part}", f'<polygon {TRAPEZOID} fill="#36c" {{hide}}/>'),
    "dashed_square": ({"check": "dashed_square"}, DISC + "{part}", f"<rect {SQUARE} {DASH} {{hide}}/>"),
    "line_chart": ({"check": "line_chart", "min_points": 5}, CHART_AXES + "{part}", f"<polyline {SERIES} {{hide}}/>"),
    "clock_face": ({"check": "clock_face"}, FACE + TICKS + "{part}", f"<g {{hide}}>{HANDS}</g>"),
}
HIDING = {
    "display none": 'display="none"',
    "visibility hidden": 'visibility="hidden"',
    "opacity 0": 'opacity="0"',
    "style display:none": 'style="display:none"',
    "style opacity:0": 'style="opacity: 0"',
    "stylesheet class": 'class="h"',
    "empty clip-path": 'clip-path="url(#nothing)"',
    "off the canvas": 'transform="translate(500 500)"',
}
# (a black <mask> is not here: cairosvg ignores masks and draws the shape, so it *is* visible in
# what the checks and CLIP see; with renderer="resvg" the mask applies and the shape is gone)
DEFS = '<style>.h { display: none }</style><defs><clipPath id="nothing"><rect width="0" height="0"/></clipPath></defs>'


@pytest.fixture(autouse=True, scope="module")
def _cairo():
    require_module("cairosvg", HOW)
    require_module("scipy", HOW)


def _passes(spec, doc) -> bool:
    (result,) = run_checks(drawing_from_svg(doc), [spec]).values()
    return result.passed


@pytest.mark.parametrize("subject", list(SUBJECTS))
def test_the_visible_drawing_passes(subject):
    spec, scene, part = SUBJECTS[subject]
    assert _passes(spec, svg(DEFS + scene.format(part=part.format(hide=""))))


@pytest.mark.parametrize("how", list(HIDING))
@pytest.mark.parametrize("subject", list(SUBJECTS))
def test_a_hidden_part_earns_nothing(subject, how):
    spec, scene, part = SUBJECTS[subject]
    assert not _passes(spec, svg(DEFS + scene.format(part=part.format(hide=HIDING[how])))), (subject, how)


@pytest.mark.parametrize("subject", ["trapezoid", "line_chart"])
def test_white_on_white_and_painted_over_earn_nothing(subject):
    spec, scene, part = SUBJECTS[subject]
    white = part.replace('fill="#36c"', 'fill="white"').replace('stroke="blue"', 'stroke="white"')
    assert not _passes(spec, svg(scene.format(part=white.format(hide=""))))
    covered = scene.format(part=part.format(hide="")) + '<rect x="0" y="0" width="100" height="100" fill="#eee"/>'
    assert not _passes(spec, svg(covered))


def test_the_issue_example_is_not_a_trapezoid():
    doc = svg(DISC + '<polygon display="none" points="20,20 80,20 70,60 30,60"/>')
    assert not _passes({"check": "trapezoid"}, doc)
