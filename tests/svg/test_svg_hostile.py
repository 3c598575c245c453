"""Hostile SVGs: each is refused or drawn within bounded time and memory, and none raises.

Times are generous ceilings against hangs (cairosvg alone spends 21 s on the nested <use>), not
speed targets: those live in bench/bench_svg.py.
"""

import os
import time

import pytest
from svg_docs import ORDINARY, SVG_NS, XLINK, svg, use_fanout

from verifiers import Verdict

TASK = {"id": "hostile", "prompt": "a regular hexagon", "negatives": ["a pentagon", "a circle"]}
LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
)

HOSTILE = {
    "xxe": (
        f'<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg {SVG_NS} viewBox="0 0 9 9">&x;</svg>',
        "entities_forbidden",
    ),
    "entity expansion": (
        LAUGHS + f'<svg {SVG_NS} viewBox="0 0 9 9"><desc>&d;&d;&d;</desc></svg>',
        "entities_forbidden",
    ),
    "nested use fan-out": (use_fanout(6, 10), "use_fanout"),
    "nested patterns": (
        svg(
            "".join(
                f'<pattern id="p{i}" width="0.1" height="0.1"><rect width="0.05" height="0.05" fill="url(#p{i + 1})"/></pattern>'
                for i in range(8)
            )
            + '<pattern id="p8" width="1" height="1"><rect width="1" height="1"/></pattern>'
            '<rect width="100" height="100" fill="url(#p0)"/>'
        ),
        "nested_pattern",
    ),
    "5000 nested groups": (svg("<g>" * 5000 + '<rect width="9" height="9"/>' + "</g>" * 5000), "too_deep"),
    "20000 shapes": (svg('<circle cx="5" cy="5" r="3"/>' * 20_000, 'width="100" height="100"'), "too_large"),
    "external image file": (svg('<image href="file:///etc/passwd" width="50" height="50"/>'), "external_reference"),
    "external image http": (
        f'<svg {SVG_NS} {XLINK} viewBox="0 0 9 9"><image xlink:href="http://169.254.169.254/x.png" '
        'width="5" height="5"/></svg>',
        "external_reference",
    ),
    "script": (svg('<script>fetch("http://example.com")</script><rect width="9" height="9"/>'), "forbidden_element"),
    "empty string": ("", "no_svg"),
    "10 MB completion": ("Let me think. " * 750_000 + ORDINARY["hexagon"][:-6], "svg_cut_off"),
    "event handler": (svg('<rect width="9" height="9" onload="alert(1)"/>'), "event_attribute"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_svg_is_refused_quickly_with_its_reason(svg_verifier, name):
    completion, code = HOSTILE[name]
    started = time.monotonic()
    score = svg_verifier.score(completion, TASK)
    assert time.monotonic() - started < 15
    assert score.verdict is Verdict.INVALID and score.reward == 0.0, score
    assert score.info["reason_code"] == code, score.reason


def test_huge_declared_size_is_drawn_at_the_render_size(svg_verifier):
    big = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000">'
        '<polygon points="10000,500 18660,5000 18660,15000 10000,19500 1340,15000 1340,5000" fill="green"/></svg>'
    )
    started = time.monotonic()
    score = svg_verifier.score(big, TASK)
    assert time.monotonic() - started < 15
    assert score.verdict is not Verdict.INVALID, score


def test_svg_inside_html_is_taken_out_of_its_wrapper(svg_verifier):
    page = f"<html><body><h1>Hexagon</h1>{ORDINARY['hexagon']}<script>alert(1)</script></body></html>"
    score = svg_verifier.score(page, TASK)
    assert score.verdict not in (Verdict.INVALID, Verdict.ERROR), score
    assert score.info["png_sha256"] == svg_verifier.score(ORDINARY["hexagon"], TASK).info["png_sha256"]


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def test_the_whole_hostile_suite_in_one_batch_is_bounded(svg_verifier):
    completions = [c for c, _code in HOSTILE.values()] + [ORDINARY["hexagon"]]
    svg_verifier.score_batch(completions[:1], [TASK])  # warm up workers and CLIP before measuring
    before = _rss_mb()
    started = time.monotonic()
    scores = svg_verifier.score_batch(completions, [TASK] * len(completions))
    assert time.monotonic() - started < 30
    assert _rss_mb() - before < 300  # renders happen in capped workers, not here
    assert [s.info.get("reason_code") for s in scores[:-1]] == [code for _c, code in HOSTILE.values()]
    assert scores[-1].verdict is not Verdict.INVALID


def test_a_render_that_beats_the_gate_still_times_out(tiny_clip):
    """Defence in depth: with the gate's <use> cap lifted, the render worker's clock still stops it."""
    from verifiers.svg import SvgVerifier

    lax = SvgVerifier(clip_weights=tiny_clip, max_use_expansion=10**9, render_timeout=1.0, render_workers=1)
    try:
        started = time.monotonic()
        score = lax.score(use_fanout(6, 10), TASK)
        assert time.monotonic() - started < 15
    finally:
        lax.close()
    assert score.verdict is Verdict.INVALID and score.info["reason_code"] == "render_timeout", score
