"""Rendering: white background, fixed output size, killable workers, and cairosvg/resvg agreement."""

import numpy as np
import pytest
from svg_docs import HOW, ORDINARY, svg, use_fanout

from pytest_plugin.required_parts import require_module
from verifiers.svg.drawing import image_from_png
from verifiers.svg.render import Rendered, RenderPool, render_png


@pytest.fixture(scope="module", autouse=True)
def _renderers():
    require_module("cairosvg", HOW)
    require_module("resvg_py", HOW)


@pytest.fixture(scope="module")
def pool():
    made = RenderPool("cairosvg", size=128, cpu_seconds=1.5, memory_mb=1024, workers=1)
    yield made
    made.close()


@pytest.mark.parametrize("renderer", ["cairosvg", "resvg"])
def test_default_black_shapes_stay_visible_on_white(renderer):
    image = image_from_png(render_png(svg('<rect x="25" y="25" width="50" height="50"/>'), 100, renderer))
    assert image.shape == (100, 100, 3)
    assert image[50, 50].tolist() == [0, 0, 0]
    assert image[5, 5].tolist() == [255, 255, 255]  # transparent would become black for CLIP


@pytest.mark.parametrize("renderer", ["cairosvg", "resvg"])
def test_a_huge_declared_size_renders_at_the_requested_size(renderer):
    # Unguarded, width="20000" took 12 s and 1.6 GB in cairosvg; with both output sizes it is a 64 px image.
    big = '<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000"><circle cx="10000" cy="10000" r="8000" fill="red"/></svg>'
    image = image_from_png(render_png(big, 64, renderer))
    assert image.shape == (64, 64, 3)
    assert image[32, 32].tolist() == [255, 0, 0]


@pytest.mark.parametrize("renderer", ["cairosvg", "resvg"])
def test_empty_input_never_reaches_the_renderer(renderer, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # cairosvg handed b"" would try to read the current directory
    with pytest.raises(ValueError, match="empty SVG"):
        render_png("", 64, renderer)


@pytest.mark.parametrize("name", sorted(ORDINARY))
def test_cairosvg_and_resvg_agree_on_ordinary_svgs(name):
    a = image_from_png(render_png(ORDINARY[name], 256, "cairosvg")).astype(int)
    b = image_from_png(render_png(ORDINARY[name], 256, "resvg")).astype(int)
    diff = np.abs(a - b)
    assert diff.mean() < 1.5, f"mean abs difference {diff.mean():.2f} / 255"
    assert (diff.max(axis=2) > 32).mean() < 0.02  # only anti-aliased edges may differ


def test_a_slow_render_is_killed_and_the_pool_keeps_working(pool):
    slow = use_fanout(6, 10)  # 10^6 references: cairosvg needs ~20 s of CPU before it aborts
    out = pool.render([slow, ORDINARY["circle"]])
    assert out[0].startswith("render_timeout") and "s of CPU" in out[0], out[0]  # the drawing's cost, not the load's
    assert isinstance(out[1], Rendered) and out[1].png.startswith(b"\x89PNG")
    assert isinstance(pool.render([ORDINARY["hexagon"]])[0], Rendered)


def test_a_render_over_the_memory_cap_fails_cleanly():
    greedy = RenderPool("cairosvg", size=16_000, cpu_seconds=20, memory_mb=300, workers=1)  # a 1 GB surface
    try:
        (out,) = greedy.render([ORDINARY["circle"]])
    finally:
        greedy.close()
    assert isinstance(out, str) and out.split(":")[0] in {"render_failed", "render_out_of_memory", "render_crashed"}, (
        out
    )


def test_renderer_errors_are_reasons_not_exceptions(pool):
    (out,) = pool.render(['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 0 0"><rect/></svg>'])
    assert isinstance(out, (Rendered, str))  # a zero viewBox: drawn blank or refused, never raised
    (out,) = pool.render(["<svg"])
    assert out.startswith("render_failed")


def test_a_render_cut_off_by_the_clock_before_its_cpu_budget_is_ours_not_the_drawings():
    """The budget is CPU time, so load cannot make a drawing INVALID: a render the wall clock ends
    before it used its CPU (here a drawing that needs ~20 s of CPU, a CPU budget of 60 s and a clock
    of 1 s, as a starved worker meets it) is `render_stalled`, which the verifier scores ERROR."""
    import verifiers
    from verifiers import Verdict

    slow = use_fanout(6, 10)
    starved = RenderPool("cairosvg", size=64, cpu_seconds=60, memory_mb=1024, workers=1, wall=1.0)
    try:
        (out,) = starved.render([slow])
    finally:
        starved.close()
    assert isinstance(out, str) and out.startswith("render_stalled"), out
    v = verifiers.get("svg", clip_weight=0, contrastive_weight=0, max_use_expansion=10**9, render_timeout=60.0)
    try:
        task = v.tasks("test", limit=1)[0]
        score = v.score_items([(0, slow, task)], timeout=1.0)[0]  # (score_batch keeps at least the verifier's budget)
    finally:
        v.close()
    assert score.verdict is Verdict.ERROR and "render_stalled" in score.reason, score
