"""Extraction and the gate: every refusal has its reason code, and accepted SVG is re-serialised."""

import pytest
from svg_docs import SVG_NS, XLINK, svg, use_fanout

from verifiers.svg.extract import extract_svg, find_svgs
from verifiers.svg.gate import GateError, GateLimits, expanded_size, gate


def test_fenced_and_bare_last_wins_by_default():
    first, second = svg('<rect width="1" height="1"/>'), svg('<circle r="2"/>')
    text = f"Here:\n```svg\n{first}\n```\nor better {second} done"
    assert extract_svg(text) == (second, "")
    assert extract_svg(text, "first") == (first, "")
    assert extract_svg(text, "only") == (None, "several_svgs")


def test_nested_svg_elements_stay_in_their_document():
    doc = svg('<svg x="10"><rect width="5" height="5"/></svg><circle r="3"/>')
    assert find_svgs(f"a {doc} b") == [doc]


@pytest.mark.parametrize(
    "text, pick, code",
    [
        ("no drawing here", "final", "no_svg"),
        ("<svg viewBox='0 0 1 1'><rect/>", "final", "svg_cut_off"),
        ("<svg viewBox='0 0 1 1'><rect/>", "last", "unclosed_svg"),
    ],
)
def test_missing_svg(text, pick, code):
    assert extract_svg(text, pick) == (None, code)


def test_accepted_svg_is_reserialised_in_the_svg_namespace():
    gated = gate('<svg width="10" height="10"><rect width="5" height="5"/></svg>')  # no xmlns
    assert gated.svg.startswith(f"<svg {SVG_NS}")
    assert gated.root.find("{http://www.w3.org/2000/svg}rect") is not None
    assert gated.nodes == 2


def test_html_named_entities_are_read_as_their_characters_and_nothing_else_expands():
    """An SVG written for a web page uses HTML's named entities (`&nbsp;`, `&deg;`), which XML does
    not define: each is read as its character(s); an unknown name and a DTD's entity stay refused."""
    gated = gate(svg('<desc>90&deg;&nbsp;&mdash; &amp; &#65;</desc><rect width="5" height="5"/>'))
    desc = gated.root.find("{http://www.w3.org/2000/svg}desc")
    assert desc is not None and desc.text == "90\u00b0\u00a0\u2014 & A"
    with pytest.raises(GateError) as info:
        gate(svg("<desc>&nosuchentity;</desc>"))
    assert info.value.code == "entities_forbidden"


REFUSED = {
    "empty": "   ",
    "too_large": svg("<g/>" * 30_000),
    "parse_error": svg("<rect>"),
    "entities_forbidden": f'<!DOCTYPE svg [<!ENTITY x "y">]><svg {SVG_NS} viewBox="0 0 1 1">&x;</svg>',
    "root_not_svg": f"<html {SVG_NS}><rect/></html>",
    "too_many_nodes": svg("<rect/>" * 2500),
    "too_deep": svg("<g>" * 40 + "</g>" * 40),
    "forbidden_element": svg("<script>alert(1)</script>"),
    "text_not_allowed": svg('<text x="5" y="50">a regular hexagon</text>'),
    "event_attribute": svg('<rect width="5" height="5" onclick="x()"/>'),
    "external_reference": svg('<image href="http://example.com/a.png" width="5" height="5"/>'),
    "no_size": f"<svg {SVG_NS}><rect/></svg>",
    "use_fanout": use_fanout(6, 10),
    "nested_pattern": svg(
        '<pattern id="p" width="2" height="2"><rect fill="url(#q)"/></pattern>'
        '<pattern id="q" width="1" height="1"><rect/></pattern>'
    ),
}


@pytest.mark.parametrize("code", sorted(REFUSED))
def test_each_refusal_has_its_reason_code(code):
    with pytest.raises(GateError) as info:
        gate(REFUSED[code])
    assert info.value.code == code


@pytest.mark.parametrize(
    "body",
    [
        '<image href="file:///etc/passwd" width="5" height="5"/>',
        '<rect width="5" height="5" fill="url(http://example.com/x#p)"/>',
        "<style>@import url(http://example.com/a.css);</style>",
        '<rect width="5" height="5" style="fill: url(\'file:///etc/passwd\')"/>',
    ],
)
def test_external_references_are_refused(body):
    with pytest.raises(GateError) as info:
        gate(f'<svg {SVG_NS} {XLINK} viewBox="0 0 10 10">{body}</svg>')
    assert info.value.code == "external_reference"


def test_allowed_references_pass():
    gate(
        svg(
            '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient>'
            '<rect id="r" width="5" height="5"/></defs><use href="#r"/><rect width="9" height="9" fill="url(#g)"/>'
        )
    )


def test_text_is_allowed_by_option():
    gate(svg('<text x="5" y="50">hi</text>'), GateLimits(allow_text=True))


def test_use_cycle_counts_as_over_the_cap():
    root = gate(svg('<g id="a"><rect/></g><use href="#a"/><use href="#a"/>')).root
    assert expanded_size(root, {"a": root[0]}, 100) == 1 + 2 + 2 * (1 + 2)  # svg, g+rect, two uses of g+rect
    with pytest.raises(GateError) as info:
        gate(svg('<g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g>'))
    assert info.value.code == "use_fanout"


def test_linear_time_extraction_of_a_huge_unclosed_completion():
    # Not a timing assertion: the quadratic version of this scan never finishes within the test run.
    assert extract_svg("<svg" * 1_000_000)[1] == "svg_cut_off"  # it ends inside an opening tag
